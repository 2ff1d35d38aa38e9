#include "tilesight/cache/sdcm_cache_model.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "analysis_memo.h"
#include "cascade.h"
#include "sdcm_tally.h"
#include "tilesight/model/occupancy.h"

namespace tilesight::cache {

namespace {

using detail::AccessPlan;
using detail::Levels;
using detail::Tally;

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
//    copies of a row give 1, 2, 4 lookups per sector (the burst rule's one in four). So
//    too in the corpus's grids of many CTAs (16 x 4096, BLOCK_K 64-128: 1.0, 2.0-2.2 and
//    4.0 lookups) where the row is whole lines; its 64-byte rows (BLOCK_K 32) there see 0.3-0.66
//    of their copies looked up, more with more stages: taken as part-line copies (below);
//  - wrapped along the contiguous dim in copies of whole lines (B's columns, N = 64 or 128
//    under BLOCK_N 128 / 256: 2 or 4 copies of a 128-byte line) they coalesce: one lookup;
//  - in copies of part of a line (N = 16 or 32: 32- or 64-byte rows) most are looked up
//    (0.6-1.0 of them at BLOCK_N 64 and 128, 0.3 at 256): all taken as requests, followers
//    of the block's run (sdcm_tally.cpp).
struct Wrapped {
  std::int64_t copies = 1, looked_up = 1;
  bool part_lines = false;
};

Wrapped wrapped_copies(const plan::TileProgram& p, const plan::TensorAccess& a, double line_bytes,
                       std::int64_t merge_per_lookup) {
  Wrapped w;
  const plan::Tensor* t = p.find_tensor(a.tensor);
  if (!t || a.tile_shape.size() != t->shape.size()) return w;
  const auto whole_lines = [&](std::int64_t elems) {
    return line_bytes > 0 && std::fmod(static_cast<double>(elems) * dtype_bytes(t->dtype), line_bytes) == 0;
  };
  std::int64_t merging = 1, looked = 1;  // copies that merge one in merge_per_lookup; all looked up
  const std::size_t last = t->shape.size() - 1;
  for (std::size_t d = 0; d <= last; ++d) {
    if (t->shape[d] <= 0 || a.tile_shape[d] <= t->shape[d]) continue;
    const std::int64_t copies = (a.tile_shape[d] + t->shape[d] - 1) / t->shape[d];
    w.copies *= copies;
    if (d < last && whole_lines(a.tile_shape[last])) {
      merging *= copies;
    } else if (d < last || !whole_lines(t->shape[d])) {
      looked *= copies;
      w.part_lines = true;
    }
  }
  const std::int64_t m = std::max<std::int64_t>(1, merge_per_lookup);
  w.looked_up = (merging + m - 1) / m * looked;
  return w;
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
    plans.push_back(std::move(ap));
  }
  return plans;
}

// Inter-SM skew (§5.3) from the profile: an iteration lasts about one memory round trip (the
// latency floor, DESIGN.md), and whether its loads hit L2 or go to DRAM lengthens or shortens
// it by the difference of the two latencies: sd per iteration = (DRAM - L2) / DRAM latency.
double derived_skew(const hw::HardwareSpec& hw) {
  if (hw.dram_latency_ns <= 0 || hw.l2.latency_ns <= 0 || hw.l2.latency_ns >= hw.dram_latency_ns) return 0;
  return (hw.dram_latency_ns - hw.l2.latency_ns) / hw.dram_latency_ns;
}

// The pace of an SM's resident tiles through their K loop: an iteration's roofline (tensor
// cores or the SM's path from L2), the path's share of it, and the stages ahead of use.
struct LoopPace {
  double iteration_s = 0;  // the longer of the tensor-core work and the loads, all resident tiles
  double load_s = 0;       // the loads of an iteration of all resident tiles at the SM's path
  double ahead = 1;        // stages - 1: iterations a load is issued before its use
  double resident = 1;     // tiles an SM runs at once
};

// The CTAs of a cluster that share one TMA multicast of the tensor's loads (1: none): each
// SM's path from L2 carries its share.
double multicast_of(const plan::TileProgram& p, const std::string& tensor) {
  double m = 1;
  for (const auto& a : p.actions)
    if (a.op == plan::OpKind::kLoad && !a.operands.empty() && a.operands.front() == tensor) m = std::max(m, a.multicast);
  return m;
}

LoopPace loop_pace(const plan::TileProgram& p, const hw::HardwareSpec& hw, const std::vector<AccessPlan>& plans,
                   double resident, double steps) {
  LoopPace pace;
  if (hw.sm_count <= 0) return pace;
  double tc_s = 0, load_bytes = 0;  // per tile
  for (const auto& a : p.actions) {
    if (a.op != plan::OpKind::kMmaTc) continue;
    const double rate = hw.tensor_flops(a.dtype, a.mma) / hw.sm_count;
    if (rate > 0) tc_s += a.flops * static_cast<double>(p.executions_per_tile(a.loop)) / rate;
  }
  for (const AccessPlan& ap : plans) {
    if (ap.access->write) continue;
    const double bytes = ap.request_bytes * ap.executions / multicast_of(p, ap.access->tensor);
    load_bytes += bytes;
    const plan::Loop* loop = p.find_loop(ap.access->loop);
    const auto ahead = static_cast<double>(loop ? std::max<std::int64_t>(1, loop->stages - 1) : 1);
    pace.ahead = std::max(pace.ahead, ahead);
  }
  const double per_sm = hw.l2.per_sm_bandwidth;
  const double load_s = per_sm > 0 ? load_bytes / per_sm : 0;
  pace.iteration_s = resident * std::max(tc_s, load_s) / std::max(1.0, steps);
  pace.load_s = resident * load_s / std::max(1.0, steps);
  pace.resident = resident;
  return pace;
}

// The fill window (misses in flight, beyond the paper): a miss stays pending while the tiles
// that share its block pass it; touches of the block in that time by the same SM group are
// served by its fill (sdcm_tally.cpp: those that reach a lookup count as hits, the rest merge).
// In iterations: at least the DRAM latency over the length of an iteration, the roofline of
// the SM's resident tiles (their tensor-core work at the SM's share of the tensor rate, or
// their loads at one SM's path from L2, l2.per_sm_bandwidth, whichever is longer), and at
// least SdcmOptions::lockstep_iterations: tiles that share blocks travel together (a laggard
// finds them in L2 and catches up, ncu_pending.csv's staggered bursts), so a block's readers
// within the wave's lockstep spread find its fill in flight, however deep their pipelines.
// ncu counts one-wave grids' lookups flat in the stages (0.65-0.69 a requested sector at 2-5
// stages); a window of the stages in flight (Little's law at the SM's path, before 2026-12-01)
// grew with them and gave 0.81 -> 0.60.
// The DRAM latency term grows with the DRAM's load (`dram_load`, rho): a miss stays pending
// for its queueing too, the latency over 1 - rho. hw_profiles/calibrate/lrc_window.py: a
// second SM's read of a fill in flight merges into it for 160-500 ns with the DRAM idle,
// 300-800 ns while the other SMs read L2, and past 3.2 us while they stream from DRAM.
double derived_fill_window(const LoopPace& pace, const hw::HardwareSpec& hw, double lockstep_iterations,
                           double dram_load) {
  if (hw.dram_latency_ns <= 0 || !(pace.iteration_s > 0)) return 0;
  return std::max(lockstep_iterations, hw.dram_latency_ns * 1e-9 / (1 - dram_load) / pace.iteration_s);
}

// The share of the DRAM's bandwidth a launch's reads keep busy, as far as the cache model can
// say before it runs: every loaded tensor read once (its distinct bytes) over the launch's
// time at the iteration's roofline (LoopPace: its waves of `steps` iterations). At most 0.9.
double dram_load(const plan::TileProgram& p, const hw::HardwareSpec& hw, const std::vector<AccessPlan>& plans,
                 const LoopPace& pace, double slots, double steps) {
  if (hw.dram_bandwidth <= 0 || !(pace.iteration_s > 0)) return 0;
  double bytes = 0;
  for (const AccessPlan& ap : plans)
    if (!ap.access->write) bytes += ap.unique_bytes;
  const double waves = std::max(1.0, static_cast<double>(p.grid.tiles()) / std::max(1.0, slots));
  return std::min(0.9, bytes / (waves * steps * pace.iteration_s * hw.dram_bandwidth));
}

// The hit window (beside the fill window): another SM's read of a sector already in L2 merges
// into the first one in the request coalescer only if it comes within l2.hit_merge_ns of it
// (hw_profiles/calibrate/lrc_window.py --fine: 34 ns on the H200, where a read of a fill in
// flight merges for 160-500 ns). In iterations.
double derived_hit_window(const LoopPace& pace, const hw::HardwareSpec& hw) {
  if (hw.l2.hit_merge_ns <= 0 || !(pace.iteration_s > 0)) return 0;
  return hw.l2.hit_merge_ns * 1e-9 / pace.iteration_s;
}

// The tiles' own speeds (SkewModel::rate_sd). A load issued `ahead` iterations before its use
// is in flight for ahead x the iteration's load time when the SM's path sets the pace; of
// that, the loaded round trip of a miss (pipeline_round_trip_ns + dram_queue_ns) is transit
// and the rest waits in the path's queue, where the SMs' shares differ: the tiles' times vary
// by tile_rate_sd x that queued share x the path's share of the iteration. A 2-stage loop
// whose loads arrive within the round trip queues nothing: its tiles keep pace (a miss
// lengthens the iteration of the tile ahead, the per_iteration walk). cta_skew.py: 2048 x 2048
// x 8192-32768, 64 x 128 x 32 tiles, one wave: tile times vary by 2.5% at 2 stages, 4.0% at
// 3 (queued share 0.45), 7.0% at 4 and 5 (0.63).
// Nor does a 2-stage loop that has its SM to itself: nothing else queues on its path, and each
// iteration waits its round trip, so a tile that falls behind finds its partners' blocks in L2
// and catches up. The start times of such launches stay within 1-8 iterations (p10-p90) of
// each other wave after wave (cta_skew.py --widths over h200/cta_skew_big.csv.gz and
// cta_skew_coherence.csv.gz: 64 x 256 x 128 and 128 x 256 x 128 tiles, 13-31 waves), where
// the queued share gave them 3.6-4.7% a tile and a spread of 60-120 iterations by the 8th
// wave; with two or more tiles an SM, or 3-5 stages, the measured spread does grow.
double derived_rate_sd(const LoopPace& pace, const hw::HardwareSpec& hw) {
  if (hw.tile_rate_sd <= 0 || pace.load_s <= 0 || pace.iteration_s <= 0) return 0;
  if (pace.ahead <= 1 && pace.resident <= 1) return 0;
  const double transit_ns = hw.pipeline_round_trip_ns > 0 ? hw.pipeline_round_trip_ns + hw.dram_queue_ns : hw.dram_latency_ns;
  const double queued = std::max(0.0, 1.0 - transit_ns * 1e-9 / (pace.ahead * pace.load_s));
  return hw.tile_rate_sd * queued * pace.load_s / pace.iteration_s;
}

// How much wider each wave's starts are than the last (SkewModel::wave_growth), where the
// tiles' own speeds would otherwise walk them apart (derived_rate_sd > 0) and each tile has its
// SM to itself with its loads two or more stages ahead: there each SM keeps a speed of its own,
// so the width grows linearly with the waves, not as the walk's sqrt(w). cta_skew.py --growth,
// 20 such launches of 3-15 waves (3-5 stages, 64-896 iterations): 1.38-2.16% of a tile a wave
// (p10-p90), median 1.54%; the profile's tile_wave_growth is the uniform spread's width, 0.0192.
// Persistent launches keep the walk (their tiles are not dealt out wave by wave).
double derived_wave_growth(const LoopPace& pace, const hw::HardwareSpec& hw, const TileLaunchOrder& order,
                           double rate_sd) {
  if (hw.tile_wave_growth <= 0 || rate_sd <= 0 || pace.resident > 1 || pace.ahead <= 1) return 0;
  if (dynamic_cast<const PersistentOrder*>(&order) != nullptr) return 0;
  return hw.tile_wave_growth;
}

// k-slices sampled along the reduction axis: one in lockstep, where every slice repeats the
// same reuse gaps; k_samples once the tiles drift (§3.5.2).
int k_slices(const StreamShape& shape, const SdcmOptions& options) {
  return shape.skew.per_iteration > 0 || shape.skew.rate_sd > 0 ? std::max(1, options.k_samples) : 1;
}

StreamShape stream_shape(const plan::TileProgram& p, const hw::HardwareSpec& hw, const TileLaunchOrder& order,
                         const std::vector<AccessPlan>& plans, const Levels& lv, const SdcmOptions& options) {
  auto occ = model::compute_occupancy(p.resources, hw);
  const auto sms = std::max<std::int64_t>(1, static_cast<std::int64_t>(hw.sm_count));
  std::int64_t slots = sms * (occ ? std::max(1, occ->resident_blocks) : 1);
  if (order.resident_ctas() > 0) slots = std::min(slots, order.resident_ctas());
  double steps = 1;
  for (const auto& ap : plans) steps = std::max(steps, ap.executions);
  StreamShape shape{.slots = slots, .groups = lv.groups, .group_of_slot = {},
                    .steps = static_cast<std::int64_t>(steps), .skew = {}};
  shape.skew.per_iteration = options.skew_per_iteration.value_or(derived_skew(hw));
  const double resident = static_cast<double>(slots) / static_cast<double>(sms);
  const LoopPace pace = loop_pace(p, hw, plans, resident, steps);
  shape.skew.rate_sd = options.skew_per_iteration && *options.skew_per_iteration == 0 ? 0 : derived_rate_sd(pace, hw);
  shape.skew.wave_growth = derived_wave_growth(pace, hw, order, shape.skew.rate_sd);
  if (shape.skew.wave_growth > 0) shape.skew.rate_sd = 0;
  // Only where the L2 is the near cache (H200, ncu-validated): with an L1.5 tier (B200) the
  // resource vector reads L1.5 hits as the share kept off L2, and a pending L1.5 miss is not.
  const double rho = dram_load(p, hw, plans, pace, static_cast<double>(slots), steps);
  shape.fill_window =
      lv.l15 ? 0.0 : options.fill_window.value_or(derived_fill_window(pace, hw, options.lockstep_iterations, rho));
  shape.hit_window = lv.l15 ? 0.0 : options.hit_window.value_or(derived_hit_window(pace, hw));
  shape.foreign_share = lv.l15 ? 0.0 : 1.0 / static_cast<double>(lv.groups);
  shape.whole_stream = lv.l15;
  return shape;
}

// A TMA multicast (`multicast` CTAs of a cluster) asks L2 once for the whole cluster; the stream
// walks every CTA's request, its followers' right after the leader's. Where the leader missed,
// they merged into its fill (no lookup); where it hit, they are lookups that hit, which ncu's
// lts__t_sectors does not see: taken out, (m - 1) / m of the hits.
AccessTraffic access_traffic(const AccessPlan& ap, const Tally::Sums& sums, const Levels& lv, double tiles,
                             double multicast) {
  AccessTraffic at{.tensor = ap.access->tensor, .write = ap.access->write, .revisit = ap.access->revisit > 0};
  at.requested_bytes = tiles * ap.executions * ap.request_bytes;
  if (ap.access->write) {  // a store allocates in L2: a hit, written back once (first_touch.cpp)
    at.dram_bytes = ap.unique_bytes;
    at.l2_lookup_bytes = at.l2_hit_bytes = tiles * ap.executions * ap.block_bytes;
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
    if (multicast > 1) {
      const double followers = at.l2_hit_bytes * (1 - 1 / multicast);
      at.l2_lookup_bytes -= followers;
      at.l2_hit_bytes = std::max(0.0, at.l2_hit_bytes - followers);
    }
    at.l2_far_lookup_bytes = sums.far_lookups;
    at.l2_far_hit_bytes = sums.far_hits;
    at.l2_pending_bytes = sums.pending;
    at.l2_merged_bytes = sums.merged;
  }
  return at;
}



// The L2 partition next to the SM of each launch slot: the profile's measured map
// (l2.slot_partition) for the fewest resident CTAs an SM at or above the launch's, else its
// largest, the slots past it repeating it. On the H200 the slots come in runs on one partition
// (slots 0-15 next to one, 16-63 the other, one CTA an SM: sm_partition.cu), so tiles launched
// together mostly share their near partition. Without a map the SMs alternate.
void assign_groups(StreamShape& shape, const hw::HardwareSpec& hw, const Levels& lv) {
  const auto sms = std::max<std::int64_t>(1, static_cast<std::int64_t>(hw.sm_count));
  shape.group_of_slot.resize(static_cast<std::size_t>(shape.slots));
  const auto& measured = hw.l2.slot_partition;
  if (!lv.l15 && !measured.empty() && static_cast<double>(shape.groups) == hw.l2.partitions) {
    const std::int64_t resident = (shape.slots + sms - 1) / sms;
    auto map = std::find_if(measured.begin(), measured.end(),
                            [&](const hw::SlotPartition& m) { return m.resident >= resident; });
    if (map == measured.end()) --map;
    const auto n = static_cast<std::int64_t>(map->partition.size());
    for (std::int64_t s = 0; s < shape.slots; ++s)
      shape.group_of_slot[static_cast<std::size_t>(s)] = map->partition[static_cast<std::size_t>(s % n)];
    return;
  }
  for (std::int64_t s = 0; s < shape.slots; ++s)
    shape.group_of_slot[static_cast<std::size_t>(s)] = static_cast<std::int32_t>((s % sms) % shape.groups);
}

// Step 1: what the walk reads, from the program and the hardware.
struct Prepared {
  LaunchOrderSpec spec;
  std::unique_ptr<TileLaunchOrder> order;
  std::vector<AccessPlan> plans;
  Levels lv;
  StreamShape shape;
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
  assign_groups(p.shape, hw, p.lv);
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
    k.add(ap.access->revisit);
  }
  k.add(p.lv.l15).add(p.lv.groups).add(p.lv.near_bytes).add(p.lv.near_ways).add(p.lv.far_bytes).add(p.lv.far_ways);
  k.add(p.shape.slots).add(p.shape.groups).add(p.shape.steps).add(p.shape.skew.per_iteration).add(p.shape.skew.rate_sd).add(p.shape.skew.wave_growth);
  k.add(p.shape.foreign_share).add(p.shape.whole_stream).add(sm_count);
  std::uint64_t groups = 1469598103934665603ull;  // FNV-1a over the slots' groups
  for (const std::int32_t g : p.shape.group_of_slot) groups = (groups ^ static_cast<std::uint64_t>(g)) * 1099511628211ull;
  k.add(static_cast<std::int64_t>(groups));
  k.add(static_cast<std::int64_t>(o.k_samples)).add(o.max_waves).add(o.tile_maps).add(o.exact);
  k.add(p.shape.fill_window).add(p.shape.hit_window).add(o.merge_per_lookup);
  return k.str();
}

