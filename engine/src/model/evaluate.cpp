#include "tilesight/model/evaluate.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "tilesight/cache/local_traffic.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/model/occupancy.h"
#include "tilesight/model/tile_imbalance.h"
#include "tilesight/model/timeline.h"
#include "tilesight/model/wave_model.h"
#include "tilesight/model/waves.h"
#include "tilesight/plan/plan_json.h"
#include "tilesight/report/diagnosis.h"

namespace tilesight::model {

namespace {

constexpr double kUs = 1e6;

Errors unsupported(const plan::TileProgram& p) {
  Errors errors;
  for (std::size_t i = 0; i < p.actions.size(); ++i)
    if (p.actions[i].op == plan::OpKind::kRemote)
      errors.push_back({"actions[" + std::to_string(i) + "].op",
                        "remote transfers need the cross-device model, which is not available yet"});
  return errors;
}

// Long tensor-core-bound kernels run at a lower, power-limited clock (VALIDATION.md): full rate
// up to short_kernel_us, falling log-linearly to sustained_fraction at long_kernel_us.
double sustained_fraction(const hw::PowerLimit& pl, double duration_us) {
  if (pl.sustained_fraction >= 1 || pl.long_kernel_us <= pl.short_kernel_us || duration_us <= pl.short_kernel_us ||
      pl.short_kernel_us <= 0)
    return duration_us >= pl.long_kernel_us ? pl.sustained_fraction : 1.0;
  if (duration_us >= pl.long_kernel_us) return pl.sustained_fraction;
  const double x = std::log(duration_us / pl.short_kernel_us) / std::log(pl.long_kernel_us / pl.short_kernel_us);
  return 1.0 - x * (1.0 - pl.sustained_fraction);
}

struct WavePlan {
  WaveDecomposition waves;
  WaveTime full;   // the full waves' mean over full_wave_groups (full_waves x it: their sum)
  WaveTime first;  // the first full wave
  WaveTime tail;
  double imbalance = 1;  // unequal tiles stretch the steady state (tile_imbalance.h)
  double head_refill = 0;  // per round of a persistent kernel that reloads each tile's head
};

// TileSchedule::head_per_tile: a tile's head loads (Q) wait for the buffer the previous tile
// frees at its end, then one stage round trip of the software pipeline (issue, memory, wait,
// barrier: pipeline_round_trip_ns) and their bytes at the SM's fill rate; the blocks that take
// their tiles from a counter also hand each tile's index from the producer to the consumers
// through SMEM at two barrier phases (a measured block reduction, block_reduce_ns). The other
// blocks are mid-tile meanwhile, so no DRAM share. cuDNN's consumers spend 0.87 us (d 64, 16
// KiB of Q) and 1.2 us (d 128, 32 KiB) a tile outside the loop (cudnn_sdpa_sass_d*.csv: 2.3%
// of their samples at 32 key blocks a tile), where this gives 0.91 and 1.0 us.
double head_refill_s(const plan::TileProgram& p, const hw::HardwareSpec& hw) {
  if (!p.schedule.persistent || !p.schedule.head_per_tile || hw.smem_fill_bandwidth_per_sm <= 0)
    return 0;
  double bytes = 0;
  for (const auto& a : p.actions)
    if (a.loop.empty() && a.op == plan::OpKind::kLoad && a.deps.empty()) bytes += a.bytes;
  if (bytes <= 0) return 0;
  const double handoff = p.schedule.dynamic ? hw.block_reduce_ns * 1e-9 : 0.0;
  return hw.pipeline_round_trip_ns * 1e-9 + bytes / hw.smem_fill_bandwidth_per_sm + handoff;
}

// The full waves by the cache model's sampled waves (CacheTraffic::wave_traffic), each standing
// for `count` waves at its own DRAM split; waves whose splits agree within a part in a thousand
// share one timing. Each wave's time is the maximum of its pipelines', so a launch whose first
// waves run from L2 and whose later ones wait on DRAM takes the sum of those maxima, longer than
// the maximum at the launch's average split. One group at the average where the model walked no
// waves of its own or its waves are not the timing's.
struct WaveGroup {
  double count = 0;
  const cache::WaveTraffic* traffic = nullptr;  // null: the launch's average
};

std::vector<WaveGroup> full_wave_groups(const cache::CacheTraffic& traffic, std::int64_t full_waves,
                                        std::int64_t blocks_per_wave) {
  const bool own = traffic.stream && traffic.stream->tiles_in_flight == blocks_per_wave && !traffic.wave_traffic.empty() &&
                   traffic.wave_traffic.front().wave == 0;
  if (!own) return {{static_cast<double>(full_waves), nullptr}};
  std::vector<WaveGroup> groups;
  for (const auto& w : traffic.wave_traffic) {
    if (w.wave >= full_waves) continue;
    auto same = std::find_if(groups.begin(), groups.end(), [&](const WaveGroup& g) {
      for (std::size_t a = 0; a < w.dram_bytes.size(); ++a) {
        const double x = w.dram_bytes[a], y = g.traffic->dram_bytes[a];
        if (std::abs(x - y) > 1e-3 * std::max(std::abs(x), std::abs(y))) return false;
      }
      return true;
    });
    if (same != groups.end())
      same->count += w.waves;
    else
      groups.push_back({w.waves, &w});
  }
  return groups;
}

// The mean of the groups' wave times, by the waves they stand for; the loops and body items
// (the loop reports, the timeline) are those of the group standing for the most waves.
WaveTime mean_wave(const std::vector<std::pair<double, WaveTime>>& timed) {
  double waves = 0;
  for (const auto& [count, wt] : timed) waves += count;
  auto most = std::max_element(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  WaveTime mean = most->second;
  if (timed.size() == 1 || waves <= 0) return mean;
  mean.head = mean.tail = mean.prologue = mean.staggered_fill = mean.steady = mean.epilogue = 0;
  mean.busy = ResourceVector{};
  for (const auto& [count, wt] : timed) {
    const double share = count / waves;
    mean.head += share * wt.head;
    mean.tail += share * wt.tail;
    mean.prologue += share * wt.prologue;
    mean.staggered_fill += share * wt.staggered_fill;
    mean.steady += share * wt.steady;
    mean.epilogue += share * wt.epilogue;
    mean.busy += wt.busy * share;
  }
  return mean;
}

const cache::WaveTraffic* tail_traffic(const cache::CacheTraffic& traffic, std::int64_t full_waves,
                                       std::int64_t blocks_per_wave) {
  if (!traffic.stream || traffic.stream->tiles_in_flight != blocks_per_wave) return nullptr;
  for (const auto& w : traffic.wave_traffic)
    if (w.wave == full_waves) return &w;
  return nullptr;
}

WavePlan run_waves(const plan::TileProgram& p, const hw::HardwareSpec& hw, const cache::CacheTraffic& traffic,
                   std::int64_t resident, double clock, std::size_t max_orders) {
  WavePlan w;
  const auto sms = static_cast<std::int64_t>(hw.sm_count);
  w.waves = decompose_waves(p.grid.tiles(), sms, resident);
  w.imbalance = tile_imbalance(p, sms * resident);
  w.head_refill = head_refill_s(p, hw);
  auto at = [&](const cache::WaveTraffic* wt, double active_sms, std::int64_t res) {
    return wt ? evaluate_wave(p, hw, traffic.at_wave(*wt), active_sms, res, clock, max_orders, &traffic)
              : evaluate_wave(p, hw, traffic, active_sms, res, clock, max_orders);
  };
  if (w.waves.full_waves > 0) {
    std::vector<std::pair<double, WaveTime>> timed;
    for (const WaveGroup& g : full_wave_groups(traffic, w.waves.full_waves, w.waves.blocks_per_wave))
      timed.emplace_back(g.count, at(g.traffic, hw.sm_count, resident));
    w.first = timed.front().second;
    w.full = mean_wave(timed);
  }
  if (w.waves.tail_blocks > 0)
    w.tail = at(tail_traffic(traffic, w.waves.full_waves, w.waves.blocks_per_wave), w.waves.tail_bandwidth_sms(),
                w.waves.tail_resident);
  return w;
}

// The kernel's time split into the envelope's three parts, summed over waves. A plain launch
// pays every wave's fill and drain (Algorithm 2: n_full T_full + T_tail). A persistent kernel
// keeps its pipeline full from one tile to the next: one fill, then per round of tiles the
// steady main loop plus the epilogue stores (hidden under the next tile's main loop with
// ping-pong consumers) and, where each tile reloads them (TileSchedule::head_per_tile), its
// head loads' refill, and one drain.
struct KernelTime {
  double prologue = 0, steady = 0, epilogue = 0;
  double total() const { return prologue + steady + epilogue; }
};

KernelTime kernel_time(const WavePlan& w, const plan::TileSchedule& schedule) {
  const double nfull = static_cast<double>(w.waves.full_waves);
  const bool has_tail = w.waves.tail_blocks > 0;
  if (!schedule.persistent) {
    // The first wave's tiles start together and wait for their prefetched stages; a later
    // wave's tiles start as earlier ones end, beside resident tiles in their loops, which hide
    // that fill where an SM holds more than one (cta_phases.py's one-wave grids; the corpus's
    // many-wave grids).
    const double hidden = nfull > 0 ? nfull * w.full.staggered_fill - w.first.staggered_fill + (has_tail ? w.tail.staggered_fill : 0.0) : 0.0;
    return {nfull * w.full.prologue + w.tail.prologue - hidden, (nfull * w.full.steady + w.tail.steady) * w.imbalance,
            nfull * w.full.epilogue + w.tail.epilogue};
  }
  const WaveTime& first = w.waves.full_waves > 0 ? w.first : w.tail;
  const WaveTime& last = has_tail ? w.tail : w.full;
  auto round = [&](const WaveTime& wt) {
    return wt.steady + (schedule.epilogue_overlap ? 0.0 : wt.tail) + w.head_refill;
  };
  KernelTime t;
  t.prologue = first.prologue;
  t.steady = (nfull * round(w.full) + (has_tail ? round(w.tail) : 0.0)) * w.imbalance;
  t.steady -= w.head_refill * w.imbalance;  // the first round's head is the prologue's
  t.epilogue = (last.epilogue - last.tail) + (schedule.epilogue_overlap ? last.tail : 0.0);
  return t;
}

double kernel_seconds(const WavePlan& w, const plan::TileSchedule& schedule) {
  return kernel_time(w, schedule).total();
}

// Device-average busy seconds per resource: a tail wave keeps only its active SMs busy.
std::array<double, kResourceCount> device_busy(const WavePlan& w, double sms) {
  std::array<double, kResourceCount> busy{};
  for (std::size_t r = 0; r < kResourceCount; ++r)
    busy[r] = static_cast<double>(w.waves.full_waves) * w.full.busy.t[r] +
              w.tail.busy.t[r] * w.tail.active_sms / sms;
  return busy;
}

report::LoopReport loop_report(const LoopAnalysis& la) {
  report::LoopReport r;
  r.loop = la.loop;
  r.iterations = la.envelope.iterations;
  r.depth = la.envelope.depth;
  r.prologue_us = la.envelope.prologue * kUs;
  r.steady_us = la.envelope.steady * kUs;
  r.epilogue_us = la.envelope.epilogue * kUs;
  r.total_us = la.envelope.total() * kUs;
  r.throughput_us = la.throughput * kUs;
  r.chain_us = la.chain * kUs;
  r.latency_floor_us = la.latency_floor * kUs;
  r.mma_exposed_us = la.mma_exposed * kUs;
  r.serial_mma = la.serial_mma;
  r.limited_by = la.limited_by;
  for (auto k : la.best_order) r.best_order.push_back(la.items[k].name);
  r.order_search = la.search.method;
  r.legal_orders = la.legal_orders.count;
  r.legal_orders_exact = la.legal_orders.exact && !la.legal_orders.saturated;
  const TcOverlap o = tc_overlap(la);
  r.steady_bottleneck = o.bottleneck;
  r.tc_us = o.tc * kUs;
  r.sfu_us = o.sfu * kUs;
  r.cuda_us = o.cuda * kUs;
  r.sfu_hidden = o.sfu_hidden;
  r.cuda_hidden = o.cuda_hidden;
  return r;
}

// active_sms: the SMs holding a block (a tail's WaveTime::active_sms is what its bandwidth is
// split over, WaveDecomposition::tail_bandwidth_sms).
report::WaveReport wave_report(const char* kind, std::int64_t count, std::int64_t active_sms, const WaveTime& w) {
  return {.kind = kind, .count = count, .active_sms = active_sms,
          .resident = w.resident, .time_us = w.total() * kUs, .prologue_us = w.prologue * kUs,
          .steady_us = w.steady * kUs, .epilogue_us = w.epilogue * kUs};
}

// The per-tile maps over the grid's last two dims (a GEMM's m x n), leading dims averaged.
report::HitRateMap hit_rate_map(const plan::TileGrid& grid, const cache::TileHitMap& m) {
  const std::size_t n = grid.dims.size();
  report::HitRateMap out{.tensor = m.tensor, .level = m.level};
  out.cols = n >= 1 ? grid.dims[n - 1].extent : 1;
  out.rows = n >= 2 ? grid.dims[n - 2].extent : 1;
  out.col_dim = n >= 1 ? grid.dims[n - 1].name : "";
  out.row_dim = n >= 2 ? grid.dims[n - 2].name : "";
  const auto cells = static_cast<std::size_t>(out.rows * out.cols);
  if (cells == 0 || m.hit_rate.size() % cells != 0) return out;
  const std::size_t planes = m.hit_rate.size() / cells;
  out.hit_rate.assign(cells, 0.0);
  out.reuse_distance.assign(cells, 0.0);
  for (std::size_t t = 0; t < m.hit_rate.size(); ++t) {
    out.hit_rate[t % cells] += m.hit_rate[t] / static_cast<double>(planes);
    if (t < m.reuse_distance.size()) out.reuse_distance[t % cells] += m.reuse_distance[t] / static_cast<double>(planes);
  }
  return out;
}

// The cache's figures as ncu counts them: the tensors' traffic and the register spills'
// (cache::local_traffic; the timing reads spills through the loop, loop_analysis.cpp).
void fill_cache(report::Prediction& pred, const plan::TileProgram& p, const hw::HardwareSpec& hw,
                const cache::CacheTraffic& tensors, std::int64_t resident) {
  cache::CacheTraffic t{.model = tensors.model, .accesses = tensors.accesses, .tile_maps = {}};
  for (auto& a : cache::local_traffic(p, hw, resident)) t.accesses.push_back(std::move(a));
  pred.cache_model = t.model;
  pred.l2_hit_rate = t.l2_hit_rate();
  pred.l2_load_hit_rate = t.l2_load_hit_rate();
  pred.dram_read_bytes = t.dram_read_bytes();
  pred.dram_write_bytes = t.dram_write_bytes();
  pred.dram_bytes = pred.dram_read_bytes + pred.dram_write_bytes;
  for (const auto& a : t.accesses) {
    const double lookups = a.l2_lookup_bytes > 0 ? a.l2_lookup_bytes : a.requested_bytes;
    pred.tensors.push_back({.tensor = a.tensor, .requested_bytes = a.requested_bytes,
                            .dram_bytes = a.dram_bytes,
                            .l2_hit_rate = lookups > 0 ? a.l2_hit_bytes / lookups : 0,
                            .l2_merged_bytes = a.l2_merged_bytes,
                            .l2_lookup_bytes = lookups,
                            .l2_hit_bytes = a.l2_hit_bytes,
                            .l2_far_lookup_bytes = a.l2_far_lookup_bytes,
                            .l2_far_hit_bytes = a.l2_far_hit_bytes});
  }
  for (const auto& m : tensors.tile_maps) pred.hit_rate_maps.push_back(hit_rate_map(p.grid, m));
  pred.cache_stream = tensors.stream;
}

// Step 2's model: the caller's, else the built-in one named by options.cache. Per-tile maps
// are drawn where a timeline (the GUI) or the maps themselves are asked for; batch runs skip them.
cache::CacheTraffic cache_traffic(const plan::TileProgram& p, const hw::HardwareSpec& hw, const EvaluateOptions& o) {
  if (o.cache_model) return o.cache_model->analyze(p, hw);
  if (o.cache == CacheModelKind::kFirstTouch) return cache::FirstTouchCacheModel().analyze(p, hw);
  return cache::SdcmCacheModel(cache::SdcmOptions{.tile_maps = o.timeline || o.tile_maps}).analyze(p, hw);
}

// EvaluateOptions::l2_merged_share: the loads' merged bytes at that share of their requests.
cache::CacheTraffic with_merged_share(cache::CacheTraffic traffic, double share) {
  for (auto& a : traffic.accesses)
    if (!a.write) a.l2_merged_bytes = share * a.requested_bytes;
  return traffic;
}

double program_flops(const plan::TileProgram& p) {
  double per_tile = 0;
  for (const auto& a : p.actions) per_tile += a.flops * static_cast<double>(p.executions_per_tile(a.loop));
  return per_tile * static_cast<double>(p.grid.tiles());
}

}  // namespace

Result<report::Prediction> evaluate(const plan::TileProgram& program, const hw::HardwareSpec& hw,
                                    const EvaluateOptions& options) {
  if (Errors e = plan::validate(program); !e.empty()) return e;
  if (Errors e = unsupported(program); !e.empty()) return e;

  // 1. Partition across devices: single-device plans are the local-only case (§3.6).
  // 2. Cache traffic from the launch order -> L2/DRAM split of every memory action (§3.5).
  const cache::CacheTraffic traffic =
      options.l2_merged_share ? with_merged_share(cache_traffic(program, hw, options), *options.l2_merged_share)
                              : cache_traffic(program, hw, options);

  // 3. Resident tiles per SM (§3.4); a block that cannot fit is an error, every limit named.
  auto occupancy = compute_occupancy(program.resources, hw);
  if (!occupancy) return occupancy.errors();
  const std::int64_t resident = occupancy->resident_blocks;

  // 4-6. Resource vectors, best orders and envelopes per wave, full waves plus a tail wave
  // with its own active-SM bandwidth share (Algorithm 2). Evaluated at full clock, then again
  // at the sustained clock that a kernel of that length runs at.
  WavePlan waves = run_waves(program, hw, traffic, resident, 1.0, options.max_orders);
  double seconds = kernel_seconds(waves, program.schedule);
  const auto busy1 = device_busy(waves, hw.sm_count);
  const double tc_share = seconds > 0 ? std::min(1.0, busy1[index(Resource::kTC)] / seconds) : 0;
  const double clock = 1.0 - (1.0 - sustained_fraction(hw.power, seconds * kUs)) * tc_share;
  if (clock < 1.0) {
    waves = run_waves(program, hw, traffic, resident, clock, options.max_orders);
    seconds = kernel_seconds(waves, program.schedule);
  }

  // The first reads of a kernel timed after a flush wait for its dirty lines' write-back: part
  // of the prologue.
  const auto busy_clocked = device_busy(waves, hw.sm_count);
  const double flush_wait = dirty_writeback_wait_s(
      hw, traffic, program, seconds > 0 ? std::min(1.0, busy_clocked[index(Resource::kTC)] / seconds) : 0.0);
  seconds += flush_wait;

  report::Prediction pred;
  pred.kernel = program.kernel;
  pred.name = program.name;
  pred.hardware = hw.name;
  pred.profile_source = hw.profile_source;
  // The first launch's overhead, and the start-up of each kernel queued behind it (split-K's
  // reduction).
  pred.launch_overhead_us =
      hw.launch_overhead_us + static_cast<double>(std::max<std::int64_t>(program.launches - 1, 0)) * hw.dependent_launch_us;
  pred.latency_us = seconds * kUs + pred.launch_overhead_us;
  pred.clock_factor = clock;
  pred.blocks = waves.waves.blocks;
  pred.waves = waves.waves.waves();
  pred.resident_blocks_per_sm = resident;
  pred.occupancy_limiter = occupancy->limiter;
  const KernelTime parts = kernel_time(waves, program.schedule);
  pred.prologue_us = (parts.prologue + flush_wait) * kUs;
  pred.steady_us = parts.steady * kUs;
  pred.epilogue_us = parts.epilogue * kUs;
  if (waves.waves.full_waves > 0)
    pred.wave_reports.push_back(wave_report("full", waves.waves.full_waves, static_cast<std::int64_t>(hw.sm_count), waves.full));
  if (waves.waves.tail_blocks > 0)
    pred.wave_reports.push_back(wave_report("tail", 1, waves.waves.tail_active_sms, waves.tail));
  const WaveTime& first = waves.waves.full_waves > 0 ? waves.full : waves.tail;
  for (const auto& la : first.loops) pred.loops.push_back(loop_report(la));

  for (std::size_t r = 0; r < kResourceCount; ++r) pred.busy_us[r] = busy_clocked[r] * kUs;
  pred.flops = program_flops(program);
  report::rate_resources(pred);
  fill_cache(pred, program, hw, traffic, resident);
  if ((options.timeline || options.tile_maps) && traffic.tile_maps.empty() && program.grid.tiles() > cache::kMaxMapTiles)
    pred.warnings.push_back("no per-tile hit-rate maps: the grid has " + std::to_string(program.grid.tiles()) +
                            " tiles, past the " + std::to_string(cache::kMaxMapTiles) + " they are drawn for");
  if (options.timeline) pred.timeline = build_timeline(program, first, options.timeline_iterations);
  if (options.diagnosis) pred.diagnosis = report::diagnose(pred);
  return pred;
}

}  // namespace tilesight::model
