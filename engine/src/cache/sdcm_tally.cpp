#include "sdcm_tally.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tilesight::cache::detail {

namespace {

// `touch`: a touch of its own (its reuse distance goes into the map's mean), not repeats.
void add_position(Tally& t, std::size_t i, const Outcome& o, bool l15, double bytes, bool touch = true) {
  t.l2_hits[i] += bytes * (l15 ? o.far_hit : o.near_hit + o.far_hit);
  t.l2_lookups[i] += bytes * (l15 ? o.far_lookup : 1 - o.merged + o.far_lookup);
  t.near_hits[i] += bytes * o.near_hit;
  t.near_lookups[i] += bytes * (1 - o.merged);
  if (!touch) return;
  t.distance[i] += o.near_distance;
  t.count[i] += 1;
}

void add_sums(Tally::Sums& sums, const Outcome& o, double req) {
  sums.near_lookups += req * (1 - o.merged);
  sums.near_hits += req * o.near_hit;
  sums.far_lookups += req * o.far_lookup;
  sums.far_hits += req * o.far_hit;
  sums.pending += req * o.pending;
  sums.merged += req * o.merged;
  sums.dram += req * std::max(0.0, 1 - o.near_hit - o.far_hit - o.merged);
}

// The outcome of each looked-up copy of a touch beyond its first request (a tile wider than
// the tensor asks for its wrapped rows again, in copies of their own; looked_copies below says
// how many reach a lookup).
//  - Copies of whole lines, the survivors of the merge: the block's own fill, issued by the
//    same tile a moment before, is there or in flight, so each is a hit (a pending sector
//    counts as one) and none merges further. One CTA (ncu_wrapped.csv), 16 copies of each row
//    of A: 4 lookups per sector, 1 miss and 3 hits.
//  - Copies of part of a line along the contiguous dim (B's 32- and 64-byte rows, N = 16, 32),
//    which mostly reach a lookup by a rule not yet known: followers of the block's current run
//    (hits where the block was there; where its fill is in flight, the burst rule: one in
//    merge_per_lookup looked up).
Outcome repeat_outcome(const Tally::Run& run, bool part_lines, double looked) {
  const double in_flight = 1 - run.hit;
  if (!part_lines) return {.near_hit = 1, .pending = in_flight};
  return {.near_hit = run.hit + in_flight * looked, .pending = in_flight, .merged = in_flight * (1 - looked)};
}

// How many of a touch's `copies` of its block beyond its first request are looked up (a tile
// wider than the tensor; a lone CTA looks up `repeats` of them, wrapped_copies in
// sdcm_cache_model.cpp), given the first request's outcome `o`.
//  - Copies of whole lines: `repeats`, or fewer where the first request merged into an open
//    run: each copy then merges as that request did (4 copies of a row under 64 tiles reading
//    it at once: one lookup a tile, not a quarter; ncu_wrapped_grid.csv, 1-64 CTAs).
//  - Rows of part of a line wrapped along a strided dim (part_rows): the same while the block
//    is in flight; where the touch finds it present each copy is looked up
//    (ncu_wrapped_gridwide.csv: a lone CTA 1 lookup of 4 copies, 172-344 CTAs 2.3-2.8).
//  - Copies of part of a line along the contiguous dim (part_lines): every copy a request
//    (repeat_outcome).
double looked_copies(std::int64_t copies, std::int64_t repeats, bool part_lines, bool part_rows, const Outcome& o) {
  const double own = 1 - o.merged, all = static_cast<double>(copies), lone = static_cast<double>(repeats);
  if (part_lines) return lone - 1;
  if (!part_rows) return std::min(lone, all * own) - own;
  if (o.merged > 0) return (all - 1) * own;
  return (1 - o.near_hit) * (lone - 1) + o.near_hit * (all - 1);
}

// The GPC's share of a block's run (Tally::DomainRun) for a touch, where reads merge by GPC;
// null for a slot past the map.
Tally::DomainRun* domain_run(Tally& t, Tally::DomainRun* runs, const StreamAccess& sa) {
  const std::int64_t slot = sa.pos % t.slots;
  if (slot >= t.domain_slots) return nullptr;
  return runs + sa.key * t.domains + t.domain_of_slot[slot];
}

// Odds that a follower of an open run is looked up where reads merge by GPC: only one GPC's
// reads merge (lrc_window.py --domains), so a GPC's first reader of the block looks it up (a
// hit, its fill found in flight or there); of its GPC's readers in lockstep the first four make
// one lookup (ncu_share.csv: 2 and 4 readers 1.01 and 1.02 lookups a sector, 8 readers 2.05),
// and past them one in `merge_per_lookup` is looked up, as across a partition. The four are
// requests: a tile wider than the tensor asks for its wrapped rows `copies` times, and those
// fill the merge as other readers would (ncu_wrapped_grid.csv: 4 copies of a row, one lookup
// a CTA on 2-8 CTAs at 2 stages).
double domain_looked(Tally::DomainRun& domain, const Tally::Run& run, double looked, std::int64_t merge_per_lookup,
                     std::int64_t copies) {
  if (domain.number != run.number) {
    domain = {.number = run.number, .followers = 0};
    return 1;
  }
  domain.followers += copies;
  return domain.followers < merge_per_lookup ? 0 : looked;
}

// The share of a touch's near hit that the line's home side missed, reading it first (two
// partitions): the other side's miss of the line homed here, which the cascade counts as
// having brought it, is still crossing over when this side's read reaches the home partition
// within l2.home_race_ns of the other's (lrc_window.py --cross: SM 2 reading the lines SM 0
// read d ns before misses the half homed next to it at d = 0-32 ns, hits it from 300 ns on;
// 65 ns integrated). The crossing read then finds this side's fill in flight: a hit in the
// home partition, not here. The other side crossed over for the share of its run's first
// touch that missed its own partition (its run's hit: 0 for a first touch).
double home_first(const Tally& t, const Tally::Run* runs, const StreamAccess& sa, const Outcome& o) {
  if (!(o.from_other > 0) || !(t.race_window > 0)) return 0;
  const Tally::Run& other = runs[static_cast<std::size_t>(sa.key) * 2 + static_cast<std::size_t>(1 - sa.group)];
  return other.age + sa.gap_other < t.race_window ? o.from_other * (1 - other.hit) : 0.0;
}

// One sampled wave's accesses into the sums (and maps) of a tally: the bytes of one tile's
// touch of each access and what it stands for, and each access's runs and sums.
class WaveTally {
 public:
  WaveTally(const TallyContext& c, std::int32_t sample, Tally& t) : c_(c), t_(t), sample_(sample) {
    const std::size_t n = c.plans.size();
    thread_local std::vector<PerAccess> per;  // kept between waves: no allocation per wave
    per.resize(n);
    const double looked = 1.0 / static_cast<double>(std::max<std::int64_t>(1, t.merge_per_lookup));
    const double weight = c.waves[static_cast<std::size_t>(sample)].weight;
    for (std::size_t a = 0; a < n; ++a) {
      const AccessPlan& ap = c.plans[a];
      const double bytes = ap.block_bytes * ap.executions * c.weight;
      const bool short_rows = ap.short_rows && t.short_row_looked > 0 && ap.multicast <= 1 && !ap.via_registers;
      per[a] = {.runs = !t.runs.empty() && ap.block_bytes > 0 ? t.runs[a].data() : nullptr,
                .domains = !t.domain_runs.empty() && ap.block_bytes > 0 && !ap.via_registers && ap.multicast <= 1
                               ? t.domain_runs[a].data()
                               : nullptr,
                .sums = &t.access[a],
                .copies = ap.copies,
                .repeats = ap.repeats,
                .part_lines = ap.part_lines,
                .part_rows = ap.part_rows,
                .looked = short_rows ? t.short_row_looked : ap.multicast > 1 || ap.via_registers ? 1.0 : looked,
                .short_rows = short_rows,
                .tile_bytes = bytes,
                .req = bytes * weight};
    }
    per_ = per.data();
    maps_ = !t.count.empty();
  }

