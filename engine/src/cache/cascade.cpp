#include "cascade.h"

#include <algorithm>
#include <cmath>

namespace tilesight::cache::detail {

Levels levels_of(const hw::HardwareSpec& hw) {
  Levels lv;
  if (hw.has_l15()) {
    // B200: L1.5 is the near die's share (the profile's l15.bytes per group), L2 the whole.
    lv.l15 = true;
    lv.groups = std::max<std::int64_t>(1, static_cast<std::int64_t>(hw.l15.partitions));
    lv.near_bytes = hw.l15.bytes;
    lv.near_ways = hw.l15.associativity;
    lv.far_bytes = hw.l2.bytes;
  } else {
    // H200: each partition is a near cache of l2.partition_bytes (l2.bytes / partitions where
    // the profile has none); the far lookup goes to the line's home partition, of the same size.
    lv.groups = std::max<std::int64_t>(1, static_cast<std::int64_t>(hw.l2.partitions));
    lv.near_bytes = hw.l2.partition_bytes > 0 ? hw.l2.partition_bytes : hw.l2.bytes / static_cast<double>(lv.groups);
    lv.near_ways = hw.l2.associativity;
    lv.far_bytes = lv.near_bytes;
  }
  lv.far_ways = hw.l2.associativity;
  return lv;
}

BlockLevels::BlockLevels(const Levels& lv, double block_bytes, bool exact)
    : block_(block_bytes),
      exact_(exact),
      near_(level(lv.near_ways, lv.near_bytes)),
      far_(level(lv.far_ways, lv.far_bytes)) {}

BlockLevels::Level BlockLevels::level(double ways, double capacity) const {
  Level l{.gaussian = SdcmGaussian(ways, capacity / block_), .ways = ways, .capacity = capacity,
          .sure_hit_bytes = -kNever, .sure_miss_bytes = kNever};
  if (block_ > 0 && !exact_) {  // eq. 7 has no such shortcut
    l.sure_hit_bytes = l.gaussian.sure_hit() * block_;
    l.sure_miss_bytes = l.gaussian.sure_miss() * block_;
  }
  return l;
}

double BlockLevels::computed_hit(double distance_bytes, const Level& l) const {
  if (block_ <= 0) return 1.0;
  const double d = distance_bytes / block_;  // D_T in tiles
  if (exact_ && std::isfinite(d)) return sdcm_hit_exact(std::llround(d), l.ways, l.capacity / block_);
  return l.gaussian(d);
}

}  // namespace tilesight::cache::detail
