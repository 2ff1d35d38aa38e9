#include "cascade.h"

#include <algorithm>
#include <cmath>

#include "tilesight/cache/sdcm.h"

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
    // H200: each partition is a near cache of l2.bytes / partitions; the far lookup goes to the
    // line's home partition, of the same size.
    lv.groups = std::max<std::int64_t>(1, static_cast<std::int64_t>(hw.l2.partitions));
    lv.near_bytes = hw.l2.bytes / static_cast<double>(lv.groups);
    lv.near_ways = hw.l2.associativity;
    lv.far_bytes = lv.near_bytes;
  }
  lv.far_ways = hw.l2.associativity;
  return lv;
}

namespace {

double hit(double distance_bytes, double block, double ways, double capacity, bool exact) {
  if (block <= 0) return 1.0;
  const double d = distance_bytes / block, b = capacity / block;  // D_T and B_T in tiles
  if (exact && std::isfinite(d)) return sdcm_hit_exact(std::llround(d), ways, b);
  return sdcm_hit_gaussian(d, ways, b);
}

// L1.5 within the SM group, then the whole L2 over every group's stream. L2 sees only L1.5
// misses; with the same data behind both, P(L2 | L1.5 miss) = (P2 - P1) / (1 - P1).
Outcome l15_cascade(const WaveStream& s, const StreamAccess& sa, const Levels& lv, double block, bool exact) {
  Outcome o;
  const double d_near = s.near(sa.group).bytes(sa.gap_same);
  o.near_distance = d_near / block;
  const double p1 = hit(d_near, block, lv.near_ways, lv.near_bytes, exact);
  const double p2 = hit(s.whole().bytes(std::min(sa.gap_same, sa.gap_other)), block, lv.far_ways, lv.far_bytes, exact);
  o.near_hit = p1;
  o.far_lookup = 1 - p1;
  o.far_hit = p1 < 1 ? (1 - p1) * std::clamp((p2 - p1) / (1 - p1), 0.0, 1.0) : 0.0;
  return o;
}

}  // namespace

Outcome cascade(const WaveStream& s, const StreamAccess& sa, const Levels& lv, double block, bool exact) {
  if (block <= 0) return {.near_hit = 1};
  if (lv.l15) return l15_cascade(s, sa, lv, block, exact);
  // Partitioned L2: lines are homed evenly over the partitions. A line homed here is present
  // if any group touched it since (another group's miss brought it here); a line homed
  // elsewhere only if this group touched it, else it is looked up again in its home
  // partition, present if that group touched it. One partition: the near cache is the L2.
  Outcome o;
  const WaveFootprint& near = s.near(sa.group);
  const double d_same = near.bytes(sa.gap_same);
  o.near_distance = d_same / block;
  const double p_away = hit(d_same, block, lv.near_ways, lv.near_bytes, exact);
  if (lv.groups < 2) {
    o.near_hit = p_away;
    return o;
  }
  const double home = 1.0 / static_cast<double>(lv.groups);
  const double gap_any = std::min(sa.gap_same, sa.gap_other);
  const double p_home = gap_any < sa.gap_same ? hit(near.bytes(gap_any), block, lv.near_ways, lv.near_bytes, exact)
                                              : p_away;
  o.near_hit = home * p_home + (1 - home) * p_away;
  o.far_lookup = (1 - home) * (1 - p_away);
  if (o.far_lookup > 0 && std::isfinite(sa.gap_other)) {
    const std::int32_t other = (sa.group + 1) % static_cast<std::int32_t>(lv.groups);
    o.far_hit = o.far_lookup * hit(s.near(other).bytes(sa.gap_other), block, lv.far_ways, lv.far_bytes, exact);
  }
  return o;
}

}  // namespace tilesight::cache::detail
