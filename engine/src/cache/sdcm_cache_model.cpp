#include "tilesight/cache/sdcm_cache_model.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "analysis_memo.h"
#include "cascade.h"
#include "sdcm_tally.h"
#include "stream_shape.h"
#include "tma_edge.h"

namespace tilesight::cache {

namespace {

using detail::AccessPlan;
using detail::Levels;
using detail::Tally;
using detail::assign_groups;
using detail::stream_shape;

// Bytes of one tile footprint; clamped: only the part inside the tensor. A tile wider than
// the tensor (16 rows of A under a 128-row tile, rows wrapped as Triton's tutorial does)
// asks for the same rows again; wrapped_copies says how many of those copies L2 looks up.
double footprint_bytes(const plan::TileProgram& p, const plan::TensorAccess& a, bool clamped) {
  const plan::Tensor* t = p.find_tensor(a.tensor);
  double elems = 1;
  for (std::size_t d = 0; d < a.tile_shape.size(); ++d) {
    auto e = static_cast<double>(a.tile_shape[d]);
    if (clamped && t && d < t->shape.size()) e = std::min(e, static_cast<double>(t->shape[d]));
    elems *= e;
  }
  return elems * (t ? dtype_bytes(t->dtype) : 0.0);
}

// Copies of the block per touch of a tile wider than the tensor (the wrapped rows or columns
// again) and how many of them L2 looks up (sdcm_tally.cpp). Every copy leaves the SM
// (ncu_wrapped.csv: the L1's LDGSTS sectors and the crossbar's returns count them all), not
// every one is looked up. One-CTA launches of the corpus kernel (K 4096, BLOCK_K 32-128, 2-5
// stages, 4 or 8 warps, all alike):
//  - wrapped along a strided dim (A's rows under BLOCK_M > M: the copies sit in other warp
//    instructions), one in merge_per_lookup is looked up, the first included: 4, 8, 16
//    copies of a row give 1, 2, 4 lookups per sector (the burst rule's one in four), rows of
//    whole lines or of 64 bytes (BLOCK_K 32) alike. So too in the corpus's grids of many CTAs
//    (16 x 4096, BLOCK_K 64-128: 1.0, 2.0-2.2 and 4.0 lookups) where the row is whole lines;
//    rows of part of a line (`part_rows`) are looked up copy by copy where another tile's read
//    left the block present (ncu_wrapped_gridwide.csv: 2.3-2.8 of 4 copies a CTA on 172-344
//    CTAs, sdcm_tally.cpp), in launches of more than one wave; one-wave grids look a share of
//    them up that rises with the bytes in flight (l2.short_row_lookups, short_row_looked);
//  - wrapped along the contiguous dim in copies of whole lines (B's columns, N = 64 or 128
//    under BLOCK_N 128 / 256: 2 or 4 copies of a 128-byte line) they coalesce: one lookup;
//  - in copies of part of a line (N = 16 or 32: 32- or 64-byte rows) most are looked up
//    (0.6-1.0 of them at BLOCK_N 64 and 128, 0.3 at 256): all taken as requests, followers
//    of the block's run (sdcm_tally.cpp).
struct Wrapped {
  std::int64_t copies = 1, looked_up = 1;
  bool part_lines = false, part_rows = false;
};

Wrapped wrapped_copies(const plan::TileProgram& p, const plan::TensorAccess& a, double line_bytes,
                       std::int64_t merge_per_lookup) {
  Wrapped w;
  const plan::Tensor* t = p.find_tensor(a.tensor);
  if (!t || a.tile_shape.size() != t->shape.size() || a.tma_box) return w;  // a TMA box fills, not wraps
  const auto whole_lines = [&](std::int64_t elems) {
    return line_bytes > 0 && std::fmod(static_cast<double>(elems) * dtype_bytes(t->dtype), line_bytes) == 0;
  };
  std::int64_t merging = 1, looked = 1;  // copies that merge one in merge_per_lookup; all looked up
  const std::size_t last = t->shape.size() - 1;
  for (std::size_t d = 0; d <= last; ++d) {
    if (t->shape[d] <= 0 || a.tile_shape[d] <= t->shape[d]) continue;
    const std::int64_t copies = (a.tile_shape[d] + t->shape[d] - 1) / t->shape[d];
    w.copies *= copies;
    if (d < last) {
      merging *= copies;
      if (!whole_lines(a.tile_shape[last])) w.part_rows = true;
    } else if (!whole_lines(t->shape[d])) {
      looked *= copies;
      w.part_lines = true;
    }
  }
  const std::int64_t m = std::max<std::int64_t>(1, merge_per_lookup);
  w.looked_up = (merging + m - 1) / m * looked;
  w.part_rows = w.part_rows && !w.part_lines;  // wrapped both ways: the contiguous dim's rule
  return w;
}

// The CTAs of a cluster that share one TMA multicast of the tensor's loads (1: none).
double multicast_of(const plan::TileProgram& p, const std::string& tensor) {
  double m = 1;
  for (const auto& a : p.actions)
    if (a.op == plan::OpKind::kLoad && !a.operands.empty() && a.operands.front() == tensor) m = std::max(m, a.multicast);
  return m;
}

// Whether the tensor is loaded element-wise through registers (TileAction::via_registers).
bool via_registers_of(const plan::TileProgram& p, const std::string& tensor) {
  return std::any_of(p.actions.begin(), p.actions.end(), [&](const plan::TileAction& a) {
    return a.op == plan::OpKind::kLoad && a.via_registers && !a.operands.empty() && a.operands.front() == tensor;
  });
}

std::vector<AccessPlan> plan_accesses(const plan::TileProgram& p, double line_bytes, std::int64_t merge_per_lookup) {
  std::vector<AccessPlan> plans;
  const double tiles = static_cast<double>(p.grid.tiles());
  for (const auto& a : p.accesses) {
    AccessPlan ap{.access = &a, .keys = ReuseKeys(p.grid, a), .block_bytes = footprint_bytes(p, a, true),
                  .request_bytes = footprint_bytes(p, a, false),
                  .executions = static_cast<double>(p.executions_per_tile(a.loop))};
    ap.unique_bytes = std::min(static_cast<double>(ap.keys.count()), tiles) * ap.executions * ap.block_bytes;
    if (const plan::Tensor* t = p.find_tensor(a.tensor)) ap.unique_bytes = std::min(ap.unique_bytes, t->bytes());
    const Wrapped w = wrapped_copies(p, a, line_bytes, merge_per_lookup);
    ap.copies = w.copies;
    ap.repeats = w.looked_up;
    ap.part_lines = w.part_lines;
    ap.part_rows = w.part_rows;
    if (const plan::Tensor* t = p.find_tensor(a.tensor); t && !a.tile_shape.empty() && line_bytes > 0 && !w.part_lines) {
      const std::int64_t row = std::min(a.tile_shape.back(), t->shape.back());
      ap.short_rows = std::fmod(static_cast<double>(row) * dtype_bytes(t->dtype), line_bytes) != 0;
    }
    ap.multicast = multicast_of(p, a.tensor);
    ap.via_registers = via_registers_of(p, a.tensor);
    ap.edge_bytes = detail::tma_edge_bytes(p, a);
    plans.push_back(std::move(ap));
  }
  return plans;
}

// k-slices sampled along the reduction axis: one in lockstep, where every slice repeats the
// same reuse gaps; k_samples once the tiles drift (§3.5.2).
int k_slices(const StreamShape& shape, const SdcmOptions& options) {
  return shape.skew.per_iteration > 0 || shape.skew.rate_sd > 0 ? std::max(1, options.k_samples) : 1;
}

// What an access's requests came to, from its tally. A TMA multicast's followers are not in
// the tally (StreamAccess::follower): the cluster's leader asked for all of them.
AccessTraffic access_traffic(const AccessPlan& ap, const Tally::Sums& sums, const Levels& lv, double tiles) {
  AccessTraffic at{.tensor = ap.access->tensor, .write = ap.access->write, .revisit = ap.access->revisit > 0};
  at.requested_bytes = tiles * ap.executions * ap.request_bytes;
  if (ap.access->write) {  // a store allocates in L2: a hit, written back once (first_touch.cpp)
    at.dram_bytes = ap.unique_bytes;
    // In the SM's partition, and the lines homed in another one again there, a hit too: the
    // home partition's lookups match ncu's (srcunit_ltcfabric) only with them
    // (ncu_fabric.py --compare: Triton grids with reuse 0.77 -> 0.97 of ncu's, cuBLAS 0.81 ->
    // 0.93), as the spilled stores' do (local_traffic.cpp).
    const double stored = tiles * ap.executions * ap.block_bytes;
    const double far = detail::far_home_share(lv);
    at.l2_far_lookup_bytes = at.l2_far_hit_bytes = far * stored;
    at.l2_lookup_bytes = at.l2_hit_bytes = stored + at.l2_far_lookup_bytes;
  } else if (lv.l15) {
    at.dram_bytes = sums.dram;
    at.l15_lookup_bytes = sums.near_lookups;
    at.l15_hit_bytes = sums.near_hits;
    at.l2_lookup_bytes = sums.far_lookups;
    at.l2_hit_bytes = sums.far_hits;
  } else {
    at.dram_bytes = sums.dram;
    at.l2_lookup_bytes = sums.near_lookups + sums.far_lookups;
    at.l2_hit_bytes = sums.near_hits + sums.far_hits;
    // A TMA box's rows past the edge: the leader's requests (a multicast's followers ask none).
    const double edge = tiles * ap.executions * ap.edge_bytes / ap.multicast;
    at.l2_lookup_bytes += edge;
    at.l2_hit_bytes += edge;
    at.l2_far_lookup_bytes = sums.far_lookups;
    at.l2_far_hit_bytes = sums.far_hits;
    at.l2_pending_bytes = sums.pending;
    at.l2_merged_bytes = sums.merged;
  }
  return at;
}

// The L2 starts cold (ncu flushes it before each launch): every block's first read misses.
// Sampled waves stand for the waves nearest them, and a grouped order's first reads of A come
// in the waves where a group starts, which the samples can miss (5120 x 5120 x 1536, 64 x 64 x
// 128 tiles, group 8: A at a tenth of its bytes); those reads are misses, not hits. For a
// tensor read by one access only (a norm's second pass reads its rows again, from L2).
void at_least_cold_misses(CacheTraffic& traffic, const std::vector<AccessPlan>& plans, const Levels& lv) {
  if (lv.l15) return;
  for (std::size_t a = 0; a < plans.size(); ++a) {
    const AccessPlan& ap = plans[a];
    if (ap.access->write) continue;
    const auto readers = std::count_if(plans.begin(), plans.end(), [&](const AccessPlan& o) {
      return !o.access->write && o.access->tensor == ap.access->tensor;
    });
    AccessTraffic& at = traffic.accesses[a];
    if (readers != 1 || at.dram_bytes >= ap.unique_bytes) continue;
    const double deficit = std::min(ap.unique_bytes - at.dram_bytes, at.l2_hit_bytes);
    at.dram_bytes += deficit;
    at.l2_hit_bytes -= deficit;
  }
}

// Each sampled wave's DRAM bytes, were every wave of the kernel like it (CacheTraffic::
// wave_traffic). What the totals hold beyond the walk's sums: a store's write-backs, the same in
// every wave, and the cold misses the samples missed (at_least_cold_misses), the first wave's.
std::vector<WaveTraffic> wave_traffic(const CacheTraffic& traffic, const Tally& t, const std::vector<WaveSample>& waves,
                                      std::int64_t tiles) {
  const std::size_t n = traffic.accesses.size();
  std::vector<WaveTraffic> out;
  if (waves.empty() || tiles <= 0 || t.wave_dram.size() != waves.size() * n) return out;
  std::vector<double> scale;  // a sample's bytes -> the kernel's
  for (std::size_t s = 0; s < waves.size(); ++s) {
    const double in_wave = static_cast<double>(std::min(t.slots, tiles - waves[s].wave * t.slots));
    scale.push_back(static_cast<double>(tiles) / (in_wave * waves[s].weight));
    WaveTraffic w{.wave = waves[s].wave, .waves = waves[s].weight, .dram_bytes = std::vector<double>(n)};
    for (std::size_t a = 0; a < n; ++a) w.dram_bytes[a] = t.wave_dram[s * n + a] * scale[s];
    out.push_back(std::move(w));
  }
  for (std::size_t a = 0; a < n; ++a) {
    double walked = 0;
    for (std::size_t s = 0; s < waves.size(); ++s) walked += t.wave_dram[s * n + a];
    const double rest = traffic.accesses[a].dram_bytes - walked;
    if (traffic.accesses[a].write)
      for (auto& w : out) w.dram_bytes[a] += rest;
    else
      out.front().dram_bytes[a] += rest * scale.front();
  }
  return out;
}

// The share of a short-row block's requests looked up (Tally::short_row_looked): the
// profile's l2.short_row_lookups at the bytes a one-wave launch keeps in flight
// (StreamShape::bytes_in_flight), between its points (their ends past them). 0 without the
// table or a short-row access, and for launches of more than one wave: the table was measured
// on one-wave grids, and on the held-out many-wave shapes it would take 0.16 pp (4.47 -> 4.63)
// where held out 4 gains 0.15.
double short_row_looked(const plan::TileProgram& program, const hw::HardwareSpec& hw,
                        const std::vector<AccessPlan>& plans, const StreamShape& shape) {
  const auto& law = hw.l2.short_row_lookups;
  if (law.empty() || program.grid.tiles() > shape.slots ||
      std::none_of(plans.begin(), plans.end(), [](const AccessPlan& ap) { return ap.short_rows && !ap.access->write; }))
    return 0;
  return detail::table_at(law, shape.bytes_in_flight);
}

// Step 1: what the walk reads, from the program and the hardware.
struct Prepared {
  LaunchOrderSpec spec;
  std::unique_ptr<TileLaunchOrder> order;
  std::vector<AccessPlan> plans;
  Levels lv;
  StreamShape shape;
  double short_row_looked = 0;  // Tally::short_row_looked
};

Prepared prepare(const plan::TileProgram& program, const hw::HardwareSpec& hw, const SdcmOptions& options) {
  Prepared p{.spec = options.order.value_or(launch_order_spec(program)), .order = {}, .plans = plan_accesses(program, hw.l2.line_bytes, options.merge_per_lookup),
             .lv = detail::levels_of(hw), .shape = {}};
  p.order = make_launch_order(p.spec);
  p.shape = stream_shape(program, hw, *p.order, p.plans, p.lv, options);
  if (p.spec.kind == LaunchOrderSpec::Kind::kPersistent && p.spec.swizzle == 0) {
    p.spec.swizzle = nvjet_swizzle(p.shape.slots, p.spec.tile_aspect);
    p.order = make_launch_order(p.spec);
  }
  // The CTAs launched, for the small grids' map; clusters are dealt out a GPC at a time, as
  // that map's CTAs are not (none where a cluster spans more than a tile).
  const std::int64_t tiles = program.grid.tiles(), persistent = p.order->resident_ctas();
  const bool clustered = program.schedule.cluster_rows * program.schedule.cluster_cols > 1;
  assign_groups(p.shape, hw, p.lv, clustered ? 0 : persistent > 0 ? std::min(tiles, persistent) : tiles);
  p.short_row_looked = short_row_looked(program, hw, p.plans, p.shape);
  return p;
}

// Every input of steps 2-4 (AnalysisMemo): the order, the grid and each access's keys (its
// reuse dims over the grid's dims), blocks and bytes, the levels, the stream's shape (the
// groups of the slots follow from the SM count), the fill window, the merging of requests in
// flight and the options.
std::string memo_key(const plan::TileProgram& program, const Prepared& p, const SdcmOptions& o,
                     double sm_count) {
  detail::MemoKey k;
  k.add(static_cast<std::int64_t>(p.spec.kind)).add(p.spec.group_m).add(static_cast<std::int64_t>(p.spec.raster));
  k.add(p.spec.ctas).add(p.spec.swizzle).add(static_cast<std::int64_t>(program.grid.dims.size()));
  for (const auto& d : program.grid.dims) k.add(d.name).add(d.extent);
  for (const AccessPlan& ap : p.plans) {
    k.add(ap.access->tensor).add(ap.access->write).add(static_cast<std::int64_t>(ap.access->reuse_dims.size()));
    for (const auto& r : ap.access->reuse_dims) k.add(r);
    k.add(ap.block_bytes).add(ap.request_bytes).add(ap.executions).add(ap.unique_bytes).add(ap.copies).add(ap.repeats).add(ap.part_lines);
    k.add(ap.access->revisit).add(ap.multicast).add(ap.edge_bytes).add(ap.via_registers).add(ap.short_rows);
  }
  k.add(program.schedule.cluster_rows).add(program.schedule.cluster_cols);
  k.add(p.lv.l15).add(p.lv.groups).add(p.lv.near_bytes).add(p.lv.near_ways).add(p.lv.far_bytes).add(p.lv.far_ways);
  k.add(p.shape.slots).add(p.shape.groups).add(p.shape.steps).add(p.shape.skew.per_iteration).add(p.shape.skew.rate_sd).add(p.shape.skew.wave_growth);
  k.add(p.shape.skew.coupling);
  k.add(p.shape.foreign_share).add(p.shape.whole_stream).add(sm_count);
  std::uint64_t groups = 1469598103934665603ull;  // FNV-1a over the slots' groups
  for (const std::int32_t g : p.shape.group_of_slot) groups = (groups ^ static_cast<std::uint64_t>(g)) * 1099511628211ull;
  k.add(static_cast<std::int64_t>(groups));
  k.add(static_cast<std::int64_t>(o.k_samples)).add(o.max_waves).add(o.wave_budget_tiles).add(o.tile_maps).add(o.exact);
  k.add(p.shape.fill_window).add(p.shape.hit_window).add(p.shape.race_window).add(o.merge_per_lookup).add(p.short_row_looked);
  k.add(static_cast<std::int64_t>(o.tile_starts.size()));
  for (const double s : o.tile_starts) k.add(s);
  return k.str();
}

// Steps 2-4: the stream, sampled over waves and along the reduction axis (§3.5.2), and the
// cascade's outcome of each sampled access (eqs. 7-10, §3.5.3), tallied one wave at a time.
void walk_touches(const TileSequence& tiles, const Prepared& p, const SdcmOptions& options,
                  const detail::TallyContext& ctx, const StreamInput& input, Tally& t) {
  const int samples = k_slices(p.shape, options);
  for (int s = 0; s < samples; ++s)
    walk_stream(detail::StreamWalker::of_this_thread(), tiles, input, p.shape, (s + 0.5) / samples, ctx.waves,
                [&](const WaveStream& w) { detail::tally_wave(w, ctx, !t.count.empty(), t); });  // distances: the maps'
}

// Steps 2-4: the touches of the stream (walk_touches), with the misses in flight their totals
// per access and the per-tile maps. (A memo of the touches for a search over pipeline stages
// never hit once the tiles' speeds depended on the stages: 0 hits in 2000 bench predictions.)
CacheTraffic walk(const plan::TileProgram& program, Prepared& p, const SdcmOptions& options, std::string name) {
  const bool maps = options.tile_maps && program.grid.tiles() > 0 && program.grid.tiles() <= kMaxMapTiles;
  std::vector<std::int64_t> seq;  // the whole sequence: for the maps, or an order without closed form
  if (maps || !p.order->closed_form()) seq = p.order->sequence(program.grid);
  const TileSequence tiles_in = p.order->closed_form() ? TileSequence{.order = p.order.get(), .grid = &program.grid}
                                                       : TileSequence{.ids = &seq, .grid = &program.grid};
  const std::int64_t tiles = tiles_in.size();
  StreamInput input;
  std::vector<std::size_t> streamed;
  std::vector<detail::BlockLevels> blocks;
  for (std::size_t a = 0; a < p.plans.size(); ++a) {
    const AccessPlan& ap = p.plans[a];
    const double rate = ap.block_bytes * ap.executions / static_cast<double>(p.shape.steps);
    if (ap.access->write) {  // never reused: only a rate in the footprints
      input.unreused_bytes_per_iteration += rate;
      continue;
    }
    streamed.push_back(a);
    blocks.emplace_back(p.lv, ap.block_bytes, options.exact);
    input.keys.push_back(&ap.keys);
    input.bytes_per_iteration.push_back(rate);
    // The revisit's iterations of its loop in stream iterations (steps per execution).
    input.revisit_gap.push_back(ap.access->revisit * static_cast<double>(p.shape.steps) / std::max(1.0, ap.executions));
    input.multicast.push_back(ap.multicast > 1);
  }
  input.cluster_rows = program.schedule.cluster_rows;
  input.cluster_cols = program.schedule.cluster_cols;
  input.dense_keys = options.dense_keys;
  // Measured starts differ wave to wave: every wave is walked.
  const std::int64_t sampled = options.max_waves > 0
      ? std::max(options.max_waves, options.wave_budget_tiles / std::max<std::int64_t>(1, p.shape.slots))
      : 0;
  const auto waves = sample_waves(tiles, p.shape.slots, options.tile_starts.empty() ? sampled : 0);
  Tally t = detail::empty_tally(p.plans.size(), waves, p.shape.slots, tiles, maps);
  if (p.shape.fill_window > 0) {
    t.fill_window = p.shape.fill_window;
    t.hit_window = p.shape.hit_window;
    t.race_window = p.shape.race_window;
    t.merge_per_lookup = std::max<std::int64_t>(1, options.merge_per_lookup);
    t.short_row_looked = p.short_row_looked;
    // Each streamed access's runs are sized by tally_wave to the keys the walk can give it
    // (WaveStream::key_counts); stores are never touched by the stream and keep none.
    t.runs.resize(p.plans.size());
    if (p.shape.domains > 0) {
      t.domain_of_slot = p.shape.domain_of_slot.data();
      t.domain_slots = static_cast<std::int64_t>(p.shape.domain_of_slot.size());
      t.domains = p.shape.domains;
      t.domain_runs.resize(p.plans.size());
    }
  }
  const int samples = k_slices(p.shape, options);
  const detail::TallyContext ctx{p.plans, streamed, blocks, p.lv, waves, 1.0 / samples};
  walk_touches(tiles_in, p, options, ctx, input, t);
  CacheTraffic traffic{.model = std::move(name), .accesses = {}, .tile_maps = {}};
  for (std::size_t a = 0; a < p.plans.size(); ++a)
    traffic.accesses.push_back(access_traffic(p.plans[a], t.access[a], p.lv, static_cast<double>(tiles)));
  at_least_cold_misses(traffic, p.plans, p.lv);
  traffic.wave_traffic = wave_traffic(traffic, t, waves, tiles);
  if (maps) detail::add_maps(traffic, t, p.plans, seq, waves, p.lv.l15);
  const StreamShape& s = p.shape;
  traffic.stream = StreamTiming{.tiles_in_flight = s.slots, .steps = s.steps,
                                .drift_sd = within_tile_drift(s.skew, static_cast<double>(s.steps)),
                                .tile_rate_sd = s.skew.rate_sd, .own_rate_sd = s.own_rate_sd,
                                .wave_footprint = s.wave_footprint, .held_waves = held_waves(s.skew),
                                .parted_wave = parted_wave(s.skew), .wave_growth = s.skew.wave_growth,
                                .fill_window = s.fill_window, .hit_window = s.hit_window};
  return traffic;
}

}  // namespace

CacheTraffic SdcmCacheModel::analyze(const plan::TileProgram& program, const hw::HardwareSpec& hw) const {
  Prepared p = prepare(program, hw, options_);
  // Maps are large and asked for by the GUI one plan at a time: only batch analyses are kept.
  if (!options_.memo || options_.tile_maps) return walk(program, p, options_, name());
  auto& memo = detail::AnalysisMemo<CacheTraffic>::of_this_thread();
  const std::string key = memo_key(program, p, options_, hw.sm_count);
  if (const CacheTraffic* known = memo.find(key)) return *known;
  CacheTraffic traffic = walk(program, p, options_, name());
  memo.slot(key) = traffic;
  return traffic;
}

}  // namespace tilesight::cache
