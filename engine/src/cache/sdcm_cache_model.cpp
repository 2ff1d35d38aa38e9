#include "tilesight/cache/sdcm_cache_model.h"

#include <algorithm>
#include <cmath>

#include "cascade.h"
#include "tilesight/model/occupancy.h"

namespace tilesight::cache {

namespace {

using detail::Levels;

// One tensor access of the program as the stream sees it.
struct AccessPlan {
  const plan::TensorAccess* access = nullptr;
  ReuseKeys keys;
  double block_bytes = 0;    // one block (one execution) inside the tensor
  double request_bytes = 0;  // what the tile's loads ask for: the whole tile shape
  double executions = 1;     // per tile
  double unique_bytes = 0;   // distinct bytes over the whole grid
};

// Bytes of one tile footprint; clamped: only the part inside the tensor. A tile wider than
// the tensor (16 rows of A under a 128-row tile, rows wrapped as Triton's tutorial does)
// asks for the same rows again. Taken here as served inside the SM (load unit, L1), so only
// the clamped block is looked up in L2: on the H200 corpus's skinny shapes that is closer on
// average than counting every repeat as an L2 hit, though not everywhere (docs/cache-model.md).
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

std::vector<AccessPlan> plan_accesses(const plan::TileProgram& p) {
  std::vector<AccessPlan> plans;
  const double tiles = static_cast<double>(p.grid.tiles());
  for (const auto& a : p.accesses) {
    AccessPlan ap{.access = &a, .keys = ReuseKeys(p.grid, a), .block_bytes = footprint_bytes(p, a, true),
                  .request_bytes = footprint_bytes(p, a, false),
                  .executions = static_cast<double>(p.executions_per_tile(a.loop))};
    ap.unique_bytes = std::min(static_cast<double>(ap.keys.count()), tiles) * ap.executions * ap.block_bytes;
    if (const plan::Tensor* t = p.find_tensor(a.tensor)) ap.unique_bytes = std::min(ap.unique_bytes, t->bytes());
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
  // CTAs go round-robin over the SMs (slot s on SM s % sm_count); NVIDIA does not publish which
  // SMs sit next to which partition, so the SMs alternate between the groups.
  for (std::int64_t s = 0; s < slots; ++s) shape.group_of_slot.push_back(static_cast<std::int32_t>((s % sms) % lv.groups));
  shape.foreign_share = lv.l15 ? 0.0 : 1.0 / static_cast<double>(lv.groups);
  shape.whole_stream = lv.l15;
  return shape;
}

// Hits and lookups per access (whole kernel) and, for the maps, per sampled position.
struct Tally {
  struct Sums {
    double near_lookups = 0, near_hits = 0, far_lookups = 0, far_hits = 0, dram = 0;
  };
  std::vector<Sums> access;
  // Per-position sums, [position * accesses + access] with the positions of the sampled waves
  // one after another (offset[sample] + slot); empty when no maps are drawn.
  std::vector<std::int64_t> offset;
  std::int64_t slots = 1;
  std::vector<double> l2_hits, l2_lookups, near_hits, near_lookups, distance, count;
};

struct Context {
  const std::vector<AccessPlan>& plans;
  const std::vector<std::size_t>& streamed;  // stream access index -> plan index
  const Levels& levels;
  const SdcmOptions& options;
  const std::vector<WaveSample>& waves;
  double weight;  // share of the reduction axis one k-slice stands for
};

void add_position(Tally& t, std::size_t i, const detail::Outcome& o, bool l15, double bytes) {
  t.l2_hits[i] += bytes * (l15 ? o.far_hit : o.near_hit + o.far_hit);
  t.l2_lookups[i] += bytes * (l15 ? o.far_lookup : 1 + o.far_lookup);
  t.near_hits[i] += bytes * o.near_hit;
  t.near_lookups[i] += bytes;
  t.distance[i] += o.near_distance;
  t.count[i] += 1;
}

void tally_wave(const WaveStream& wave, const Context& c, Tally& t) {
  const double wave_weight = c.waves[static_cast<std::size_t>(wave.sample)].weight;
  const bool maps = !t.count.empty();
  for (const StreamAccess& sa : wave.accesses) {
    const std::size_t plan = c.streamed[static_cast<std::size_t>(sa.access)];
    const AccessPlan& ap = c.plans[plan];
    const double tile_bytes = ap.block_bytes * ap.executions * c.weight;
    const double req = tile_bytes * wave_weight;
    const detail::Outcome o = detail::cascade(wave, sa, c.levels, ap.block_bytes, c.options.exact);
    auto& sums = t.access[plan];
    sums.near_lookups += req;
    sums.near_hits += req * o.near_hit;
    sums.far_lookups += req * o.far_lookup;
    sums.far_hits += req * o.far_hit;
    sums.dram += req * std::max(0.0, 1 - o.near_hit - o.far_hit);
    if (!maps) continue;
    const auto pos = static_cast<std::size_t>(t.offset[static_cast<std::size_t>(wave.sample)] + sa.pos % t.slots);
    add_position(t, pos * c.plans.size() + plan, o, c.levels.l15, tile_bytes);
  }
}

Tally empty_tally(std::size_t accesses, const std::vector<WaveSample>& waves, std::int64_t slots, std::int64_t tiles,
                  bool maps) {
  Tally t;
  t.access.resize(accesses);
  t.slots = slots;
  if (!maps) return t;
  std::int64_t positions = 0;
  for (const auto& w : waves) {
    t.offset.push_back(positions);
    positions += std::min(slots, tiles - w.wave * slots);
  }
  for (auto* v : {&t.l2_hits, &t.l2_lookups, &t.near_hits, &t.near_lookups, &t.distance, &t.count})
    v->assign(static_cast<std::size_t>(positions) * accesses, 0.0);
  return t;
}

// Launch position -> sampled position standing for it: the same slot of the sampled wave
// nearest to its own.
std::vector<std::size_t> stand_ins(std::int64_t tiles, const std::vector<WaveSample>& waves, const Tally& t) {
  std::vector<std::size_t> stand_in(static_cast<std::size_t>(tiles));
  std::size_t sample = 0;
  for (std::int64_t pos = 0; pos < tiles; ++pos) {
    const std::int64_t w = pos / t.slots;
    while (sample + 1 < waves.size() && std::abs(waves[sample + 1].wave - w) <= std::abs(waves[sample].wave - w))
      ++sample;
    const std::int64_t in_wave = std::min(tiles, (waves[sample].wave + 1) * t.slots) - waves[sample].wave * t.slots;
    const std::int64_t slot = std::min(pos % t.slots, in_wave - 1);
    stand_in[static_cast<std::size_t>(pos)] = static_cast<std::size_t>(t.offset[sample] + slot);
  }
  return stand_in;
}

// Per-tile hit rates (the GUI heatmap) for one tensor ("" = all) at one level.
TileHitMap tile_map(const Tally& t, const std::vector<AccessPlan>& plans, const std::vector<std::int64_t>& order,
                    const std::vector<std::size_t>& stand_in, const std::string& tensor, bool l15) {
  const std::size_t tiles = order.size(), n = plans.size();
  TileHitMap m{.tensor = tensor, .level = l15 ? "l15" : "l2", .hit_rate = std::vector<double>(tiles, 0.0),
               .reuse_distance = std::vector<double>(tiles, 0.0)};
  std::vector<bool> in(n);
  for (std::size_t a = 0; a < n; ++a) in[a] = tensor.empty() || (plans[a].access->tensor == tensor && !plans[a].access->write);
  for (std::size_t pos = 0; pos < tiles; ++pos) {
    double hits = 0, lookups = 0, dist = 0, count = 0;
    for (std::size_t a = 0; a < n; ++a) {
      if (!in[a]) continue;
      if (plans[a].access->write) {  // every store is a hit (write-back)
        hits += plans[a].block_bytes * plans[a].executions;
        lookups += plans[a].block_bytes * plans[a].executions;
        continue;
      }
      const std::size_t i = stand_in[pos] * n + a;
      hits += l15 ? t.near_hits[i] : t.l2_hits[i];
      lookups += l15 ? t.near_lookups[i] : t.l2_lookups[i];
      dist += t.distance[i];
      count += t.count[i];
    }
    const auto tile = static_cast<std::size_t>(order[pos]);
    m.hit_rate[tile] = lookups > 0 ? hits / lookups : 0;
    m.reuse_distance[tile] = count > 0 ? dist / count : 0;
  }
  return m;
}

AccessTraffic access_traffic(const AccessPlan& ap, const Tally::Sums& sums, const Levels& lv, double tiles) {
  AccessTraffic at{.tensor = ap.access->tensor, .write = ap.access->write};
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
    at.l2_far_lookup_bytes = sums.far_lookups;
    at.l2_far_hit_bytes = sums.far_hits;
  }
  return at;
}

void add_maps(CacheTraffic& traffic, const Tally& t, const std::vector<AccessPlan>& plans,
              const std::vector<std::int64_t>& seq, const std::vector<WaveSample>& waves, bool l15) {
  const auto stand_in = stand_ins(static_cast<std::int64_t>(seq.size()), waves, t);
  traffic.tile_maps.push_back(tile_map(t, plans, seq, stand_in, "", false));
  for (const auto& ap : plans)
    if (!ap.access->write) traffic.tile_maps.push_back(tile_map(t, plans, seq, stand_in, ap.access->tensor, false));
  if (l15) traffic.tile_maps.push_back(tile_map(t, plans, seq, stand_in, "", true));
}

}  // namespace

CacheTraffic SdcmCacheModel::analyze(const plan::TileProgram& program, const hw::HardwareSpec& hw) const {
  // 1. The launch order's tile sequence and each access's reuse keys (eq. 6).
  const auto order = make_launch_order(options_.order.value_or(launch_order_spec(program)));
  const std::vector<std::int64_t> seq = order->sequence(program.grid);
  const auto tiles = static_cast<std::int64_t>(seq.size());
  const std::vector<AccessPlan> plans = plan_accesses(program);
  const Levels lv = detail::levels_of(hw);
  const StreamShape shape = stream_shape(program, hw, *order, plans, lv, options_);
  StreamInput input;
  std::vector<std::size_t> streamed;
  for (std::size_t a = 0; a < plans.size(); ++a) {
    const double rate = plans[a].block_bytes * plans[a].executions / static_cast<double>(shape.steps);
    if (plans[a].access->write) {  // never reused: only a rate in the footprints
      input.unreused_bytes_per_iteration += rate;
      continue;
    }
    streamed.push_back(a);
    input.keys.push_back(&plans[a].keys);
    input.bytes_per_iteration.push_back(rate);
  }
  // 2. The concurrent stream, sampled over waves and along the reduction axis (§3.5.2), and
  // 3. the cascade's hits, lookups and DRAM bytes of each sampled access (eqs. 7-10, §3.5.3).
  const auto waves = sample_waves(tiles, shape.slots, options_.max_waves);
  const bool maps = options_.tile_maps && tiles > 0;
  Tally t = empty_tally(plans.size(), waves, shape.slots, tiles, maps);
  const int samples = shape.skew.per_iteration > 0 ? std::max(1, options_.k_samples) : 1;
  const Context ctx{plans, streamed, lv, options_, waves, 1.0 / samples};
  for (int s = 0; s < samples; ++s)
    walk_stream(seq, input, shape, (s + 0.5) / samples, waves, [&](const WaveStream& w) { tally_wave(w, ctx, t); });
  // 4. Per-access totals and per-tile maps.
  CacheTraffic traffic{.model = name(), .accesses = {}, .tile_maps = {}};
  for (std::size_t a = 0; a < plans.size(); ++a)
    traffic.accesses.push_back(access_traffic(plans[a], t.access[a], lv, static_cast<double>(tiles)));
  if (maps) add_maps(traffic, t, plans, seq, waves, lv.l15);
  return traffic;
}

}  // namespace tilesight::cache
