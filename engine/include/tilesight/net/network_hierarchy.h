// The NetworkHierarchy of §3.6: devices (GPUs), switches and directed links between them,
// each link with a per-hop latency α and an inverse bandwidth β per direction. A physical
// NVLink, PCIe or InfiniBand connection is two directed links, one per direction, so a ring
// step that sends and receives at once loads both without contention between them.
//
//   gpu0 ──gpu0->nvswitch──▶ nvswitch ──nvswitch->gpu1──▶ gpu1
//
// Routes are computed once, for every ordered pair of devices: the least α + β·1 MiB path
// that passes only through switches (a GPU never forwards another GPU's traffic), and every
// other path as cheap that shares no link with those before it (parallel rails: a GPU with
// two NICs into two fabrics reaches a GPU of another node both ways).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "tilesight/net/nccl_channels.h"
#include "tilesight/net/nccl_tuner.h"
#include "tilesight/net/protocol.h"
#include "tilesight/util/result.h"

namespace tilesight::net {

// NCCL's hardware classes (tuning.cc: NVLINK, PCI, NET): they set the per-hop latencies.
enum class LinkClass { kNvlink, kPcie, kNet };
std::string link_class_name(LinkClass c);  // "nvlink", "pcie", "net"

// A kind of physical connection, as the system profile's "link_types" describe it.
struct LinkType {
  std::string name;                 // "nvlink4", "pcie5", "ib_ndr"
  LinkClass link_class = LinkClass::kNvlink;
  double bandwidth = 0;             // bytes/s per direction (datasheet)
  double efficiency = 1;            // fraction of it bulk NCCL transfers reach (nccl-tests)
  std::array<double, kProtocolCount> alpha_s{};  // per-hop latency per protocol, seconds

  // β of eq. 11 for a collective and protocol: seconds per byte on this link.
  double beta(Collective c, Protocol p) const;
};

struct NetworkNode {
  std::string name;  // "gpu3", "nvswitch", "ib"
  bool device = false;
};

struct Link {
  std::string name;     // "gpu0->nvswitch"
  std::size_t from = 0; // node indices
  std::size_t to = 0;
  std::size_t type = 0; // index into link_types
};

using Route = std::vector<std::size_t>;  // link indices from source to destination
// The link-disjoint least-cost routes between two devices, the first one's ties broken as
// the search meets them; a transfer spreads its bytes evenly over them (stage_cost.h).
using Routes = std::vector<Route>;

class NetworkHierarchy {
 public:
  // Builds the routes; errors name a device pair with no route ("links: gpu3 cannot reach gpu5").
  static Result<NetworkHierarchy> build(std::vector<NetworkNode> nodes, std::vector<LinkType> types,
                                        std::vector<Link> links);

  std::size_t device_count() const { return devices_.size(); }
  const std::vector<NetworkNode>& nodes() const { return nodes_; }
  const std::vector<Link>& links() const { return links_; }
  const std::vector<LinkType>& link_types() const { return types_; }
  const LinkType& type_of(std::size_t link) const { return types_[links_[link].type]; }
  // Device i is the i-th node marked device, in the order the profile lists them (gpu0, gpu1, ...).
  const std::string& device_name(std::size_t device) const { return nodes_[devices_[device]].name; }
  const Routes& routes(std::size_t src_device, std::size_t dst_device) const {
    return routes_[src_device * devices_.size() + dst_device];
  }
  const Route& route(std::size_t src_device, std::size_t dst_device) const {
    return routes(src_device, dst_device).front();
  }
  // Σ α over a route's hops (eq. 11's routed hop latency).
  double route_latency(const Route& r, Protocol p) const;

  // Fixed cost of one collective launch per protocol (kernel start, the ranks' first
  // handshake), seconds: the system profile's "launch_us" where measured, else NCCL's
  // model constant (protocol_base_latency).
  double launch_latency(Protocol p) const { return launch_s_[static_cast<std::size_t>(p)]; }
  void set_launch_latency(Protocol p, double seconds) { launch_s_[static_cast<std::size_t>(p)] = seconds; }
  // The same for a collective: all-to-all and send/recv run NCCL's p2p kernel, whose start
  // the profile's "p2p_launch_us" gives where measured (else launch_latency(p)).
  double launch_latency(Collective c, Protocol p) const;
  void set_p2p_launch_latency(Protocol p, double seconds) { p2p_launch_s_[static_cast<std::size_t>(p)] = seconds; }

  // NCCL's tuner inputs on this system (nccl_tuner.h); not known() where the profile has no
  // "nccl_tuner": then the tuner picks the pair the model itself costs least.
  const NcclTunerSpec& nccl_tuner() const { return tuner_; }
  void set_nccl_tuner(NcclTunerSpec t) { tuner_ = t; }

  // NCCL's channels on this system (nccl_channels.h); not measured() where the profile has
  // no "nccl_channels": then only the links bound a stage.
  const NcclChannels& channels() const { return channels_; }
  void set_channels(NcclChannels c) { channels_ = std::move(c); }

  // Node of each device of `group` (node.h): devices whose route crosses no LinkClass::kNet
  // link share a node; nodes are numbered in order of first appearance.
  std::vector<std::size_t> nodes_of(const std::vector<std::size_t>& group) const;

  // The same system over other nodes, link types or links (routes recomputed), keeping its
  // calibration: launch latencies, NCCL's channels and tuner. The what-if topologies of
  // what_if.h are built this way.
  Result<NetworkHierarchy> rebuilt(std::vector<NetworkNode> nodes, std::vector<LinkType> types,
                                   std::vector<Link> links) const;

 private:
  std::vector<NetworkNode> nodes_;
  std::vector<LinkType> types_;
  std::vector<Link> links_;
  std::vector<std::size_t> devices_;  // node index of each device
  std::vector<Routes> routes_;        // devices x devices
  NcclChannels channels_;
  NcclTunerSpec tuner_;
  std::array<double, kProtocolCount> p2p_launch_s_{-1, -1, -1};  // < 0: as launch_s_
  std::array<double, kProtocolCount> launch_s_{protocol_base_latency(Protocol::kLL),
                                               protocol_base_latency(Protocol::kLL128),
                                               protocol_base_latency(Protocol::kSimple)};
};

}  // namespace tilesight::net
