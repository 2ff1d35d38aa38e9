#include "tilesight/model/comm_contention.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tilesight::model {

namespace {

struct Point {
  double share, slowdown;
};

// rs_contention.csv (2026-11-30, NCCL 2.28.9, two H200s). The share: the load's alone rate
// over the profile's bandwidth. At 8 MiB the loads ended before the reduce-scatters' graph
// (the script's first sizing), so each slowdown is the calls inside the load's span over
// that span: (span less the calls run alone at 35.2 us) — docs/network-model.md shows the
// arithmetic. The lightest loads (8 CTAs of DRAM, 27 of L2) left the time within noise of
// alone (0.92-1.0x): 1.
constexpr double kSmallBytes = 8.0 * (1 << 20), kLargeBytes = 64.0 * (1 << 20);
constexpr std::array<Point, 4> kDramSmall{{{0.083, 1.0}, {0.302, 1.10}, {0.563, 1.21}, {0.899, 2.49}}};
constexpr std::array<Point, 4> kDramLarge{{{0.093, 1.0}, {0.309, 1.03}, {0.578, 1.08}, {0.917, 2.36}}};
constexpr std::array<Point, 2> kL2Small{{{0.271, 1.0}, {0.906, 1.55}}};
constexpr std::array<Point, 2> kL2Large{{{0.280, 1.0}, {0.929, 1.84}}};

template <std::size_t N>
double read_off(const std::array<Point, N>& pts, double share) {
  if (share <= pts.front().share) return pts.front().slowdown;
  for (std::size_t i = 1; i < N; ++i)
    if (share <= pts[i].share) {
      const double t = (share - pts[i - 1].share) / (pts[i].share - pts[i - 1].share);
      return pts[i - 1].slowdown + t * (pts[i].slowdown - pts[i - 1].slowdown);
    }
  return pts.back().slowdown;
}

template <std::size_t N>
double by_bytes(const std::array<Point, N>& small, const std::array<Point, N>& large, double bytes, double share) {
  const double t = std::clamp(std::log(std::max(bytes, 1.0) / kSmallBytes) / std::log(kLargeBytes / kSmallBytes), 0.0, 1.0);
  return read_off(small, share) + t * (read_off(large, share) - read_off(small, share));
}

}  // namespace

double comm_memory_slowdown(double bytes, double dram_share, double l2_share) {
  return std::max({1.0, by_bytes(kDramSmall, kDramLarge, bytes, dram_share), by_bytes(kL2Small, kL2Large, bytes, l2_share)});
}

}  // namespace tilesight::model
