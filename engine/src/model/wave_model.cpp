#include "tilesight/model/wave_model.h"

#include <algorithm>

#include "tilesight/model/l1_carveout.h"

namespace tilesight::model {

namespace {

// Tile-body actions that (transitively) wait for a loop action run after the loops.
std::vector<bool> after_loops(const plan::TileProgram& p) {
  const std::size_t n = p.actions.size();
  std::vector<int> state(n, -1);  // -1 unknown, 0 head, 1 tail
  std::function<bool(std::size_t)> waits = [&](std::size_t i) -> bool {
    if (state[i] >= 0) return state[i] == 1;
    state[i] = 0;  // provisional; validated programs are acyclic
    bool w = false;
    for (auto d : p.actions[i].deps) w = w || !p.actions[d].loop.empty() || waits(d);
    state[i] = w ? 1 : 0;
    return w;
  };
  std::vector<bool> out(n, false);
  for (std::size_t i = 0; i < n; ++i) out[i] = waits(i);
  return out;
}

BodyItem make_item(const plan::TileProgram& p, std::size_t i, const LoopContext& ctx) {
  const auto& a = p.actions[i];
  BodyItem item{.name = a.name, .action_indices = {i}};
  item.u = resource_vector(a, ctx.hw, ctx.rates, ctx.traffic);
  item.duration = item.u.max();
  item.is_load = a.op == plan::OpKind::kLoad;
  item.latency = load_latency_s(a, ctx.hw, ctx.traffic);
  return item;
}

// Resident tiles run the same segment side by side: their pipelines add up, the longest
// memory latency is paid once. One tile's actions still run in order (each waits for the one
// before it or shares its pipe), so the segment lasts at least their summed durations: a tile
// alone on its SM (PyTorch's softmax over 8192 columns, one 1024-thread block per SM) loads,
// reduces and stores in turn, with no other tile to fill its pipes meanwhile.
double segment_time(const std::vector<BodyItem>& items, std::int64_t resident, ResourceVector& busy) {
  ResourceVector sum;
  double latency = 0, in_order = 0;
  for (const auto& it : items) {
    sum += it.u;
    latency = std::max(latency, it.latency);
    in_order += it.duration;
  }
  sum = sum * static_cast<double>(resident);
  busy += sum;
  return items.empty() ? 0.0 : latency + std::max(sum.max(), in_order);
}

}  // namespace

WaveTime evaluate_wave(const plan::TileProgram& p, const hw::HardwareSpec& hw,
                       const cache::CacheTraffic& traffic, double active_sms, std::int64_t resident,
                       double clock_factor, std::size_t max_orders, const cache::CacheTraffic* kernel) {
  SmRates rates = sm_rates(hw, active_sms, clock_factor);
  if (resident > 0)
    rates.l1_bytes_per_tile = l1_bytes_beside_smem(hw, p.resources.smem_bytes, resident) / static_cast<double>(resident);
  rates.dram_bytes /= dirty_writeback_factor(hw, kernel ? *kernel : traffic);
  LoopContext ctx{.program = p, .hw = hw, .traffic = traffic, .rates = rates, .resident = resident,
                  .max_orders = max_orders};
  WaveTime w;
  w.active_sms = active_sms;
  w.resident = resident;
  const auto tail = after_loops(p);
  for (std::size_t i = 0; i < p.actions.size(); ++i) {
    if (!p.actions[i].loop.empty()) continue;
    (tail[i] ? w.tail_items : w.head_items).push_back(make_item(p, i, ctx));
  }
  w.head = segment_time(w.head_items, resident, w.busy);
  // A wave after the first starts tile by tile as earlier tiles end, beside resident tiles at
  // work (as the prefetch fill below): a loop-free tile's memory latency hides under their work
  // as far as that work exceeds its own. PyTorch's elementwise and norm kernels of many waves
  // (norms_short_rows.csv: add and rmsnorm of 16384-65536 rows read 1.15-1.40x while every wave
  // paid it; 1.0-1.1x now).
  if (resident > 1 && p.loops.empty()) {
    double latency = 0, in_order = 0;
    ResourceVector work;
    for (const auto& it : w.head_items) {
      latency = std::max(latency, it.latency);
      in_order += it.duration;
      work += it.u;
    }
    w.staggered_fill += std::min(latency, std::max(0.0, work.max() * static_cast<double>(resident) - in_order));
  }
  w.tail = segment_time(w.tail_items, resident, w.busy);
  w.prologue = w.head;
  for (const auto& loop : p.loops) {
    if (!loop.parent.empty()) continue;  // nested loops are analysed inside their parent
    LoopAnalysis la = analyze_loop(loop, resident, ctx);
    w.prologue += la.envelope.prologue;
    if (resident > 1) w.staggered_fill += la.prefetch_fill;
    // So does the first load of a loop that loads straight into registers (a norm's row walk).
    if (resident > 1 && loop.register_loads) w.staggered_fill += la.first_load_latency;
    w.steady += la.envelope.steady_total();
    w.epilogue += la.envelope.epilogue;
    w.busy += la.busy;
    w.loops.push_back(std::move(la));
  }
  w.epilogue += w.tail;
  return w;
}

}  // namespace tilesight::model
