// Point-to-point: rank 0 sends S bytes to the last rank of the group (nccl-tests
// sendrecv with two ranks), one stage of one exchange.
#include "tilesight/net/collective_algorithm.h"

namespace tilesight::net {

namespace {

class PointToPoint final : public CollectiveAlgorithm {
 public:
  bool in_nccl() const override { return true; }
  std::string_view name() const override { return "p2p"; }
  bool supports(Collective c, std::size_t ranks) const override { return c == Collective::kSendRecv && ranks >= 2; }
  std::vector<Stage> stages(const CollectiveRequest& r) const override {
    return {Stage{.label = "send", .exchanges = {{0, r.ranks() - 1, r.bytes}}}};
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_point_to_point() { return std::make_unique<PointToPoint>(); }

}  // namespace tilesight::net
