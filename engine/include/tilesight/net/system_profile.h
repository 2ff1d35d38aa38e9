// A multi-GPU system (hw_profiles/<name>.json with "device" and "links"): the device profile
// every GPU runs (hw/hardware_spec.h) and the NetworkHierarchy between them. Example:
//
//   {"name": "h200x8", "device": "h200", "devices": 8, "switches": ["nvswitch"],
//    "link_types": {"nvlink4": {"class": "nvlink",
//                               "bandwidth": {"value": 450e9, "source": "H200 datasheet"},
//                               "efficiency": {"value": 0.8, "source": "nccl-tests"},
//                               "alpha_us": {"LL": 0.3, "LL128": 0.95, "Simple": 1.7,
//                                            "source": "NCCL tuning.cc hwLat / 2"}}},
//    "links": [{"between": ["gpu[0-7]", "nvswitch"], "type": "nvlink4"}]}
//
// Devices are gpu0..gpu<devices-1>. A name "x[a-b]" stands for xa..xb; "between" connects
// one node to many, or two equally long lists pairwise, each pair by two directed links.
// Numbers are plain (then "default_source" applies) or {"value": v, "source": "..."}.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/net/network_hierarchy.h"
#include "tilesight/util/result.h"

namespace tilesight::net {

struct SystemSpec {
  std::string name;          // "h200x8"
  std::string display_name;
  hw::HardwareSpec device;   // the GPU profile named by "device"
  NetworkHierarchy network;
  hw::ProfileSource profile_source = hw::ProfileSource::kDatasheet;
  std::map<std::string, std::string> sources;  // JSON path -> where the number came from

  std::size_t devices() const { return network.device_count(); }
};

// True when the document describes a system (it has "device" and "links").
bool is_system_document(const nlohmann::json& doc);

// Parses a system document; the device profile is loaded by name through hw::load_profile.
Result<SystemSpec> parse_system(const nlohmann::json& doc);

// A profile name ("h200x8") or a path. A single-GPU profile is an error that names the
// system profiles there are.
Result<SystemSpec> load_system(const std::string& name_or_path);

// A single-GPU profile ("h200") as a system of that one GPU and no links, for plans that may
// run on one device (llm_decode with tp = ep = dp = 1); any collective on it is an error.
Result<SystemSpec> load_one_gpu_system(const std::string& name_or_path);

// Names of the shipped system profiles, sorted.
std::vector<std::string> list_systems();

}  // namespace tilesight::net
