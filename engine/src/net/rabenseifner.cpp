// Rabenseifner's all-reduce (Rabenseifner 2004), n a power of two: a reduce-scatter by
// recursive halving (steps of S/2, S/4, ..., S/n) then an all-gather by recursive doubling
// (S/n, ..., S/2): 2 log2 n latencies and 2(n-1)/n·S bytes per rank, like the ring's.
#include "tilesight/net/collective_algorithm.h"

namespace tilesight::net {

namespace {

class Rabenseifner final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "rabenseifner"; }
  bool supports(Collective c, std::size_t ranks) const override {
    return ranks >= 2 && is_power_of_two(ranks) && c == Collective::kAllReduce;
  }
  std::vector<Stage> stages(const CollectiveRequest& r) const override {
    const std::size_t n = r.ranks();
    std::vector<Stage> out;
    double bytes = r.bytes;
    std::size_t i = 0;
    for (std::size_t bit = n / 2; bit >= 1; bit >>= 1) {
      bytes /= 2;
      Stage s{.label = "reduce-scatter halving " + std::to_string(++i)};
      for (std::size_t k = 0; k < n; ++k) s.exchanges.push_back({k, k ^ bit, bytes});
      out.push_back(std::move(s));
    }
    i = 0;
    for (std::size_t bit = 1; bit < n; bit <<= 1) {
      Stage s{.label = "all-gather doubling " + std::to_string(++i)};
      for (std::size_t k = 0; k < n; ++k) s.exchanges.push_back({k, k ^ bit, bytes});
      out.push_back(std::move(s));
      bytes *= 2;
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_rabenseifner() { return std::make_unique<Rabenseifner>(); }

}  // namespace tilesight::net
