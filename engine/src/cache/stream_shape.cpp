// The shape in time of a launch's access stream (reuse_distance.h, StreamShape): its slots and
// their L2 partitions, the tiles' skew (the within-tile walk, their own speeds, the waves'
// widening) and the windows in which reads of one block merge (the fill and hit windows), from
// the program, the hardware and the pace of its loop.
#include "stream_shape.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "tilesight/model/occupancy.h"
#include "tilesight/model/resource_vector.h"

namespace tilesight::cache::detail {

namespace {

// Inter-SM skew (§5.3) from the profile: an iteration lasts about one memory round trip (the
// latency floor, DESIGN.md), and whether its loads hit L2 or go to DRAM lengthens or shortens
// it by the difference of the two latencies: sd per iteration = (DRAM - L2) / DRAM latency.
double derived_skew(const hw::HardwareSpec& hw) {
  if (hw.dram_latency_ns <= 0 || hw.l2.latency_ns <= 0 || hw.l2.latency_ns >= hw.dram_latency_ns) return 0;
  return (hw.dram_latency_ns - hw.l2.latency_ns) / hw.dram_latency_ns;
}

// The pace of an SM's resident tiles through their K loop: an iteration's roofline (tensor
// cores or the SM's path from L2), the path's share of it, and the stages ahead of use. The
// path carries what the timing model gives one SM with as many SMs busy as the grid fills
// (model::sm_rates: copies at l2.async_per_sm, 69 GB/s an SM with all 132 copying and 105
// with 64; loads through registers at l2.per_sm_bandwidth): a grid of 64 tiles, one an SM,
// waits less on its path than a full one.
struct LoopPace {
  double iteration_s = 0;  // the longer of the tensor-core work and the loads, all resident tiles
  double load_s = 0;       // the loads of an iteration of all resident tiles at the SM's path
  double ahead = 1;        // stages - 1: iterations a load is issued before its use
  double resident = 1;     // tiles an SM runs at once
  double tile_bytes = 0;   // one tile's loads of an iteration (its SM's share of a multicast)
};

LoopPace loop_pace(const plan::TileProgram& p, const hw::HardwareSpec& hw, const std::vector<AccessPlan>& plans,
                   double resident, double steps) {
  LoopPace pace;
  if (hw.sm_count <= 0) return pace;
  const double busy = std::ceil(static_cast<double>(p.grid.tiles()) / std::max(1.0, resident));
  const model::SmRates rates = model::sm_rates(hw, std::clamp(busy, 1.0, hw.sm_count), 1.0);
  double tc_s = 0, load_bytes = 0, load_s = 0;  // per tile
  for (const auto& a : p.actions) {
    if (a.op != plan::OpKind::kMmaTc) continue;
    const double rate = hw.tensor_flops(a.dtype, a.mma) / hw.sm_count;
    if (rate > 0) tc_s += a.flops * static_cast<double>(p.executions_per_tile(a.loop)) / rate;
  }
  for (const AccessPlan& ap : plans) {
    if (ap.access->write) continue;
    const double bytes = ap.request_bytes * ap.executions / ap.multicast;  // the SM's share of a multicast
    load_bytes += bytes;
    const double rate = ap.via_registers ? rates.l2_bytes : rates.l2_async_bytes;
    if (rate > 0) load_s += bytes / rate;
    const plan::Loop* loop = p.find_loop(ap.access->loop);
    const auto ahead = static_cast<double>(loop ? std::max<std::int64_t>(1, loop->stages - 1) : 1);
    pace.ahead = std::max(pace.ahead, ahead);
  }
  pace.tile_bytes = load_bytes / std::max(1.0, steps);
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
// their loads at one SM's path from L2 (loop_pace), whichever is longer), and at
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

// A time in iterations of the loop (0 where either is unknown).
double in_iterations(double ns, const LoopPace& pace) {
  return ns > 0 && pace.iteration_s > 0 ? ns * 1e-9 / pace.iteration_s : 0.0;
}

// The share of a load's time in flight spent queued on the SM's path: a load issued `ahead`
// iterations before its use is in flight for ahead x the iteration's load time, of which the
// loaded round trip of a miss (pipeline_round_trip_ns + dram_queue_ns) is transit.
double queued_share(const LoopPace& pace, const hw::HardwareSpec& hw) {
  if (!(pace.load_s > 0)) return 0;
  const double transit_ns = hw.pipeline_round_trip_ns > 0 ? hw.pipeline_round_trip_ns + hw.dram_queue_ns : hw.dram_latency_ns;
  return std::max(0.0, 1.0 - transit_ns * 1e-9 / (pace.ahead * pace.load_s));
}

// The hit window in ns under the launch's load on the L2 (beside l2.hit_merge_ns, measured with
// the L2 idle: lrc_window.py --fine). A read of a present sector waits in its slice's queue before
// its lookup, and another SM's read of the sector merges into it while it waits, so the window
// grows as the slices get busy: the profile's l2.hit_merge_load, the window's multiple at the
// slices' load, between its points (its ends past them). The launch's load is its copy rate over
// every SM's at its path's limit (model::sm_rates): its tiles in flight, each loading
// pace.tile_bytes an iteration. lrc_window.py --fine-load (an H100): the window holds at 0.90-0.98
// of the idle one while a quarter or half of the SMs re-read their hits (the slices 27% and 49%
// busy) and reaches 2.29 times it with all of them (60%, as busy as the H200's copy loop at every
// SM's path limit), 96 ns against 42.
double loaded_hit_merge_ns(const plan::TileProgram& p, const hw::HardwareSpec& hw, const LoopPace& pace,
                           std::int64_t slots) {
  const double idle = hw.l2.hit_merge_ns;
  const auto& law = hw.l2.hit_merge_load;
  if (law.empty() || !(pace.iteration_s > 0) || hw.sm_count <= 0) return idle;
  const double limit = hw.sm_count * model::sm_rates(hw, hw.sm_count, 1.0).l2_async_bytes;
  if (!(limit > 0)) return idle;
  const double load =
      std::min(1.0, static_cast<double>(std::min(p.grid.tiles(), slots)) * pace.tile_bytes / pace.iteration_s / limit);
  return idle * table_at(law, load);
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
  return hw.tile_rate_sd * queued_share(pace, hw) * pace.load_s / pace.iteration_s;
}

// The within-tile walk's step (SkewModel::per_iteration, derived_skew) of a tile that has its
// SM to itself: a miss lengthens its iteration by the DRAM's latency over the L2's only where
// the iteration waits on a round trip; where its loads queue on the SM's path (queued_share)
// the queue hides that much of it, and the step shrinks to the exposed share, 1 - queued. The
// corpus's one-tile loops of 3-5 stages (256 x 64 x 64 and the like, every SM busy) merge
// 0.35-0.5 of their shared operand's reads under ncu, where the whole step spread them past
// the merge windows (0.16). With two or more tiles an SM the step stays: those tiles part at
// speeds of their own inside the wave (skinny_phases.py --set stages: 3-12 iterations at K/2
// from 3 stages on), which the model does not lay out and the walk stands for.
double exposed_skew(double per_iteration, const LoopPace& pace, const hw::HardwareSpec& hw) {
  return pace.resident <= 1 ? per_iteration * (1 - queued_share(pace, hw)) : per_iteration;
}

// The bytes the first wave's tiles read over their whole loop: each read access's distinct
// blocks among the first `slots` launch positions, at the block's bytes over all executions
// (for a group-1 GEMM: the wave's rows of A and columns of B over all of K).
double wave_footprint(const plan::TileProgram& p, const TileLaunchOrder& order, const std::vector<AccessPlan>& plans,
                      std::int64_t slots) {
  const std::int64_t n = std::min(slots, p.grid.tiles());
  if (n <= 0) return 0;
  std::vector<TileCoord> coords(static_cast<std::size_t>(n));
  order.coordinates(p.grid, 0, n, coords.data());
  std::vector<std::int64_t> keys(coords.size());
  double bytes = 0;
  for (const AccessPlan& ap : plans) {
    if (ap.access->write) continue;
    std::transform(coords.begin(), coords.end(), keys.begin(), [&](const TileCoord& c) { return ap.keys.of_coord(c); });
    std::sort(keys.begin(), keys.end());
    const auto distinct = std::unique(keys.begin(), keys.end()) - keys.begin();
    bytes += static_cast<double>(distinct) * ap.block_bytes * ap.executions;
  }
  return bytes;
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

// The wave from which a loop one stage ahead keeps its whole own speed (SkewModel::onset_waves),
// however few waves its x sqrt(w) ramp has held: a laggard that falls past its partners' reach
// misses, slows and falls further, and the longer the launch has run the likelier one has.
// The traced group-1 2-stage launches with an own speed (cta_skew.py --by-wave, 630 waves of 49
// launches over h200/cta_skew*.csv.gz, parted: a B column's tiles start over 10 iterations
// apart), by x and by the iterations run before the wave:
//   x below 0.10: none of 248 waves parts within 2000 iterations (x 0.03-0.04 from 2300);
//   x 0.10-0.15: 0-0.13 part within 1000 iterations, 0.22-0.44 at 1000-1500, 0.33-0.72 at
//   1500-2000, 0.65-1 from 2000, whatever the loop's length (its first parted wave at 512-2048
//   iterations for loops of 64-896);
//   x 0.20 and up: 0.18-0.27 within 500, 0.62-0.67 at 500-1000, 0.71-0.93 at 1000-1500.
// The side lag's runaways start after 640-1400 iterations (side_lag.py: 8192^3 64 x 128 x 64,
// waves 5-11 of 128). So from x 0.10 (the x below which no traced launch parts) the walk keeps
// the whole own speed once the launch has run 1000 iterations; the ramp still parts the loops
// of larger x sooner. (Until 2026-12-06 the ramp alone: 8192 x 8192 x 28672 64 x 64 x 32, x =
// 0.105, held 19 of its 16 waves, 82.8% against ncu's 42.4 and 43.5 on two days.)
constexpr double kRunawayCoupling = 0.10, kRunawayIterations = 1000;

double runaway_wave(double coupling, double steps) {
  return coupling >= kRunawayCoupling && steps > 0 ? kRunawayIterations / steps : 0.0;
}

}  // namespace

double table_at(const std::vector<std::array<double, 2>>& points, double x) {
  if (x <= points.front()[0]) return points.front()[1];
  for (std::size_t i = 1; i < points.size(); ++i)
    if (x < points[i][0])
      return points[i - 1][1] + (x - points[i - 1][0]) / (points[i][0] - points[i - 1][0]) * (points[i][1] - points[i - 1][1]);
  return points.back()[1];
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
  const double resident = static_cast<double>(slots) / static_cast<double>(sms);
  const LoopPace pace = loop_pace(p, hw, plans, resident, steps);
  shape.skew.per_iteration = options.skew_per_iteration.value_or(exposed_skew(derived_skew(hw), pace, hw));
  shape.skew.rate_sd = options.skew_per_iteration && *options.skew_per_iteration == 0 ? 0 : derived_rate_sd(pace, hw);
  // Tiles one stage ahead whose own speeds would part them still travel together while a
  // laggard finds its partners' blocks in L2 and catches up: the waves hold for longer the
  // smaller the own speed times the first wave's footprint over the L2 (SkewModel::coupling,
  // held_rate_share).
  if (pace.ahead <= 1 && shape.skew.rate_sd > 0) {
    shape.own_rate_sd = shape.skew.rate_sd;
    shape.wave_footprint = wave_footprint(p, order, plans, slots);
    if (hw.l2.bytes > 0) shape.skew.coupling = shape.skew.rate_sd * shape.wave_footprint / hw.l2.bytes;
    shape.skew.onset_waves = runaway_wave(shape.skew.coupling, steps);
  }
  shape.skew.wave_growth = derived_wave_growth(pace, hw, order, shape.skew.rate_sd);
  if (shape.skew.wave_growth > 0) shape.skew.rate_sd = 0;
  // Only where the L2 is the near cache (H200, ncu-validated): with an L1.5 tier (B200) the
  // resource vector reads L1.5 hits as the share kept off L2, and a pending L1.5 miss is not.
  const double rho = dram_load(p, hw, plans, pace, static_cast<double>(slots), steps);
  shape.fill_window =
      lv.l15 ? 0.0 : options.fill_window.value_or(derived_fill_window(pace, hw, options.lockstep_iterations, rho));
  // The hit window (beside the fill window): another SM's read of a sector already in L2 merges
  // into the first one in the request coalescer only if it comes within l2.hit_merge_ns of it
  // (hw_profiles/calibrate/lrc_window.py --fine: 34 ns on the H200 with the L2 idle, where a read
  // of a fill in flight merges for 160-500 ns), longer as the slices get busy (loaded_hit_merge_ns).
  shape.hit_window =
      lv.l15 ? 0.0 : options.hit_window.value_or(in_iterations(loaded_hit_merge_ns(p, hw, pace, slots), pace));
  // The home side first (l2.home_race_ns), between two partitions.
  shape.race_window = lv.l15 || lv.groups != 2 ? 0.0 : in_iterations(hw.l2.home_race_ns, pace);
  shape.bytes_in_flight = static_cast<double>(std::min(p.grid.tiles(), slots)) * pace.ahead * pace.tile_bytes;
  shape.foreign_share = lv.l15 ? 0.0 : 1.0 / static_cast<double>(lv.groups);
  shape.whole_stream = lv.l15;
  if (!options.tile_starts.empty()) shape.tile_starts = &options.tile_starts;
  return shape;
}

namespace {

// The slots' map of the fewest resident CTAs an SM at or above the launch's (else the largest),
// the slots past it repeating it.
const std::vector<std::int8_t>& slot_map(const std::vector<hw::SlotPartition>& maps, std::int64_t resident) {
  auto map = std::find_if(maps.begin(), maps.end(), [&](const hw::SlotPartition& m) { return m.resident >= resident; });
  return (map == maps.end() ? maps.back() : *map).partition;
}

}  // namespace

// The L2 partition next to the SM of each launch slot: the profile's measured map
// (l2.slot_partition) for the launch's resident CTAs an SM (slot_map). On the H200 the slots
// come in runs on one partition (slots 0-15 next to one, 16-63 the other, one CTA an SM:
// sm_partition.cu), so tiles launched together mostly share their near partition. A launch of
// `ctas` CTAs that fits the SMs one each is dealt out otherwise (l2.grid_partition, the smallest
// measured grid at or above it): 8 CTAs on one GPC, then a run of about (ctas - 8) / 8 slots on
// each GPC in turn, so slots 8 apart may sit in different partitions (64 CTAs: slots 0-11 next
// to one, 12-35 the other, ...). Without a map the SMs alternate. (`ctas` 0: the full grid's
// map alone.)
// Only one GPC's reads merge in the request coalescer (lrc_window.py --domains), so where the
// GPC of each slot's SM is known, the merges go by GPC (StreamShape::domain_of_slot): a launch
// of one wave, whose CTAs land as the measured dispatch puts them (l2.grid_gpc for a grid that
// fits the SMs one each, else the full grid's l2.slot_gpc). A launch of more waves deals its
// later CTAs to the SMs in the order they free, which the model does not know: its merges go by
// partition.
void assign_groups(StreamShape& shape, const hw::HardwareSpec& hw, const Levels& lv, std::int64_t ctas) {
  const auto sms = std::max<std::int64_t>(1, static_cast<std::int64_t>(hw.sm_count));
  const std::int64_t resident = (shape.slots + sms - 1) / sms;
  shape.group_of_slot.resize(static_cast<std::size_t>(shape.slots));
  const bool maps = !lv.l15 && static_cast<double>(shape.groups) == hw.l2.partitions;
  if (maps && !hw.l2.slot_partition.empty()) {
    const auto& map = slot_map(hw.l2.slot_partition, resident);
    for (std::int64_t s = 0; s < shape.slots; ++s)
      shape.group_of_slot[static_cast<std::size_t>(s)] = map[static_cast<std::size_t>(s) % map.size()];
  } else {
    for (std::int64_t s = 0; s < shape.slots; ++s)
      shape.group_of_slot[static_cast<std::size_t>(s)] = static_cast<std::int32_t>((s % sms) % shape.groups);
  }
  if (!maps || ctas <= 0 || ctas > shape.slots) return;
  const auto of_grid = [&](const std::vector<hw::GridPartition>& grids) -> const std::vector<std::int8_t>* {
    if (ctas > sms) return nullptr;
    const auto g = std::find_if(grids.begin(), grids.end(), [&](const hw::GridPartition& m) { return m.ctas >= ctas; });
    return g == grids.end() ? nullptr : &g->partition;
  };
  if (const auto* grid = of_grid(hw.l2.grid_partition))
    for (std::int64_t s = 0; s < ctas; ++s)
      shape.group_of_slot[static_cast<std::size_t>(s)] = (*grid)[static_cast<std::size_t>(s)];
  const auto* gpcs = of_grid(hw.l2.grid_gpc);
  if (!gpcs && !hw.l2.slot_gpc.empty()) gpcs = &slot_map(hw.l2.slot_gpc, resident);
  if (!gpcs) return;
  shape.domain_of_slot.resize(static_cast<std::size_t>(ctas));
  for (std::int64_t s = 0; s < ctas; ++s)
    shape.domain_of_slot[static_cast<std::size_t>(s)] = (*gpcs)[static_cast<std::size_t>(s) % gpcs->size()];
  shape.domains = 1 + *std::max_element(shape.domain_of_slot.begin(), shape.domain_of_slot.end());
}

}  // namespace tilesight::cache::detail