  // Stream access `sa` of program access `plan`, with its cascade outcome `o`.
  void add(const StreamAccess& sa, std::size_t plan, Outcome o) {
    Tally& t = t_;
    const PerAccess& pa = per_[plan];
    if (sa.follower) {  // its cluster's multicast brought the block: no lookup of its own
      if (maps_) add_position(t, position(sa) * c_.plans.size() + plan, o, c_.levels.l15, pa.tile_bytes);
      return;
    }
    Tally::Run* run = pa.runs ? pa.runs + static_cast<std::size_t>(sa.key) * static_cast<std::size_t>(c_.levels.groups) +
                                    static_cast<std::size_t>(sa.group)
                              : nullptr;
    if (run) {
      // Misses in flight (ncu_pending.csv, burst rows): a touch of the block by the same SM
      // group within one fill window of the run's first touch is served by that touch's fill.
      // Where the block was there it is a plain hit; where its fill is in flight the request
      // finds the sector pending, which ncu counts as a hit when it is looked up, and each
      // such follower is looked up with odds 1 in merge_per_lookup, the others merging before
      // a lookup. n CTAs of a partition reading at once then make 1 + (n - 1) / 4 lookups a
      // sector: 1.25, 2.75, 4.75 and 17.25 for n = 2, 8, 16 and 66, where three runs of the
      // burst agree on 1.0, 2.03, 5.0 and 17.3-17.4 (ncu_pending_rerun*.csv; the first run,
      // ncu_pending.csv, 2, 3, 5.5 and 17.7: which follower reaches L2 depends on timing), and
      // 4 readers of lines already there 1.4-1.9 (l2_share_lookups.csv).
      // Where the block was there, the followers within the hit window of the run's first touch
      // find its read still open in the request coalescer and merge the same way (hit_window).
      Tally::DomainRun* domain = pa.domains ? domain_run(t, pa.domains, sa) : nullptr;
      if (run->age + sa.gap_same < t.fill_window) {  // an open run (none yet: age infinite)
        run->age += sa.gap_same;
        // Rows of part of a line: every request of the run's block, in flight or present, is
        // looked up at the measured share (short_row_looked), GPC or not.
        const double odds = pa.short_rows ? pa.looked
                            : domain  ? domain_looked(*domain, *run, pa.looked, t.merge_per_lookup, pa.copies)
                                      : pa.looked;
        const double in_flight = 1 - run->hit,
                     present = run->age < t.hit_window || pa.short_rows ? run->hit : 0.0;
        o = Outcome{.near_hit = run->hit - present * (1 - odds) + in_flight * odds,
                    .pending = in_flight,
                    .merged = (in_flight + present) * (1 - odds),
                    .near_distance = o.near_distance};
      } else {
        *run = {.hit = o.near_hit, .age = 0, .number = t.opened++};
        if (domain) *domain = {.number = run->number, .followers = 0};
        // The run's first touch may reach the home partition first: its hit there moves to the
        // other side's crossing read. Its followers find the cascade's outcome, as before.
        const double raced = home_first(t, pa.runs, sa, o);
        o.near_hit -= raced;
        o.far_hit += raced;
      }
    }
    add_sums(*pa.sums, o, pa.req);
    // Without a fill window (an L1.5 tier, or switched off) repeats stay inside the SM.
    // A short row's wrapped copies are requests like other tiles': of the tile's copies (its
    // first request included) the share short_row_looked is looked up.
    const double looked_repeats =
        pa.short_rows && pa.part_rows ? std::max(0.0, static_cast<double>(pa.copies) * pa.looked - (1 - o.merged))
                                      : looked_copies(pa.copies, pa.repeats, pa.part_lines, pa.part_rows, o);
    Outcome rep;
    const bool repeats = looked_repeats > 0 && run;
    if (repeats) {
      rep = repeat_outcome(*run, pa.part_lines, pa.looked);
      add_sums(*pa.sums, rep, pa.req * looked_repeats);
    }
    if (run && static_cast<double>(pa.copies - 1) > looked_repeats)  // never looked up (skipped when none: adding 0 changes nothing)
      pa.sums->merged += pa.req * (static_cast<double>(pa.copies - 1) - looked_repeats);
    if (!maps_) return;
    const std::size_t at = position(sa) * c_.plans.size() + plan;
    add_position(t, at, o, c_.levels.l15, pa.tile_bytes);
    if (repeats) add_position(t, at, rep, c_.levels.l15, pa.tile_bytes * looked_repeats, false);
  }

