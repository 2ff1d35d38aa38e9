// All-to-all: every rank sends S/n to every other rank (S = the buffer each rank sends,
// nccl-tests' "size"). Direct posts every transfer at once (NCCL's grouped send/recv), one
// stage of n(n-1) exchanges; pairwise runs n-1 stages, in stage k rank r sends to r+k.
#include "tilesight/net/collective_algorithm.h"

namespace tilesight::net {

namespace {

class DirectAllToAll final : public CollectiveAlgorithm {
 public:
  bool in_nccl() const override { return true; }
  std::string_view name() const override { return "direct"; }
  bool supports(Collective c, std::size_t ranks) const override { return c == Collective::kAllToAll && ranks >= 2; }
  std::vector<Stage> stages(const CollectiveRequest& r) const override {
    const std::size_t n = r.ranks();
    Stage s{.label = "all-to-all"};
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b)
        if (a != b) s.exchanges.push_back({a, b, r.bytes / static_cast<double>(n)});
    return {s};
  }
};

class PairwiseAllToAll final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "pairwise"; }
  bool supports(Collective c, std::size_t ranks) const override { return c == Collective::kAllToAll && ranks >= 2; }
  std::vector<Stage> stages(const CollectiveRequest& r) const override {
    const std::size_t n = r.ranks();
    std::vector<Stage> out;
    for (std::size_t k = 1; k < n; ++k) {
      Stage s{.label = "pairwise " + std::to_string(k)};
      for (std::size_t a = 0; a < n; ++a) s.exchanges.push_back({a, (a + k) % n, r.bytes / static_cast<double>(n)});
      out.push_back(std::move(s));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_direct_all_to_all() { return std::make_unique<DirectAllToAll>(); }
std::unique_ptr<CollectiveAlgorithm> make_pairwise_all_to_all() { return std::make_unique<PairwiseAllToAll>(); }

}  // namespace tilesight::net
