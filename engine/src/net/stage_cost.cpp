#include "tilesight/net/stage_cost.h"

#include <algorithm>

namespace tilesight::net {

namespace {

// Seconds per byte on link l: NCCL's tuner shares stand for the channel limits where those
// are not measured; where they are (send_rate > 0), the link carries the protocol's payload
// at its wire share and the channels bound the stage themselves.
double link_beta(const LinkType& t, Collective c, Protocol p, double send_rate) {
  if (send_rate <= 0) return t.beta(c, p);
  return 1.0 / (t.bandwidth * t.efficiency * protocol_wire_fraction(p));
}

}  // namespace

StageCost stage_cost(const NetworkHierarchy& net, const std::vector<std::size_t>& group, const Stage& stage,
                     Collective collective, Protocol protocol, double send_rate) {
  StageCost cost;
  std::vector<double> bytes(net.links().size(), 0.0);
  std::vector<double> sent(group.size(), 0.0);
  for (const Exchange& e : stage.exchanges) {
    if (e.src == e.dst) continue;
    // Parallel rails share the transfer evenly: NCCL spreads a GPU's channels over its NICs
    // in turn (topo.cc, ncclTopoGetLocalNet: channel c takes local NIC c mod NICs), and
    // every channel carries an equal part of the buffer.
    const Routes& routes = net.routes(group[e.src], group[e.dst]);
    const double share = e.bytes / static_cast<double>(routes.size());
    for (const Route& route : routes) {
      cost.latency_s = std::max(cost.latency_s, net.route_latency(route, protocol));
      for (std::size_t l : route) bytes[l] += share;
    }
    sent[e.src] += e.bytes;
  }
  if (send_rate > 0)
    for (double s : sent) cost.channel_s = std::max(cost.channel_s, s / send_rate);
  for (std::size_t l = 0; l < bytes.size(); ++l) {
    if (bytes[l] <= 0) continue;
    const double busy = link_beta(net.type_of(l), collective, protocol, send_rate) * bytes[l];
    cost.loads.push_back({l, bytes[l], busy});
    if (busy > cost.serialisation_s) {
      cost.serialisation_s = busy;
      cost.bottleneck_link = l;
    }
  }
  cost.serialisation_s = std::max(cost.serialisation_s, cost.channel_s);
  return cost;
}

}  // namespace tilesight::net
