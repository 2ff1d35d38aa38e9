// Net stage time, eq. 11 as corrected in DESIGN.md:
//
//   T_k = max_{(s,d,b) ∈ E_k} Σ_{l ∈ P_sd} α_l  +  max_l β_l · B_{l,k}
//         └─ routed hop latency ─────────────┘    └─ bottleneck-link serialisation ┘
//
// B_{l,k} is every byte of stage k routed through link l, so exchanges that share a link
// (two transfers through one NIC, all of a GPU's sends through its NVSwitch port) add up
// there. β_l is per link and per collective/protocol (LinkType::beta). Where two devices
// have parallel routes (rails: NetworkHierarchy::routes), an exchange's bytes split evenly
// over them, as NCCL's channels spread over a GPU's NICs.
//
// Where the system measures what NCCL's channels send for this collective (nccl_channels.h,
// send_rate > 0), a link carries each protocol's payload at its wire share
// (protocol_wire_fraction) and the stage also lasts at least the busiest sender's bytes over
// what its channels send per second:
//
//   serialisation = max( max_l β_l · B_{l,k},  max_d S_{d,k} / R(c, p, channels) )
#pragma once

#include <vector>

#include "tilesight/net/exchange.h"
#include "tilesight/net/network_hierarchy.h"

namespace tilesight::net {

struct LinkLoad {
  std::size_t link = 0;
  double bytes = 0;   // B_{l,k}
  double busy_s = 0;  // β_l · B_{l,k}
};

struct StageCost {
  double latency_s = 0;        // routed hop latency
  double serialisation_s = 0;  // bottleneck-link serialisation
  std::vector<LinkLoad> loads; // links that carry bytes, in link order
  std::size_t bottleneck_link = 0;
  double channel_s = 0;        // busiest sender's bytes over its channels' send rate
  bool channel_bound() const { return channel_s > 0 && channel_s >= serialisation_s; }
  double time_s() const { return latency_s + serialisation_s; }
};

// `group` maps ranks of the stage's exchanges to devices of `net`; `send_rate` is what one
// device's channels send per second (0: no channel bound).
StageCost stage_cost(const NetworkHierarchy& net, const std::vector<std::size_t>& group, const Stage& stage,
                     Collective collective, Protocol protocol, double send_rate = 0);

}  // namespace tilesight::net
