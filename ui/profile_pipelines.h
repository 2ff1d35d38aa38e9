// The pipelines of eq. 1 a hardware profile has, in lane order: the timeline draws a lane
// for each and none for what the hardware lacks.
//
//   b200        TC CUDA SFU TMEM SMEM L1.5 L2 DRAM       (tensor memory, two L2 partitions)
//   h200, mi210 TC CUDA SFU SMEM L2 DRAM
//   h200x8      TC CUDA SFU SMEM L2 DRAM Net             (a system: its GPUs' links)
#pragma once

#include <string>
#include <vector>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/hw/resource.h"
#include "tilesight/report/prediction.h"

namespace tilesight::ui {

// What `gpu` has, plus Net when it is one of `devices` GPUs (devices >= 2).
std::vector<Resource> pipelines_of(const hw::HardwareSpec& gpu, std::size_t devices);

// The pipelines of the profile `name` (a GPU or a system of GPUs), read once per name
// and remembered; every pipeline when the profile cannot be read.
std::vector<Resource> profile_pipelines(const std::string& name);

// The timeline's lanes for a prediction: its hardware's pipelines, and any other that one
// of its events occupies (never a bar without its lane).
std::vector<Resource> timeline_lanes(const report::Prediction& prediction);

}  // namespace tilesight::ui
