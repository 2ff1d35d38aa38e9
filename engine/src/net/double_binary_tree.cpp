// Double binary tree all-reduce (NCCL's Tree, Sanders et al. 2009): two binary trees, the
// second the mirror of the first, each reduces half the buffer up to its root and
// broadcasts it back down. A rank that is interior in one tree is a leaf in the other, so no
// rank sends more than about the buffer per direction. The data is pipelined in chunks; in
// the steady state every tree edge carries a chunk up and a chunk down at once, which is the
// one stage here, run C + 2·depth − 1 times (Stage::pipeline_fill).
#include "tilesight/net/collective_algorithm.h"

namespace tilesight::net {

namespace {

// Heap-shaped binary tree over 0..n-1 (parent of r is (r-1)/2); depth = levels below the root.
std::size_t depth(std::size_t n) {
  std::size_t d = 0;
  while ((std::size_t{1} << (d + 1)) - 1 < n) ++d;
  return d;
}

class DoubleBinaryTree final : public CollectiveAlgorithm {
 public:
  bool in_nccl() const override { return true; }
  std::string_view name() const override { return "tree"; }
  bool supports(Collective c, std::size_t ranks) const override {
    return c == Collective::kAllReduce && ranks >= 2;
  }
  std::vector<Stage> stages(const CollectiveRequest& r) const override {
    const std::size_t n = r.ranks();
    const double half = r.bytes / 2.0;  // each tree carries half the buffer
    Stage s{.label = "tree pipeline step"};
    for (int tree = 0; tree < 2; ++tree) {
      auto rank = [&](std::size_t v) { return tree == 0 ? v : n - 1 - v; };
      for (std::size_t v = 1; v < n; ++v) {
        const std::size_t child = rank(v), parent = rank((v - 1) / 2);
        s.exchanges.push_back({child, parent, half});  // reduce up
        s.exchanges.push_back({parent, child, half});  // broadcast down
      }
    }
    s.pipeline_fill = static_cast<std::int64_t>(2 * depth(n)) - 1;
    return {s};
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_double_binary_tree() { return std::make_unique<DoubleBinaryTree>(); }

}  // namespace tilesight::net