// Steps 2-3: the stream, sampled over waves and along the reduction axis (§3.5.2), and the
// cascade's outcome of each sampled access (eqs. 7-10, §3.5.3) into `touches`, one wave at a
// time; each wave's touches are tallied (step 4) as they come, while they are in the CPU's
// caches.
void walk_touches(const TileSequence& tiles, const Prepared& p, const SdcmOptions& options,
                  const detail::TallyContext& ctx, const StreamInput& input,
                  std::vector<detail::Touch>& touches, Tally& t) {
  const int samples = k_slices(p.shape, options);
  for (int s = 0; s < samples; ++s)
    walk_stream(detail::StreamWalker::of_this_thread(), tiles, input, p.shape, (s + 0.5) / samples,
                ctx.waves, [&](const WaveStream& w) {
                  touches.clear();
                  detail::add_touches(w, ctx, options.tile_maps, touches);
                  detail::tally_touches(touches.data(), touches.data() + touches.size(), ctx, t);
                });
}

// Steps 2-4: the touches of the stream (walk_touches), with the misses in flight their totals
// per access and the per-tile maps. (A memo of the touches for a search over pipeline stages
// never hit once the tiles' speeds depended on the stages: 0 hits in 2000 bench predictions.)
CacheTraffic walk(const plan::TileProgram& program, Prepared& p, const SdcmOptions& options, std::string name) {
  std::vector<std::int64_t> seq;  // the whole sequence: for the maps, or an order without closed form
  if (options.tile_maps || !p.order->closed_form()) seq = p.order->sequence(program.grid);
  const TileSequence tiles_in = p.order->closed_form() ? TileSequence{.order = p.order.get(), .grid = &program.grid}
                                                       : TileSequence{.ids = &seq};
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
  }
  const auto waves = sample_waves(tiles, p.shape.slots, options.max_waves);
  const bool maps = options.tile_maps && tiles > 0;
  Tally t = detail::empty_tally(p.plans.size(), waves, p.shape.slots, tiles, maps);
  if (p.shape.fill_window > 0) {
    t.fill_window = p.shape.fill_window;
    t.hit_window = p.shape.hit_window;
    t.merge_per_lookup = std::max<std::int64_t>(1, options.merge_per_lookup);
    for (const AccessPlan& ap : p.plans)  // stores are never touched by the stream
      t.runs.emplace_back(
          ap.access->write ? 0 : static_cast<std::size_t>(ap.keys.count() * p.lv.groups),
          Tally::Run{});
  }
  const int samples = k_slices(p.shape, options);
  const detail::TallyContext ctx{p.plans, streamed, blocks, p.lv, waves, 1.0 / samples};
  thread_local std::vector<detail::Touch> wave;  // this thread's buffer for one wave's touches
  walk_touches(tiles_in, p, options, ctx, input, wave, t);
  CacheTraffic traffic{.model = std::move(name), .accesses = {}, .tile_maps = {}};
  for (std::size_t a = 0; a < p.plans.size(); ++a)
    traffic.accesses.push_back(access_traffic(p.plans[a], t.access[a], p.lv, static_cast<double>(tiles),
                                              multicast_of(program, p.plans[a].access->tensor)));
  if (maps) detail::add_maps(traffic, t, p.plans, seq, waves, p.lv.l15);
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
