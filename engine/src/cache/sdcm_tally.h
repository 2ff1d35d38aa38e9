// The cache model's bookkeeping (private to sdcm_cache_model.cpp): each sampled access's
// cascade outcome (what the footprints and SDCM give), with the misses in flight of the fill
// window, summed per access of the program and per sampled position for the maps, one wave at
// a time while its accesses are in the CPU's caches. (Until 2026-12-03 in two passes, the
// outcomes kept for a search over pipeline stages to reuse; such a memo never hit once the
// tiles' speeds depended on the stages.)
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "cascade.h"
#include "tilesight/cache/cache_model.h"
#include "tilesight/cache/reuse_distance.h"

namespace tilesight::cache::detail {

// One tensor access of the program as the stream sees it.
struct AccessPlan {
  const plan::TensorAccess* access = nullptr;
  ReuseKeys keys;
  double block_bytes = 0;    // one block (one execution) inside the tensor
  double request_bytes = 0;  // what the tile's loads ask for: the whole tile shape
  double executions = 1;     // per tile
  double unique_bytes = 0;   // distinct bytes over the whole grid
  // A tile wider than the tensor asks for the wrapped rows (columns) again, in copies of
  // their own: `copies` requests of the block per touch, of which `repeats` are looked up in
  // L2 and the rest merge before a lookup (sdcm_cache_model.cpp, wrapped_copies).
  std::int64_t copies = 1;
  std::int64_t repeats = 1;
  bool part_lines = false;  // wrapped along the contiguous dim in copies of part of a line
  bool part_rows = false;   // wrapped along a strided dim in rows of part of a line
  // The tile's rows along the contiguous dim are part of a line (64-byte rows: BLOCK_K 32 in
  // bf16), not wrapped there: where Tally::short_row_looked is set, its block's requests are
  // looked up at that share (sdcm_tally.cpp).
  bool short_rows = false;
  // CTAs of a cluster sharing one TMA multicast of these loads (1: none). A multicast is looked
  // up once for the cluster and never merges with another cluster's (ncu_tma_multicast.csv).
  double multicast = 1;
  // Loads element-wise through registers (unaligned rows): their sectors reach L2 as the L1's
  // misses, each one a lookup; the coalescer's merges are the async copies' (cp.async, TMA).
  // ncu reads 0.89-1.89 lookups a requested sector (p10-p90, median 1.02) on the corpus's 59
  // unaligned launches where nothing spills, against 0.50-0.94 (median 0.73) for the copies of
  // its 828 aligned ones (l2_residuals.py --all).
  bool via_registers = false;
  // A TMA box's rows past the tensor's edge: L2 bytes looked up (all hits) per execution of a
  // tile, over the tiles (tma_edge.h).
  double edge_bytes = 0;
};

// Hits and lookups per access (whole kernel) and, for the maps, per sampled position.
struct Tally {
  struct Sums {
    double near_lookups = 0, near_hits = 0, far_lookups = 0, far_hits = 0, pending = 0, merged = 0, dram = 0;
  };
  std::vector<Sums> access;
  // Per-position sums, [position * accesses + access] with the positions of the sampled waves
  // one after another (offset[sample] + slot); empty when no maps are drawn.
  std::vector<std::int64_t> offset;
  std::int64_t slots = 1;
  // Per access, [key * groups + group], the block's current run of touches within the fill
  // window: the near-hit share of the touch that opened it and the iterations since it opened
  // (infinite: none yet).
  struct Run {
    double hit = 0;
    double age = std::numeric_limits<double>::infinity();
    std::int64_t number = 0;  // which run of the tally this is (for its GPCs' share of it)
  };
  std::vector<std::vector<Run>> runs;
  std::int64_t opened = 0;    // runs opened so far
  // Where reads merge by GPC (StreamShape::domain_of_slot; else empty): per access, [key *
  // domains + domain], the run the GPC's last reader of the block joined and how many of the
  // GPC's readers joined it since its first.
  struct DomainRun {
    std::int64_t number = -1;
    std::int64_t followers = 0;
  };
  std::vector<std::vector<DomainRun>> domain_runs;
  const std::int8_t* domain_of_slot = nullptr;
  std::int64_t domain_slots = 0, domains = 0;
  double fill_window = 0;     // iterations
  double hit_window = 0;      // iterations a present block's read stays open (shorter than the fill window)
  double race_window = 0;     // iterations a line's home side reads it first (two partitions; StreamShape)
  std::int64_t merge_per_lookup = 1;  // followers of a fill in flight per L2 lookup
  // The share of a short-row block's requests looked up, copies and other tiles' reads alike
  // (hw::CacheLevel::short_row_lookups at the launch's bytes in flight); 0: the rules of rows of
  // whole lines.
  double short_row_looked = 0;
  std::vector<double> l2_hits, l2_lookups, near_hits, near_lookups, distance, count;
  // Per sampled wave, [sample * accesses + access]: the DRAM bytes of its accesses (what the
  // sample stands for), for the timing of each wave (CacheTraffic::wave_traffic).
  std::vector<double> wave_dram;
};

struct TallyContext {
  const std::vector<AccessPlan>& plans;
  const std::vector<std::size_t>& streamed;  // stream access index -> plan index
  const std::vector<BlockLevels>& blocks;    // per stream access
  const Levels& levels;
  const std::vector<WaveSample>& waves;
  double weight;  // share of the reduction axis one k-slice stands for
};

Tally empty_tally(std::size_t accesses, const std::vector<WaveSample>& waves, std::int64_t slots, std::int64_t tiles,
                  bool maps);
// One sampled wave of a walk (the walk's waves in order): the cascade's outcome of each of its
// accesses, with the misses in flight of the fill window, into the sums (and maps) of `t`;
// `distance`: the maps' reuse distances too (Outcome::near_distance).
void tally_wave(const WaveStream& wave, const TallyContext& c, bool distance, Tally& t);
// Per-tile hit-rate maps (the GUI's heatmaps): all tensors, each read tensor, and L1.5.
void add_maps(CacheTraffic& traffic, const Tally& t, const std::vector<AccessPlan>& plans,
              const std::vector<std::int64_t>& seq, const std::vector<WaveSample>& waves, bool l15);

}  // namespace tilesight::cache::detail
