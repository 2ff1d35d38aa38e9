#include "tilesight/model/loop_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tilesight/cache/local_traffic.h"

namespace tilesight::model {

namespace {

constexpr std::array<Resource, 4> kMemoryLanes = {Resource::kL15, Resource::kL2, Resource::kDram,
                                                  Resource::kNet};

// Actions of `loop` and of every loop nested in it.
void collect_subtree(const plan::TileProgram& p, const std::string& loop, std::vector<std::size_t>& out) {
  for (std::size_t i = 0; i < p.actions.size(); ++i)
    if (p.actions[i].loop == loop) out.push_back(i);
  for (const auto& child : p.loops)
    if (child.parent == loop && child.name != loop) collect_subtree(p, child.name, out);
}

// Warps of the SM's resident tiles per warp scheduler (four per SM on every profiled GPU).
constexpr double kSchedulersPerSm = 4;
double warps_per_scheduler(const LoopContext& ctx) {
  return static_cast<double>(ctx.program.resources.warps * std::max<std::int64_t>(ctx.resident, 1)) / kSchedulersPerSm;
}

// Spilled registers live in local memory and reach L2 like any load (they miss L1: ncu hit
// rates 0-6%). Each iteration every resident tile of the GPU stores and reloads its spilled
// slots and loads its operand tiles: a working set reused cyclically, whose L2 hit rate the
// profile measured (l2.cyclic_hit; cache::spill_hit_rate); what misses waits for DRAM.
// Returns how many times an L2 hit's latency such an access takes on average: the SM keeps the
// same bytes in flight (Little's law), so its spill traffic moves that much slower. A DRAM
// access under this load waits the DRAM latency plus its queueing (dram_queue_ns: a loop
// keeping the DRAM busy).
// ncu (tests/validation/h200/ncu_spills_facts.csv): 4096^3 128x256x64 w4 (196 slots, one tile
// per SM: 27 MB a pass) reads 0.19 GB from DRAM; 2500x7000x3000 256x128x64 w4 (two tiles per
// SM: 61 MB a pass by this count) reads 3.8 GB and writes 2.1 GB back, its local loads 84% of
// the warps' stalls.
double local_latency_multiple(const plan::TileAction& a, const LoopContext& ctx) {
  const auto& l2 = ctx.hw.l2;
  if (a.local_bytes <= 0 || l2.latency_ns <= 0) return 1.0;
  const double hit = cache::spill_hit_rate(ctx.program, a, ctx.hw, ctx.resident);
  return hit + (1 - hit) * (ctx.hw.dram_latency_ns + ctx.hw.dram_queue_ns) / l2.latency_ns;
}

std::vector<BodyItem> body_items(const plan::Loop& loop, const LoopContext& ctx) {
  std::vector<BodyItem> items;
  const auto& p = ctx.program;
  for (std::size_t i = 0; i < p.actions.size(); ++i) {
    const auto& a = p.actions[i];
    if (a.loop != loop.name) continue;
    BodyItem item{.name = a.name, .action_indices = {i}};
    item.u = resource_vector(a, ctx.hw, ctx.rates, ctx.traffic);
    // Spill traffic that misses L2 holds the SM's path that much longer.
    const double local_multiple = local_latency_multiple(a, ctx);
    if (local_multiple > 1 && ctx.rates.l2_bytes > 0)
      item.u[Resource::kL2] += (local_multiple - 1) * a.local_bytes / ctx.rates.l2_bytes;
    item.duration = item.u.max();
    // One warp per scheduler runs the softmax: its tile alone (fewer warps than two per
    // scheduler), or warp groups whose softmax sections take turns (Loop::chain_groups).
    if (loop.warp_serial_sfu && (warps_per_scheduler(ctx) < 2 || loop.chain_groups > 1)) {
      item.duration = std::max(item.duration, item.u[Resource::kCuda] + item.u[Resource::kSfu]);
      // hw_profiles/calibrate/lone_warp_softmax.cu: such a warp's softmax lasts a measured
      // multiple of its exps' SFU time (latency-bound issue of dependent instructions).
      if (a.op == plan::OpKind::kExp && loop.chain_groups > 1)
        item.duration =
            std::max(item.duration, ctx.hw.lone_warp_softmax_sfu_multiple * item.u[Resource::kSfu]);
    }
    item.is_load = a.op == plan::OpKind::kLoad;
    item.prefetched = item.is_load && loop.stages > 1 && !a.via_registers;
    item.latency = load_latency_s(a, ctx.hw, ctx.traffic);
    // Warps exchanging values through SMEM wait for each other at every barrier: half a
    // measured block reduction (two barrier phases) per phase.
    item.sync = a.barriers * ctx.hw.block_reduce_ns * 0.5e-9;
    // A load the software pipeline does not prefetch waits, each iteration, for the loop's
    // whole round trip (issue, the memory's latency, the wait and the barrier before its
    // consumer): the profile's measured stage round trip, plus what a DRAM source adds over
    // an L2 hit. hw_profiles/calibrate/h200/loop_variants.csv: an operand staged through
    // registers costs 0.90 us per iteration of a 128x64x32 tile (0.40 aligned), alone or two
    // CTAs per SM, where the 207 ns L2 latency left 0.44 us.
    // A loop of plain register loads (Loop::register_loads) has no such stage: the latency alone.
    if (item.is_load && !item.prefetched && !loop.register_loads && ctx.hw.pipeline_round_trip_ns > 0)
      item.latency = ctx.hw.pipeline_round_trip_ns * 1e-9 + std::max(0.0, item.latency - ctx.hw.l2.latency_ns * 1e-9);
    // Spilled values reloaded one after another each wait an L2 round trip (local memory
    // misses L1 in these loops: ncu hit rates 0-6%, tests/validation/h200/ncu_spills_facts.csv).
    item.latency += a.local_reloads * ctx.hw.l2.latency_ns * local_multiple * 1e-9;
    items.push_back(std::move(item));
  }
  // Spilled accumulators are stored and reloaded between the MMAs that use them, behind everything
  // else the tile moves over the SM's path from L2 (ncu, tests/validation/h200/
  // ncu_spills_facts.csv: 4096^3 128x256x64 w4 with 196 slots, one CTA per SM, takes 5.0 us
  // an iteration: its 204 KB of local traffic and 48 KB of tiles at the SM's path take 3.8 us,
  // the MMA 0.56 us, the round trip the rest; two CTAs per SM overlap one's MMA with the
  // other's traffic, 3.9 us per tile). A warp group's MMA waits for its accumulators to cross
  // the path: the spilling action lasts the iteration's path time plus its tensor-core time,
  // shared by the tile's warp groups, which take turns (256x256x64 on 8 warps, 190 slots:
  // 1.01 ms on 4096^3 where one group's turn alone would give 1.31).
  double path = 0;
  for (const auto& item : items) path += item.u[Resource::kL2];
  const double groups = std::max<double>(1.0, static_cast<double>(p.resources.warps / 4));
  for (std::size_t j = 0; j < items.size(); ++j)
    if (p.actions[items[j].action_indices.front()].accumulator_spills)
      items[j].duration = std::max(items[j].duration, (items[j].u[Resource::kTC] + path) / groups);
  // A nested loop is one composite item: its busy time as the resource vector, its envelope
  // as the duration (Algorithm 2: AnalyzeLoop recurses into sub-loops).
  for (const auto& child : p.loops) {
    if (child.parent != loop.name || child.name == loop.name) continue;
    LoopAnalysis inner = analyze_loop(child, 1, ctx);
    BodyItem item{.name = child.name};
    collect_subtree(p, child.name, item.action_indices);
    item.u = inner.busy;
    item.duration = inner.envelope.total();
    items.push_back(std::move(item));
  }
  return items;
}

// Item j precedes item i when an action of i depends on an action of j.
ActionDag item_dag(const std::vector<BodyItem>& items, const plan::TileProgram& p) {
  std::vector<std::size_t> owner(p.actions.size(), std::numeric_limits<std::size_t>::max());
  for (std::size_t k = 0; k < items.size(); ++k)
    for (auto a : items[k].action_indices) owner[a] = k;
  ActionDag dag;
  dag.preds.resize(items.size());
  for (std::size_t k = 0; k < items.size(); ++k)
    for (auto a : items[k].action_indices)
      for (auto d : p.actions[a].deps) {
        const std::size_t j = owner[d];
        if (j == std::numeric_limits<std::size_t>::max() || j == k) continue;
        auto& pr = dag.preds[k];
        if (std::find(pr.begin(), pr.end(), j) == pr.end()) pr.push_back(j);
      }
  return dag;
}

// In-order issue of one iteration (eq. 5's sigma): an item starts when the previous item in
// the order has issued, its producers are done and the pipelines it needs are free. Loads
// prefetched by the software pipeline are off the chain; without prefetch (stages == 1, or a
// load staged through registers) they sit on it with their latency.
double chain_makespan(const std::vector<std::size_t>& order, const std::vector<BodyItem>& items,
                      const ActionDag& dag, std::vector<double>* offsets) {
  std::vector<double> end(items.size(), 0.0);
  std::array<double, kResourceCount> free{};
  double issue = 0, makespan = 0;
  for (auto k : order) {
    const auto& it = items[k];
    if (it.prefetched) continue;
    double start = issue;
    for (auto j : dag.preds[k]) start = std::max(start, end[j]);
    for (std::size_t r = 0; r < kResourceCount; ++r)
      if (it.u.t[r] > 0) start = std::max(start, free[r]);
    const double dur = it.duration + it.latency + it.sync;
    end[k] = start + dur;
    for (std::size_t r = 0; r < kResourceCount; ++r)
      if (it.u.t[r] > 0) free[r] = start + it.u.t[r];
    issue = start;
    makespan = std::max(makespan, end[k]);
    if (offsets) (*offsets)[k] = start;
  }
  return makespan;
}

// Longest dependency path through the chain items: no order can beat it.
double critical_path(const std::vector<BodyItem>& items, const ActionDag& dag) {
  std::vector<double> finish(items.size(), -1.0);
  std::function<double(std::size_t)> f = [&](std::size_t k) -> double {
    if (finish[k] >= 0) return finish[k];
    double start = 0;
    for (auto j : dag.preds[k]) start = std::max(start, f(j));
    const auto& it = items[k];
    return finish[k] = start + (it.prefetched ? 0 : it.duration + it.latency + it.sync);
  };
  double cp = 0;
  for (std::size_t k = 0; k < items.size(); ++k) cp = std::max(cp, f(k));
  return cp;
}

// A compiler-pipelined loop (stages > 1, its loads prefetched): the profile's measured round
// trip of one stage (pipeline_iteration.csv: data in L2), plus what a DRAM-sourced load adds
// over an L2 hit, and the time the SM's async-copy path takes to fill the iteration's bytes.
// Over 38 configs of that microbenchmark, round_trip / (stages - 1) + fill is within 5%.
struct PipelineLaw {
  double round_trip = 0;  // s
  double fill = 0;        // s per iteration of one tile
  double stage_fill = 0;  // s: of that, the prefetched loads' (a stage the prologue copies)
  double dram = 0;        // s of the SM's DRAM share per iteration of one tile
};
// What a load's copies cost the SM's fill path, in bytes at its rate: runs shorter than half a
// line go at one request each, so at (half a line / run) of the rate (l2_requests.csv: rows of
// 32 bytes copy at 33-37 GB/s an SM, rows of 64 bytes and more at 65-76). A tile wider than a
// short row asks for it again in such runs (gemm_dram_run_bytes: N = 16 under BLOCK_N 64-256).
double fill_bytes(const plan::TileAction& a, const hw::HardwareSpec& hw) {
  const double half_line = hw.l2.line_bytes / 2;
  if (a.dram_run_bytes > 0 && a.dram_run_bytes < half_line) return a.bytes * half_line / a.dram_run_bytes;
  return a.bytes;
}

PipelineLaw pipeline_law(const plan::Loop& loop, const std::vector<BodyItem>& items, const LoopContext& ctx) {
  const auto& hw = ctx.hw;
  if (loop.stages < 2 || hw.pipeline_round_trip_ns <= 0 || hw.smem_fill_bandwidth_per_sm <= 0) return {};
  PipelineLaw law;
  double latency = 0, bytes = 0, stage = 0;
  for (const auto& it : items) {
    if (!it.is_load) continue;
    latency = std::max(latency, it.latency);
    for (auto a : it.action_indices) (it.prefetched ? stage : bytes) += fill_bytes(ctx.program.actions[a], hw);
  }
  if (stage <= 0) return {};
  bytes += stage;
  law.round_trip = hw.pipeline_round_trip_ns * 1e-9;
  if (hw.dram_queue_ns > 0) {
    for (const auto& it : items)
      if (it.is_load) law.dram += it.u[Resource::kDram];
  } else {
    law.round_trip += std::max(0.0, latency - hw.l2.latency_ns * 1e-9);
  }
  law.fill = bytes / hw.smem_fill_bandwidth_per_sm;
  law.stage_fill = stage / hw.smem_fill_bandwidth_per_sm;
  return law;
}

}  // namespace

LoopAnalysis analyze_loop(const plan::Loop& loop, std::int64_t interleave, const LoopContext& ctx) {
  LoopAnalysis out;
  out.loop = loop.name;
  out.items = body_items(loop, ctx);
  const ActionDag dag = item_dag(out.items, ctx.program);
  const double inter = static_cast<double>(std::max<std::int64_t>(interleave, 1));
  // Resident tiles whose chains take turns (Loop::overlap_resident) divide nothing.
  // Consumer warp groups each running the chain on their share of the rows interleave as
  // resident tiles do (Loop::chain_groups).
  const double groups = static_cast<double>(std::max<std::int64_t>(loop.chain_groups, 1));
  const double chain_inter = (loop.overlap_resident ? inter : 1.0) * groups;
  bool loads_on_chain = false;  // some load waits in the chain (nothing prefetches it)
  for (const auto& it : out.items) loads_on_chain |= it.is_load && !it.prefetched;

  // Throughput (eq. 4) and the memory-latency floor: R resident tiles keep about
  // R * (stages - 1) iterations of loads in flight (DESIGN.md).
  ResourceVector per_iteration;
  for (const auto& it : out.items) {
    per_iteration += it.u;
    if (it.is_load) out.first_load_latency = std::max(out.first_load_latency, it.latency);
  }
  out.throughput = per_iteration.max();
  // FA2's library loop (Loop::loads_wait_apart) has one of its two tiles in flight at a time.
  const double in_flight = inter * static_cast<double>(std::max<std::int64_t>(loop.stages - 1, 1)) *
                           (loop.loads_wait_apart ? 0.5 : 1.0);
  out.latency_floor = out.first_load_latency / in_flight;
  for (Resource r : kMemoryLanes) {
    double s = 0;
    for (const auto& it : out.items)
      if (it.is_load) s += it.u[r];
    out.first_loads = std::max(out.first_loads, s);
  }

  // Memory pipes and the latency floor do not simply take turns: with n bytes in flight an
  // SM waits the latency and the transfer, and the two blur where they meet. The
  // loads-in-flight microbenchmark (hw_profiles/calibrate/h200/loads_in_flight.csv: 4-32 KiB
  // in flight per SM) follows sqrt(latency^2 + transfer^2) within 10%, where max() is off by
  // up to 30% and a plain sum by up to 40%.
  double memory = 0, other = 0;
  for (Resource r : kAllResources)
    (is_memory_resource(r) ? memory : other) = std::max(is_memory_resource(r) ? memory : other, per_iteration[r]);
  double memory_bound = std::hypot(memory, out.latency_floor);
  double exposed = 0;  // MMA and the next stage's load not overlapped
  if (const PipelineLaw law = pipeline_law(loop, out.items, ctx); law.round_trip > 0) {
    // The prologue issues the copies of stages - 1 stages of every resident tile before its
    // first MMA (past the loop's end masked, zeros), and those fill shared memory at the SM's
    // fill rate before the loop runs at its pace: cta_phases.py (one wave of 1024x1024 tiles,
    // K of 1-96 k-steps; eight tile configs, 24-144 KiB prefetched) finds each CTA's loop
    // longer than the model's by pipeline_prologue_ns plus that fill, within 0.09 us (mean).
    if (ctx.hw.pipeline_prologue_ns > 0)
      out.prefetch_fill = ctx.hw.pipeline_prologue_ns * 1e-9 + static_cast<double>(loop.stages - 1) * inter * law.stage_fill;
    out.latency_floor = law.round_trip / in_flight;
    // The prologue's first stage arrives after the same loaded round trip (cp.async issue,
    // wait, barrier), not the pointer-chase latency: on pipeline_iteration.csv's 54 loops the
    // time a loop takes beyond its iterations (t at K 2048 less 64 or 32 steady iterations)
    // was 0.75 us above the model's (median), 0.29 us with this.
    out.first_load_latency = std::max(out.first_load_latency, law.round_trip);
    // DRAM traffic lengthens the round trip by dram_queue_ns x the share of the SM's DRAM
    // bandwidth the loop keeps busy, rho = dram / T, where T = (round_trip + q rho) / in_flight
    // + fill is the iteration time itself: T^2 - c T - q dram / in_flight = 0.
    if (ctx.hw.dram_queue_ns > 0 && law.dram > 0) {
      const double c = out.latency_floor + law.fill;
      const double q = ctx.hw.dram_queue_ns * 1e-9;
      out.latency_floor = 0.5 * (c + std::sqrt(c * c + 4.0 * q * law.dram / in_flight)) - law.fill;
    }
    memory_bound = std::max(memory, out.latency_floor + law.fill);
    // A loop whose warps issue both the MMAs and the next stage's loads does not overlap the
    // two fully: pipeline_mma_exposure of the shorter of the stage's share of the round trip
    // and the MMA shows, over the stages in flight to pipeline_mma_exposure_power
    // (pipeline_depth.csv: 2-stage loops cost the round trip plus 15-110% of the MMA, 3-stage
    // ones 4-37%; fit_pipeline_law.py over all 113 loops: almost only with one stage in flight).
    if (ctx.hw.pipeline_mma_exposure > 0 && !loop.producer_warps)
      exposed = ctx.hw.pipeline_mma_exposure / std::pow(in_flight, ctx.hw.pipeline_mma_exposure_power) *
                std::min(out.latency_floor + law.fill, per_iteration[Resource::kTC]);
    // Serialised wgmma (Loop::serial_mma): the warps reach the next stage's copies and the
    // loop's barrier only once their MMAs are done, so the stage's fill waits behind the MMA on
    // top of what a pipelined loop exposes; another resident tile's MMAs run meanwhile.
    // hw_profiles/calibrate/pipeline_iteration.py --layout nt / --dtype fp8 (data in L2,
    // h200/pipeline_serial_{nn,nt,fp8}.csv): 128x256 and 64x256 on 8 warps take 0.09-0.50 us an
    // iteration more with B stored N x K than K x N; this term reads those 54 serialised loops
    // within 10.0% (fp8) and 10.3% (bf16) on average, against 13.2% and 14.9% with the fill in
    // place of the pipelined exposure.
    if (loop.serial_mma && !loop.producer_warps) exposed += std::min(law.fill, per_iteration[Resource::kTC]) / inter;
  }

  // Barrier waits are latency, not work: while one resident tile's warps wait at a barrier,
  // another's run, so the waits overlap across resident tiles even where their chains take
  // turns (the part of the chain the barriers add is divided by all of them).
  bool syncs = false;
  for (const auto& it : out.items) syncs |= it.sync > 0;
  std::vector<BodyItem> unsynced;
  if (syncs) {
    unsynced = out.items;
    for (auto& it : unsynced) it.sync = 0;
  }
  auto per_tile_chain = [&](const std::vector<std::size_t>& order, std::vector<double>* offsets) {
    const double all = chain_makespan(order, out.items, dag, offsets);
    if (!syncs) return all / chain_inter;
    const double work = chain_makespan(order, unsynced, dag, nullptr);
    return work / chain_inter + (all - work) / inter;
  };

  // Best legal order (eq. 5) by branch-and-bound on the in-order chain.
  const double fixed = std::max(other, memory_bound) + exposed;
  const double bound = std::max(fixed, (syncs ? critical_path(unsynced, dag) : critical_path(out.items, dag)) / chain_inter);
  PrefixCost cost = [&](const std::vector<std::size_t>& prefix) {
    return std::max(fixed, per_tile_chain(prefix, nullptr));
  };
  out.search = best_topological_order(dag, cost, {.max_orders = ctx.max_orders, .lower_bound = bound});
  out.legal_orders = count_topological_orders(dag);
  out.best_order = out.search.order;
  std::vector<double> offsets(out.items.size(), 0.0);
  const double chain_per_tile = per_tile_chain(out.best_order, &offsets);
  out.chain = chain_makespan(out.best_order, out.items, dag, nullptr);
  for (std::size_t k = 0; k < out.items.size(); ++k) out.items[k].chain_offset = offsets[k];
  out.last_chain = loads_on_chain ? 0.0 : out.chain;

  // A 2-stage loop that issues its next stage's copies after its chain (behind its last barrier,
  // the chain's last action still running) waits for them at the top of the next iteration:
  // the copies' round trip less that last action. A tile's own iteration lasts its chain plus
  // that wait; the other resident tiles' chains run meanwhile where chains take turns on the SM
  // (Loop::overlap_resident false), so the SM's iteration is the longer of one chain and a
  // tile's cycle over the resident tiles: max(c, (c + wait) / R). Where resident chains
  // overlap, the tile's cycle is its whole chain, c x R, plus the wait.
  double copy_wait = 0;
  if (loop.stages == 2 && loop.copies_after_chain && !out.best_order.empty())
    copy_wait = std::max(0.0, ctx.hw.pipeline_late_copy_wait_ns * 1e-9 - out.items[out.best_order.back()].duration);
  const double tile_chain = loop.overlap_resident ? chain_per_tile * inter : chain_per_tile;
  const double steady = std::max({fixed, chain_per_tile, (tile_chain + copy_wait) / inter});
  out.mma_exposed = chain_per_tile > fixed ? 0.0 : exposed;
  out.serial_mma = loop.serial_mma;
  // What sets the steady state: the chain when it is longer than the rest, else the busiest
  // pipeline or the memory path (its latency floor or its transfer), whichever of those two
  // binds; the MMA the next load does not overlap adds to either and names neither.
  out.limited_by = chain_per_tile > fixed   ? "dependency chain"
                   : other >= memory_bound ? "throughput"
                   : (out.latency_floor > memory ? "memory latency" : "throughput");

  // Envelope (eqs. 2-3).
  auto& env = out.envelope;
  env.iterations = loop.trip_count * std::max<std::int64_t>(interleave, 1);
  env.depth = effective_depth(loop.stages, std::max<std::int64_t>(interleave, 1));
  env.steady = steady;
  const std::int64_t filled = std::min(env.depth, env.iterations);
  if (filled >= 1) {
    env.prologue = out.first_load_latency + out.first_loads + static_cast<double>(filled - 1) * steady +
                   out.prefetch_fill;
    env.epilogue = out.last_chain;
  }
  out.busy = per_iteration * static_cast<double>(env.iterations);
  return out;
}

TcOverlap tc_overlap(const LoopAnalysis& la) {
  TcOverlap o;
  const auto n = static_cast<double>(std::max<std::int64_t>(la.envelope.iterations, 1));
  const ResourceVector u = la.busy * (1.0 / n);
  for (Resource r : kAllResources)
    if (u[r] > u[o.bottleneck]) o.bottleneck = r;
  o.steady = la.envelope.steady;
  o.tc = u[Resource::kTC];
  o.sfu = u[Resource::kSfu];
  o.cuda = u[Resource::kCuda];
  if (o.tc <= 0) return o;
  const double idle = std::max(0.0, o.steady - o.tc);
  auto hidden = [&](double t) { return t > 0 ? 1.0 - std::min(t, idle) / t : 1.0; };
  o.sfu_hidden = hidden(o.sfu);
  o.cuda_hidden = hidden(o.cuda);
  return o;
}

}  // namespace tilesight::model
