// The two-level cascade of §3.5.3 for the accesses of one sampled wave (private to the cache
// model): near cache of the tile's SM group, then far cache, then DRAM, each level's hit
// probability by SDCM over the tile reuse distance of its own stream.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tilesight/cache/reuse_distance.h"
#include "tilesight/cache/sdcm.h"
#include "tilesight/hw/hardware_spec.h"

namespace tilesight::cache::detail {

struct Levels {
  bool l15 = false;            // near = L1.5 per SM group, far = the whole L2
  std::int64_t groups = 1;     // SM groups, each with its own near cache
  double near_bytes = 0, near_ways = 16;
  double far_bytes = 0, far_ways = 16;
};

Levels levels_of(const hw::HardwareSpec& hw);

// Share of the lines homed in a partition other than the SM's (0 with one partition or an
// L1.5 tier): a store to one, or a read that missed near, is looked up again in its home.
inline double far_home_share(const Levels& lv) {
  return !lv.l15 && lv.groups > 1 ? 1 - 1.0 / static_cast<double>(lv.groups) : 0.0;
}

// Both levels as the blocks of one streamed access see them (B_T in its blocks). Distances
// in bytes; those SDCM decides for sure (SdcmGaussian::sure_hit/sure_miss) cost two compares.
class BlockLevels {
 public:
  BlockLevels(const Levels& lv, double block_bytes, bool exact);
  double block() const { return block_; }
  double near_hit(double distance_bytes) const { return hit(distance_bytes, near_); }
  double far_hit(double distance_bytes) const { return hit(distance_bytes, far_); }
  // Distances (bytes) at or below which a level surely hits, at or above which it surely misses.
  double near_sure_hit() const { return near_.sure_hit_bytes; }
  double near_sure_miss() const { return near_.sure_miss_bytes; }
  double far_sure_hit() const { return far_.sure_hit_bytes; }
  double far_sure_miss() const { return far_.sure_miss_bytes; }

 private:
  struct Level {
    SdcmGaussian gaussian;
    double ways, capacity;
    double sure_hit_bytes, sure_miss_bytes;
  };
  Level level(double ways, double capacity) const;
  double hit(double distance_bytes, const Level& l) const {
    if (distance_bytes <= l.sure_hit_bytes) return 1.0;
    if (distance_bytes >= l.sure_miss_bytes) return 0.0;
    if (exact_ || block_ <= 0) return computed_hit(distance_bytes, l);
    return l.gaussian(distance_bytes / block_);  // D_T in tiles
  }
  double computed_hit(double distance_bytes, const Level& l) const;

  double block_;
  bool exact_;
  Level near_, far_;
};

// Shares of the bytes an access looks up in its near cache.
struct Outcome {
  double near_hit = 0;
  double far_lookup = 0;
  double far_hit = 0;
  double pending = 0;        // served by a fill already in flight: no lookup further down, no DRAM
  double merged = 0;         // of pending: requests merged before L2 (no lookup at all)
  double near_distance = 0;  // D_T in the near cache, tiles
  // Of near_hit, the share homed here that another group's touch since brought (partition_cascade).
  double from_other = 0;
};

// L1.5 within the SM group, then the whole L2 over every group's stream. L2 sees only L1.5
// misses; with the same data behind both, P(L2 | L1.5 miss) = (P2 - P1) / (1 - P1).
inline Outcome l15_cascade(const WaveStream& s, const StreamAccess& sa, const BlockLevels& bl) {
  Outcome o;
  const double d_near = s.near(sa.group).bytes(sa.gap_same, sa.bin_same, sa.within_same);
  o.near_distance = d_near / bl.block();
  const double p1 = bl.near_hit(d_near);
  const double p2 = bl.far_hit(s.whole().bytes(std::min(sa.gap_same, sa.gap_other)));
  o.near_hit = p1;
  o.far_lookup = 1 - p1;
  o.far_hit = p1 < 1 ? (1 - p1) * std::clamp((p2 - p1) / (1 - p1), 0.0, 1.0) : 0.0;
  return o;
}

// The reuse gaps (windows, iterations) within which one access's blocks surely hit or miss a
// level, from one group's footprint (WaveFootprint::sure_below/sure_from): gaps outside
// [hit, miss) are decided without the footprint or SDCM.
struct SureGaps {
  double near_hit = 0, near_miss = kNever, far_hit = 0, far_miss = kNever;
};
inline SureGaps sure_gaps(const WaveFootprint& fp, const BlockLevels& bl) {
  return {.near_hit = fp.sure_below(bl.near_sure_hit()), .near_miss = fp.sure_from(bl.near_sure_miss()),
          .far_hit = fp.sure_below(bl.far_sure_hit()), .far_miss = fp.sure_from(bl.far_sure_miss())};
}

// Partitioned L2: lines are homed evenly over the partitions (a share `home` = 1 / groups
// here). A line homed here is present if any group touched it since (another group's miss
// brought it here); a line homed elsewhere only if this group touched it, else it is looked up
// again in its home partition, present if either group touched it (this group's earlier miss
// went through there too). One partition: the near
// cache is the L2. kGroups: the group count when fixed at compile time (0: `groups`); `sure`
// per group, for this access; `distance`: fill Outcome::near_distance (the maps).
template <std::int32_t kGroups = 0>
Outcome partition_cascade(const WaveStream& s, const StreamAccess& sa, const BlockLevels& bl, std::int32_t groups,
                          double home, const SureGaps* sure, bool distance) {
  Outcome o;
  const WaveFootprint& near = s.near(sa.group);
  const SureGaps& own = sure[sa.group];
  const auto near_hit = [&](double gap, std::size_t bin, double within) {
    if (gap < own.near_hit) return 1.0;
    if (gap >= own.near_miss) return 0.0;
    return bl.near_hit(near.bytes(gap, bin, within));
  };
  if (distance) o.near_distance = near.bytes(sa.gap_same, sa.bin_same, sa.within_same) / bl.block();
  const double p_away = near_hit(sa.gap_same, sa.bin_same, sa.within_same);
  if ((kGroups ? kGroups : groups) < 2) {
    o.near_hit = p_away;
    return o;
  }
  const bool closer = sa.gap_other < sa.gap_same;  // another group touched it since
  double within_other = -1;                         // locate()d on first use
  std::size_t bin_other = 0;
  const auto locate_other = [&] {
    if (within_other < 0) bin_other = WaveFootprint::locate(sa.gap_other, within_other);
  };
  double p_home = p_away;
  if (closer) {
    if (sa.gap_other < own.near_hit) p_home = 1.0;
    else if (sa.gap_other >= own.near_miss) p_home = 0.0;
    else locate_other(), p_home = bl.near_hit(near.bytes(sa.gap_other, bin_other, within_other));
  }
  o.near_hit = home * p_home + (1 - home) * p_away;
  if (closer && p_home > p_away) o.from_other = home * (p_home - p_away);
  o.far_lookup = (1 - home) * (1 - p_away);
  // The home partition holds the line if either group touched it since: this group's own miss
  // went through it too.
  const double gap_home = std::min(sa.gap_same, sa.gap_other);
  if (o.far_lookup > 0 && std::isfinite(gap_home)) {
    const std::int32_t other = kGroups == 2 ? 1 - sa.group : (sa.group + 1) % groups;
    const SureGaps& there = sure[other];
    double p_far = 0;
    if (gap_home < there.far_hit) p_far = 1.0;
    else if (gap_home < there.far_miss)
      p_far = bl.far_hit(s.near(other).bytes(gap_home));
    o.far_hit = o.far_lookup * p_far;
  }
  return o;
}


}  // namespace tilesight::cache::detail
