// What-if topologies (issue 7, "Go beyond"): a cluster that does not exist, made from a system
// profile by small named transforms of its NetworkHierarchy. Each returns a new hierarchy,
// routes recomputed and the system's calibration kept (NetworkHierarchy::rebuilt), or an
// error saying what cannot be done:
//
//   b200x32 between two nodes           add_rail("ib_ndr")
//   gpu0 ──▶ ib ──▶ gpu8                gpu0 ──▶ ib       ──▶ gpu8   half of each transfer
//                                       gpu0 ──▶ ib_rail2 ──▶ gpu8   the other half
//
// - scale_links(type, f): that link type's bandwidth times f ("double the NVLink bandwidth").
// - add_rail(type, k): every switch that devices reach over `type` gets k twins, each joined
//   by a link of that type wherever the switch is (a second NIC per GPU into a second
//   fabric); a link of `type` between two devices gets k parallel ones. The two routes are equally cheap and share no
//   link, so a transfer splits over them (stage_cost.h).
// - add_level(type): one new switch joined to every device by a link of `type` (one NVLink
//   domain over all nodes, as a rack-scale NVSwitch system has).
// - remove_level(type): every link of `type` gone; an error if a device can no longer reach
//   another (a b200x32 without NVLink talks over its NICs only; without InfiniBand it falls
//   apart).
//
// A plan names them in "what_if" (parse_what_if, then apply_what_if):
//
//   "what_if": {"remove_level": ["nvlink5"], "add_level": ["nvlink5"],
//               "add_rail": {"ib_ndr": 1}, "bandwidth_scale": {"nvlink5": 2}}
//
// applied in that order (a scale applies to a rail or level added of that type too).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilesight/net/network_hierarchy.h"
#include "tilesight/util/result.h"

namespace tilesight::net {

Result<NetworkHierarchy> scale_links(const NetworkHierarchy& net, const std::string& type, double factor);
Result<NetworkHierarchy> add_rail(const NetworkHierarchy& net, const std::string& type, int rails = 1);
Result<NetworkHierarchy> add_level(const NetworkHierarchy& net, const std::string& type);
Result<NetworkHierarchy> remove_level(const NetworkHierarchy& net, const std::string& type);

struct TopologyWhatIf {
  std::vector<std::string> remove_level;
  std::vector<std::string> add_level;
  std::map<std::string, int> add_rail;            // link type -> rails added (1..7)
  std::map<std::string, double> bandwidth_scale;  // link type -> factor (0.001..1000)

  bool empty() const { return remove_level.empty() && add_level.empty() && add_rail.empty() && bandwidth_scale.empty(); }
};

// Errors name the JSON path under "what_if" (what_if.add_rail.ib9: ...).
Result<TopologyWhatIf> parse_what_if(const nlohmann::json& w);

// Errors name the field that cannot apply ("what_if.remove_level[0]: without ib_ndr, gpu0
// cannot reach gpu8").
Result<NetworkHierarchy> apply_what_if(const NetworkHierarchy& net, const TopologyWhatIf& w);

// The structural variants worth a look on this system, for the app's What-if view: a rail
// more of each link type, each level removed where the devices stay connected, and, where
// devices talk over a network, one NVLink domain over all of them instead. Each is a
// "what_if" object a plan can carry.
struct TopologyVariant {
  std::string label;        // "+1 ib_ndr rail", "without nvlink5", "one nvlink5 level over all GPUs"
  nlohmann::json what_if;   // {"add_rail": {"ib_ndr": 1}}
};
std::vector<TopologyVariant> topology_variants(const NetworkHierarchy& net);

}  // namespace tilesight::net
