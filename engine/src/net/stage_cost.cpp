#include "tilesight/net/stage_cost.h"

#include <algorithm>

namespace tilesight::net {

StageCost stage_cost(const NetworkHierarchy& net, const std::vector<std::size_t>& group, const Stage& stage,
                     Collective collective, Protocol protocol) {
  StageCost cost;
  std::vector<double> bytes(net.links().size(), 0.0);
  for (const Exchange& e : stage.exchanges) {
    if (e.src == e.dst) continue;
    const Route& route = net.route(group[e.src], group[e.dst]);
    cost.latency_s = std::max(cost.latency_s, net.route_latency(route, protocol));
    for (std::size_t l : route) bytes[l] += e.bytes;
  }
  for (std::size_t l = 0; l < bytes.size(); ++l) {
    if (bytes[l] <= 0) continue;
    const double busy = net.type_of(l).beta(collective, protocol) * bytes[l];
    cost.loads.push_back({l, bytes[l], busy});
    if (busy > cost.serialisation_s) {
      cost.serialisation_s = busy;
      cost.bottleneck_link = l;
    }
  }
  return cost;
}

}  // namespace tilesight::net