 private:
  struct PerAccess {
    Tally::Run* runs;           // none without a fill window or a block
    Tally::DomainRun* domains;  // null: reads merge across the group
    Tally::Sums* sums;
    std::int64_t copies, repeats;
    bool part_lines, part_rows;
    double looked;
    bool short_rows;  // rows of part of a line, looked up at Tally::short_row_looked
    double tile_bytes, req;  // the bytes of one tile's touch, and what it stands for
  };
  std::size_t position(const StreamAccess& sa) const {  // in the maps: the sampled position
    return static_cast<std::size_t>(t_.offset[static_cast<std::size_t>(sample_)] + sa.pos % t_.slots);
  }

  const TallyContext& c_;
  Tally& t_;
  std::int32_t sample_;
  const PerAccess* per_ = nullptr;
  bool maps_ = false;
};

// Every access of the wave, in stream order: `outcome(sa, s)` (s: the stream access), tallied.
template <class Cascade>
void tally_each(const WaveStream& wave, const TallyContext& c, Tally& t, Cascade&& outcome) {
  WaveTally tally(c, wave.sample, t);
  for (const StreamAccess& sa : wave.accesses) {
    const auto s = static_cast<std::size_t>(sa.access);
    tally.add(sa, c.streamed[s], c.blocks[s].block() <= 0 ? Outcome{.near_hit = 1} : outcome(sa, s));
  }
}

// One sampled wave's accesses, each with its cascade outcome, into the tally.
void tally_outcomes(const WaveStream& wave, const TallyContext& c, bool distance, Tally& t) {
  // Runs for every block the walk's keys can name so far (WaveStream::key_counts: all of an
  // access's blocks, or the ones met where the walk numbers them, StreamInput::dense_keys).
  for (std::size_t s = 0; s < c.streamed.size() && s < wave.key_counts.size(); ++s) {
    const std::size_t a = c.streamed[s], keys = static_cast<std::size_t>(wave.key_counts[s]);
    if (a < t.runs.size() && t.runs[a].size() < keys * static_cast<std::size_t>(c.levels.groups))
      t.runs[a].resize(keys * static_cast<std::size_t>(c.levels.groups));
    if (a < t.domain_runs.size() && t.domain_runs[a].size() < keys * static_cast<std::size_t>(t.domains))
      t.domain_runs[a].resize(keys * static_cast<std::size_t>(t.domains));
  }
  if (c.levels.l15) {
    tally_each(wave, c, t, [&](const StreamAccess& sa, std::size_t s) { return l15_cascade(wave, sa, c.blocks[s]); });
    return;
  }
  const auto groups = static_cast<std::int32_t>(c.levels.groups);
  thread_local std::vector<SureGaps> sure;  // [stream access * groups + group]; kept: no allocation per wave
  sure.clear();
  for (const BlockLevels& bl : c.blocks)
    for (std::int32_t g = 0; g < groups; ++g) sure.push_back(sure_gaps(wave.near(g), bl));
  const double home = 1.0 / static_cast<double>(groups);
  const auto sure_of = [&](std::size_t s) { return sure.data() + s * static_cast<std::size_t>(groups); };
  if (groups == 2)
    tally_each(wave, c, t, [&](const StreamAccess& sa, std::size_t s) {
      return partition_cascade<2>(wave, sa, c.blocks[s], 2, home, sure_of(s), distance);
    });
  else
    tally_each(wave, c, t, [&](const StreamAccess& sa, std::size_t s) {
      return partition_cascade(wave, sa, c.blocks[s], groups, home, sure_of(s), distance);
    });
}

}  // namespace

