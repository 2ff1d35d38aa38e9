// Register spills in the cache's counts (local_traffic.h).
#include "tilesight/cache/local_traffic.h"

#include <algorithm>

#include "cascade.h"
#include "tilesight/cache/cyclic_reuse.h"

namespace tilesight::cache {

double spill_hit_rate(const plan::TileProgram& p, const plan::TileAction& a, const hw::HardwareSpec& hw,
                      std::int64_t resident) {
  double pass_bytes = 0.5 * a.local_bytes;  // each spilled slot stored once and reloaded once
  for (const auto& other : p.actions)
    if (other.loop == a.loop && other.op == plan::OpKind::kLoad) pass_bytes += other.bytes;
  const double tiles = static_cast<double>(std::max<std::int64_t>(resident, 1)) * hw.sm_count;
  return cyclic_hit_rate(hw.l2, pass_bytes * tiles);
}

// Each spilled sector is an L2 lookup where the SM's partition is (stores allocate: a hit;
// loads hit as spill_hit_rate says), and on a partitioned L2 (H200) the lines homed in the
// other partition make a second lookup there: every store (the write reaches the line's home)
// and every load that missed. ncu_spills_facts.csv, six spilling GEMMs: the lookups outside
// the SMs' reads and writes (lts__t_sectors less srcunit_tex) are 57.7 M sectors beside 104 M
// spilled stores for 4096^3 128x256x64 w4, whose spills all hit (96% L2 hits), and 244 M beside
// 216 M stores and 255 M sectors missed to DRAM for 3000x5000x2048 64x256x128 w4: half of each.
// A load that misses is read from DRAM and the line it displaces was a spilled store, dirty:
// written back (2500x7000x3000 256x128x64 w4: 3.8 GB read, 2.1 GB written).
std::vector<AccessTraffic> local_traffic(const plan::TileProgram& p, const hw::HardwareSpec& hw,
                                         std::int64_t resident) {
  double stored = 0, hit = 0;
  const auto tiles = static_cast<double>(p.grid.tiles());
  for (const auto& a : p.actions) {
    if (a.local_bytes <= 0) continue;
    const double bytes = 0.5 * a.local_bytes * static_cast<double>(p.executions_per_tile(a.loop)) * tiles;
    stored += bytes;
    hit += bytes * spill_hit_rate(p, a, hw, resident);
  }
  if (!(stored > 0)) return {};
  const double missed = stored - hit;
  const double far = detail::far_home_share(detail::levels_of(hw));
  AccessTraffic stores{.tensor = kSpillStores, .write = true, .requested_bytes = stored, .dram_bytes = missed};
  stores.l2_far_lookup_bytes = stores.l2_far_hit_bytes = far * stored;
  stores.l2_lookup_bytes = stores.l2_hit_bytes = stored + stores.l2_far_lookup_bytes;
  AccessTraffic loads{.tensor = kSpillLoads, .requested_bytes = stored, .dram_bytes = missed};
  loads.l2_far_lookup_bytes = far * missed;
  loads.l2_lookup_bytes = stored + loads.l2_far_lookup_bytes;
  loads.l2_hit_bytes = hit;
  return {stores, loads};
}

}  // namespace tilesight::cache
