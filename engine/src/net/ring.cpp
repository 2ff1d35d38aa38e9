// Ring (NCCL's default for bandwidth): rank r sends to r+1 each step. Reduce-scatter and
// all-gather are n-1 steps of S/n; all-reduce is both, 2(n-1) steps of S/n (Patarasuk and
// Yuan 2009). Every step is the same set of transfers, so it is one stage repeated.
#include <algorithm>

#include "tilesight/net/collective_algorithm.h"

namespace tilesight::net {

namespace {

// One ring in rank order; across equal nodes of L > 1 ranks, L rings (NCCL's channels over
// rails): ring c visits each node's ranks rotated by c, so it enters a node at its c-th rank
// and leaves through another, and the L rings leave every node through L different NICs.
// Each ring carries 1/L of the buffer.
std::vector<std::vector<std::size_t>> channel_rings(const CollectiveRequest& r) {
  const std::size_t n = r.ranks();
  std::vector<std::vector<std::size_t>> by_node;
  for (std::size_t i = 0; i < n && r.node.size() == n; ++i) {
    if (r.node[i] >= by_node.size()) by_node.resize(r.node[i] + 1);
    by_node[r.node[i]].push_back(i);
  }
  const std::size_t local = by_node.empty() ? 0 : by_node.front().size();
  const bool rails = by_node.size() > 1 && local > 1 &&
                     std::all_of(by_node.begin(), by_node.end(), [&](const auto& b) { return b.size() == local; });
  std::vector<std::size_t> plain(n);
  for (std::size_t i = 0; i < n; ++i) plain[i] = i;
  if (!rails) return {plain};
  std::vector<std::vector<std::size_t>> rings(local);
  for (std::size_t c = 0; c < local; ++c)
    for (const auto& b : by_node)
      for (std::size_t j = 0; j < local; ++j) rings[c].push_back(b[(c + j) % local]);
  return rings;
}

class Ring final : public CollectiveAlgorithm {
 public:
  bool in_nccl() const override { return true; }
  std::string_view name() const override { return "ring"; }
  bool supports(Collective c, std::size_t ranks) const override {
    return ranks >= 2 && (c == Collective::kAllGather || c == Collective::kReduceScatter || c == Collective::kAllReduce);
  }
  std::vector<Stage> stages(const CollectiveRequest& r) const override {
    const std::size_t n = r.ranks();
    const auto rings = channel_rings(r);
    const double chunk = r.bytes / static_cast<double>(n) / static_cast<double>(rings.size());
    Stage step{.label = "ring step"};
    for (const auto& ring : rings)
      for (std::size_t i = 0; i < n; ++i) step.exchanges.push_back({ring[i], ring[(i + 1) % n], chunk});
    const auto steps = static_cast<std::int64_t>(n - 1);
    if (r.collective != Collective::kAllReduce) {
      step.repeat = steps;
      return {step};
    }
    Stage reduce = step, gather = step;
    reduce.label = "ring reduce-scatter step";
    reduce.repeat = steps;
    gather.label = "ring all-gather step";
    gather.repeat = steps;
    return {reduce, gather};
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_ring() { return std::make_unique<Ring>(); }

}  // namespace tilesight::net