void tally_wave(const WaveStream& wave, const TallyContext& c, bool distance, Tally& t) {
  const std::size_t n = t.access.size();
  thread_local std::vector<double> before;  // each access's DRAM bytes before the wave
  before.resize(n);
  for (std::size_t a = 0; a < n; ++a) before[a] = t.access[a].dram;
  tally_outcomes(wave, c, distance, t);
  double* wave_dram = t.wave_dram.data() + static_cast<std::size_t>(wave.sample) * n;
  for (std::size_t a = 0; a < n; ++a) wave_dram[a] += t.access[a].dram - before[a];
}

Tally empty_tally(std::size_t accesses, const std::vector<WaveSample>& waves, std::int64_t slots, std::int64_t tiles,
                  bool maps) {
  Tally t;
  t.access.resize(accesses);
  t.slots = slots;
  t.wave_dram.assign(waves.size() * accesses, 0.0);
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

namespace {

// Launch position -> sampled position standing for it: the same slot of the sampled wave
// nearest to its own.
std::vector<std::size_t> stand_ins(std::int64_t tiles, const std::vector<WaveSample>& waves, const Tally& t) {
  std::vector<std::size_t> stand_in(static_cast<std::size_t>(tiles));
  std::size_t sample = 0;
  for (std::int64_t w = 0; w * t.slots < tiles; ++w) {
    while (sample + 1 < waves.size() && std::abs(waves[sample + 1].wave - w) <= std::abs(waves[sample].wave - w))
      ++sample;
    const std::int64_t in_wave = std::min(tiles, (waves[sample].wave + 1) * t.slots) - waves[sample].wave * t.slots;
    const std::int64_t first = w * t.slots, last = std::min(tiles, first + t.slots);
    for (std::int64_t pos = first; pos < last; ++pos)
      stand_in[static_cast<std::size_t>(pos)] = static_cast<std::size_t>(t.offset[sample] + std::min(pos - first, in_wave - 1));
  }
  return stand_in;
}

// Per-tile hit rates (the GUI heatmap) for one tensor ("" = all) at one level: each sampled
// position's rate once, then every launch position takes its stand-in's.
TileHitMap tile_map(const Tally& t, const std::vector<AccessPlan>& plans, const std::vector<std::int64_t>& order,
                    const std::vector<std::size_t>& stand_in, const std::string& tensor, bool l15) {
  const std::size_t n = plans.size(), positions = n > 0 ? t.count.size() / n : 0;
  double stored = 0;  // every store is a hit (write-back): the same bytes at every position
  std::vector<std::size_t> loads;
  for (std::size_t a = 0; a < n; ++a) {
    if (!tensor.empty() && (plans[a].access->tensor != tensor || plans[a].access->write)) continue;
    if (plans[a].access->write) stored += plans[a].block_bytes * plans[a].executions;
    else loads.push_back(a);
  }
  const std::vector<double>& hit = l15 ? t.near_hits : t.l2_hits;
  const std::vector<double>& looked = l15 ? t.near_lookups : t.l2_lookups;
  std::vector<double> rate(positions), distance(positions);
  for (std::size_t s = 0; s < positions; ++s) {
    double hits = stored, lookups = stored, dist = 0, count = 0;
    for (const std::size_t a : loads) {
      const std::size_t i = s * n + a;
      hits += hit[i];
      lookups += looked[i];
      dist += t.distance[i];
      count += t.count[i];
    }
    rate[s] = lookups > 0 ? hits / lookups : 0;
    distance[s] = count > 0 ? dist / count : 0;
  }
  const std::size_t tiles = order.size();
  TileHitMap m{.tensor = tensor, .level = l15 ? "l15" : "l2", .hit_rate = std::vector<double>(tiles),
               .reuse_distance = std::vector<double>(tiles)};
  for (std::size_t pos = 0; pos < tiles; ++pos) {
    const auto tile = static_cast<std::size_t>(order[pos]);
    m.hit_rate[tile] = rate[stand_in[pos]];
    m.reuse_distance[tile] = distance[stand_in[pos]];
  }
  return m;
}

}  // namespace

void add_maps(CacheTraffic& traffic, const Tally& t, const std::vector<AccessPlan>& plans,
              const std::vector<std::int64_t>& seq, const std::vector<WaveSample>& waves, bool l15) {
  const auto stand_in = stand_ins(static_cast<std::int64_t>(seq.size()), waves, t);
  traffic.tile_maps.push_back(tile_map(t, plans, seq, stand_in, "", false));
  for (std::size_t a = 0; a < plans.size(); ++a) {  // one map a read tensor, however many accesses read it
    const std::string& tensor = plans[a].access->tensor;
    const auto reads = [&](const AccessPlan& ap) { return !ap.access->write && ap.access->tensor == tensor; };
    if (reads(plans[a]) && std::none_of(plans.begin(), plans.begin() + static_cast<std::ptrdiff_t>(a), reads))
      traffic.tile_maps.push_back(tile_map(t, plans, seq, stand_in, tensor, false));
  }
  if (l15) traffic.tile_maps.push_back(tile_map(t, plans, seq, stand_in, "", true));
}

}  // namespace tilesight::cache::detail
