// Recursive doubling (Thakur, Rabenseifner and Gropp 2005), n a power of two: in step i rank
// r exchanges with r XOR 2^i. All-reduce sends the whole buffer every step (log2 n steps of
// S: few latencies, much traffic); all-gather sends what it has gathered so far, S·2^i/n.
#include "tilesight/net/collective_algorithm.h"

namespace tilesight::net {

namespace {

class RecursiveDoubling final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "recursive_doubling"; }
  bool supports(Collective c, std::size_t ranks) const override {
    return ranks >= 2 && is_power_of_two(ranks) && (c == Collective::kAllReduce || c == Collective::kAllGather);
  }
  std::vector<Stage> stages(const CollectiveRequest& r) const override {
    const std::size_t n = r.ranks();
    std::vector<Stage> out;
    for (std::size_t bit = 1, i = 0; bit < n; bit <<= 1, ++i) {
      const double bytes = r.collective == Collective::kAllReduce
                               ? r.bytes
                               : r.bytes * static_cast<double>(bit) / static_cast<double>(n);
      Stage s{.label = "recursive doubling " + std::to_string(i + 1)};
      for (std::size_t k = 0; k < n; ++k) s.exchanges.push_back({k, k ^ bit, bytes});
      out.push_back(std::move(s));
    }
    return out;
  }
};

// Recursive halving reduce-scatter: step i exchanges half of what is left, S/2^(i+1).
class RecursiveHalving final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "recursive_halving"; }
  bool supports(Collective c, std::size_t ranks) const override {
    return ranks >= 2 && is_power_of_two(ranks) && c == Collective::kReduceScatter;
  }
  std::vector<Stage> stages(const CollectiveRequest& r) const override {
    const std::size_t n = r.ranks();
    std::vector<Stage> out;
    double bytes = r.bytes;
    for (std::size_t bit = n / 2, i = 0; bit >= 1; bit >>= 1, ++i) {
      bytes /= 2;
      Stage s{.label = "recursive halving " + std::to_string(i + 1)};
      for (std::size_t k = 0; k < n; ++k) s.exchanges.push_back({k, k ^ bit, bytes});
      out.push_back(std::move(s));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_recursive_doubling() { return std::make_unique<RecursiveDoubling>(); }
std::unique_ptr<CollectiveAlgorithm> make_recursive_halving() { return std::make_unique<RecursiveHalving>(); }

}  // namespace tilesight::net
