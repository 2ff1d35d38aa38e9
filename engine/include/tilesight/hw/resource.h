// The independently schedulable hardware resources of eq. 1 (§3.2):
//   u(o) = <t_TC, t_CUDA, t_SFU, t_TMEM, t_SMEM, t_L1.5, t_L2, t_DDR, t_Net>
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace tilesight {

enum class Resource { kTC, kCuda, kSfu, kTmem, kSmem, kL15, kL2, kDram, kNet };

inline constexpr std::size_t kResourceCount = 9;

inline constexpr std::array<Resource, kResourceCount> kAllResources = {
    Resource::kTC,  Resource::kCuda, Resource::kSfu,  Resource::kTmem, Resource::kSmem,
    Resource::kL15, Resource::kL2,   Resource::kDram, Resource::kNet};

// Keys used by the CLI contract: tc, cuda, sfu, tmem, smem, l15, l2, dram, net.
constexpr std::string_view resource_key(Resource r) {
  constexpr std::array<std::string_view, kResourceCount> keys = {
      "tc", "cuda", "sfu", "tmem", "smem", "l15", "l2", "dram", "net"};
  return keys[static_cast<std::size_t>(r)];
}

// Names for people: "tensor core", "DRAM", ...
constexpr std::string_view resource_label(Resource r) {
  constexpr std::array<std::string_view, kResourceCount> labels = {
      "tensor core", "CUDA core", "SFU", "TMEM", "shared memory",
      "L1.5",        "L2",        "DRAM", "network"};
  return labels[static_cast<std::size_t>(r)];
}

// Short lane names for timelines: TC, CUDA, SFU, TMEM, SMEM, L1.5, L2, DRAM, Net.
constexpr std::string_view resource_lane(Resource r) {
  constexpr std::array<std::string_view, kResourceCount> lanes = {
      "TC", "CUDA", "SFU", "TMEM", "SMEM", "L1.5", "L2", "DRAM", "Net"};
  return lanes[static_cast<std::size_t>(r)];
}

constexpr bool is_memory_resource(Resource r) {
  return r == Resource::kL15 || r == Resource::kL2 || r == Resource::kDram || r == Resource::kNet;
}

inline std::optional<Resource> resource_from_key(std::string_view key) {
  for (Resource r : kAllResources)
    if (resource_key(r) == key) return r;
  return std::nullopt;
}

constexpr std::size_t index(Resource r) { return static_cast<std::size_t>(r); }

}  // namespace tilesight
