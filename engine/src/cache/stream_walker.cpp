// The concurrent stream of reuse_distance.h: a wave's tiles touch their blocks in phase order,
// each touch's reuse gaps read off the last touch of its block by every SM group.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "tilesight/cache/reuse_distance.h"

namespace tilesight::cache {

namespace {

// The first wave's start spread (iterations): its CTAs start together. %globaltimer at the
// start of every CTA of 87 one-wave launches (hw_profiles/calibrate/h200/cta_skew.csv.gz,
// cta_skew_small.csv.gz, skinny_phases.csv.gz): 0-128 ns from the first to the last, 0-0.34
// iterations, median 0.06, 90th percentile 0.11. (One iteration until 2026-12-01: the L2
// figures hardly move, corpus 4.92 -> 4.91 pp, calibration set 5.84 -> 5.73 pp,
// docs/cache-model.md.)
constexpr double kFirstWaveSpread = 0.1;

// The spread of a wave's start times (iterations): where each tile of the previous waves
// ended. A tile ends where its drift left it after its `steps` iterations, within_tile_drift
// (bounded: a laggard catches up on its wave-mates' blocks), plus its own speed (SkewModel::
// rate_sd, unbounded: a pace set by the SM's queued path shares gives no catch-up); the
// slots' offsets add up over w waves; where each SM keeps a speed of its own (SkewModel::
// wave_growth, derived_wave_growth) the width grows by that share of a tile each wave instead.
// At least kFirstWaveSpread, at most one tile. (An unbounded
// walk of sd per_iteration each iteration, as before, spread 2-stage loops over 50-140
// iterations of their 256-896; ncu measures them near lockstep: 8192 x 8192 x 8192-28672,
// 64 x 128 x 32, 2 stages, 77% L2 hits, l2_hit_corpus.csv.)
double wave_width(std::int64_t w, const StreamShape& s) {
  const double steps = static_cast<double>(s.steps), drift = within_tile_drift(s.skew, steps), rate = s.skew.rate_sd * steps;
  double kept = static_cast<double>(w);  // waves' shares of the rate walk's variance
  if (s.skew.coupling > 0) {
    kept = 0;
    for (std::int64_t v = 1; v <= w; ++v) {
      const double share = held_rate_share(s.skew, v);
      if (share >= 1) {
        kept += static_cast<double>(w - v + 1);
        break;
      }
      kept += share * share;
    }
  }
  const double sd = std::sqrt(static_cast<double>(w) * drift * drift + kept * rate * rate);
  const double linear = s.skew.wave_growth * steps * static_cast<double>(w);
  return std::clamp(std::hypot(std::sqrt(12.0) * sd, linear), kFirstWaveSpread, std::max(kFirstWaveSpread, steps));
}

// A deterministic standard normal per launch position: a hash of the position picks one of
// 1024 evenly spaced normal quantiles (Acklam's approximation of the inverse CDF), so the
// drift of a tile is reproducible and costs a table lookup; no global random state.
double inverse_normal(double u) {
  static constexpr double a[] = {-39.69683028665376, 220.9460984245205, -275.9285104469687,
                                 138.3577518672690, -30.66479806614716, 2.506628277459239};
  static constexpr double b[] = {-54.47609879822406, 161.5858368580409, -155.6989798598866,
                                 66.80131188771972, -13.28068155288572};
  static constexpr double c[] = {-0.007784894002430293, -0.3223964580411365, -2.400758277161838,
                                 -2.549732539343734, 4.374664141464968, 2.938163982698783};
  static constexpr double d[] = {0.007784695709041462, 0.3224671290700398, 2.445134137142996,
                                 3.754408661907416};
  const double lo = std::min(u, 1 - u);
  if (lo < 0.02425) {
    const double q = std::sqrt(-2 * std::log(lo));
    const double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                     ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    return u > 0.5 ? -x : x;
  }
  const double q = u - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double normal_of(std::int64_t pos) {
  static const std::array<double, 1024> quantiles = [] {
    std::array<double, 1024> q{};
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = inverse_normal((static_cast<double>(i) + 0.5) / 1024.0);
    return q;
  }();
  std::uint64_t z = static_cast<std::uint64_t>(pos) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return quantiles[(z ^ (z >> 31)) & 1023];
}

// Orders phases as unsigned integers do (sign flipped, negatives mirrored), with the slot in
// the low bits: sorting the keys sorts the tiles by phase.
std::uint64_t phase_key(float phase, std::size_t slot) {
  const auto u = std::bit_cast<std::uint32_t>(phase);
  const std::uint32_t ordered = (u & 0x80000000U) ? ~u : (u | 0x80000000U);
  return (static_cast<std::uint64_t>(ordered) << 32) | slot;
}

}  // namespace

// A tile's drift after k iterations of its loop (sd, iterations). Each iteration adds a step of
// sd `per_iteration`, but the tiles of a wave share blocks: one that falls behind finds them
// in L2 (its iterations take the L2 latency, not the DRAM one) and catches up by
// (DRAM - L2) / DRAM latency iterations per iteration of lag, the same `per_iteration`
// (theta); one ahead pays the misses and slows. The lag is an AR(1) walk
// x' = (1 - theta) x + step, sd after k steps per_iteration * sqrt((1 - (1 - theta)^2k) /
// (theta (2 - theta))): sqrt(k) steps at first, then bounded (0.56 iterations on the H200
// profile) instead of sqrt(k) for good. The burst rows of ncu_pending.csv show the catch-up:
// 8 CTAs started 1.6 us (four DRAM round trips) apart still reach L2 as a convoy (lookups
// 98304 at no stagger, 116884 at 800 FMAs per CTA, of 262144 requests).
// Tiles one stage ahead whose own speeds would part them still travel together while a
// laggard finds its partners' blocks in L2 and catches up, the longer the fewer blocks its
// wave reads: wave w parts by the x sqrt(w) its own speed has walked it (x: SkewModel::
// coupling). cta_skew.py --by-wave on the H200's traced group-1 2-stage launches of 2+ waves
// (hw_profiles/calibrate/h200/cta_skew*.csv.gz): the tiles sharing a column of B start within
// 10 iterations of each other in every wave below x sqrt(w) = 0.4, 29% of the waves apart at
// 0.4-0.5, 54-62% at 0.5-0.8 and all from 0.8 on; the share of the speed a wave keeps ramps
// from 0 at 0.5 to all of it at 0.8. (Until 2026-12-05 by x alone, from the second wave on,
// 0 at x = 0.10 to 1 at 0.30: convoys of 2-7 waves parted where they held, 512 x 16384 x
// 16384 64 x 256 x 64 at 32.9% L2 hits where ncu counts 57.0.)
constexpr double kWavesHold = 0.5, kWavesPart = 0.8;

double held_rate_share(const SkewModel& skew, std::int64_t w) {
  if (!(skew.coupling > 0)) return 1;
  if (skew.onset_waves > 0 && static_cast<double>(w) >= skew.onset_waves) return 1;
  const double x = skew.coupling * std::sqrt(static_cast<double>(w));
  return std::clamp((x - kWavesHold) / (kWavesPart - kWavesHold), 0.0, 1.0);
}

std::int64_t held_waves(const SkewModel& skew) {
  if (!(skew.coupling > 0)) return 0;
  double w = std::floor(std::pow(kWavesHold / skew.coupling, 2));
  if (skew.onset_waves > 0) w = std::min(w, std::ceil(skew.onset_waves) - 1);
  return w < 1e15 ? static_cast<std::int64_t>(w) : std::int64_t{1000000000000000};
}

std::int64_t parted_wave(const SkewModel& skew) {
  if (!(skew.coupling > 0)) return 0;
  double w = std::ceil(std::pow(kWavesPart / skew.coupling, 2));
  if (skew.onset_waves > 0) w = std::min(w, std::max(1.0, std::ceil(skew.onset_waves)));
  return w < 1e15 ? static_cast<std::int64_t>(w) : std::int64_t{1000000000000000};
}

double within_tile_drift(const SkewModel& skew, double k) {
  const double s = skew.per_iteration;
  if (!(s > 0) || !(k > 0)) return 0;
  const double theta = std::min(s, 1.0);
  return s * std::sqrt((1 - std::pow(1 - theta, 2 * k)) / (theta * (2 - theta)));
}

namespace detail {

StreamWalker& StreamWalker::of_this_thread() {
  thread_local StreamWalker walker;
  return walker;
}

void StreamWalker::start(const TileSequence& tiles, const StreamInput& input, const StreamShape& shape,
                         double k_fraction) {
  tiles_ = tiles;
  input_ = &input;
  shape_ = shape;
  shape_.slots = std::max<std::int64_t>(1, shape_.slots);
  shape_.groups = std::max<std::int64_t>(1, shape_.groups);
  if (shape_.group_of_slot.empty())
    for (std::int64_t s = 0; s < shape_.slots; ++s) shape_.group_of_slot.push_back(static_cast<std::int32_t>(s % shape_.groups));
  k_ = k_fraction * static_cast<double>(shape_.steps);
  min_gap_ = 1.0 / static_cast<double>(shape_.slots);  // one request slot of an iteration
  last_.resize(input.keys.size());
  dense_.resize(input.keys.size());
  wave_.key_counts.resize(input.keys.size());
  for (std::size_t a = 0; a < input.keys.size(); ++a) {
    const std::int64_t count = input.keys[a]->count();
    dense_[a].clear();
    wave_.key_counts[a] = count > input.dense_keys ? 0 : count;
    last_[a].assign(static_cast<std::size_t>(shape_.groups * wave_.key_counts[a]), -kNever);
  }
  stride_ = static_cast<std::size_t>(std::min(shape_.slots, std::max<std::int64_t>(1, tiles_.size())));
  keys_.resize(input.keys.size() * stride_);
  followers_ = tiles.grid && input.cluster_rows * input.cluster_cols > 1 &&
               std::find(input.multicast.begin(), input.multicast.end(), true) != input.multicast.end();
  follower_.assign(followers_ ? keys_.size() : 0, 0);
  wave_.footprints.resize(static_cast<std::size_t>(shape_.groups + (shape_.whole_stream ? 1 : 0)));
  own_.resize(static_cast<std::size_t>(shape_.groups));
  foreign_.resize(static_cast<std::size_t>(shape_.groups));
  loaded_ = nullptr;
  // Room for every wave one walk loads (its samples and the three waves before each: up to
  // about 30), so that the next plan with the same timing (another group_m or order, as a
  // search issues them) finds them all: the 180 bench plans 224 -> 221 M instructions.
  constexpr std::size_t kRecentWaves = 32;
  recent_.resize(kRecentWaves);
  if (shape_.tile_starts)  // measured starts are known by address only: none of them kept
    for (Phases& p : recent_) p.wave = -1;
}

// The phases of wave w (iterations after the wave's start): start times rising with launch
// position over the wave's width, or the measured ones (StreamShape::tile_starts), plus each
// tile's own drift within the tile (within_tile_drift). Sorted: `order` holds the tiles in the order they touch.
const StreamWalker::Phases& StreamWalker::phases_of(std::int64_t w, std::int64_t count, bool sorted) {
  const std::int64_t slots = shape_.slots, first = w * slots;
  const double drift = within_tile_drift(shape_.skew, k_);
  for (Phases& p : recent_)
    if (p.wave == w && p.count == count && p.slots == slots && p.steps == shape_.steps &&
        p.skew == shape_.skew.per_iteration && p.rate == shape_.skew.rate_sd &&
        p.growth == shape_.skew.wave_growth && p.coupling == shape_.skew.coupling && p.k == k_ &&
        p.starts == shape_.tile_starts) {
      if (sorted && p.order.empty() && count > 0) sort_phases(p);
      return p;
    }
  Phases& p = recent_[next_recent_];
  next_recent_ = (next_recent_ + 1) % recent_.size();
  p = {.slots = slots, .steps = shape_.steps, .wave = w, .count = count, .skew = shape_.skew.per_iteration, .rate = shape_.skew.rate_sd,
       .growth = shape_.skew.wave_growth, .k = k_, .coupling = shape_.skew.coupling, .starts = shape_.tile_starts,
       .phase = std::move(p.phase), .order = std::move(p.order)};
  const auto n = static_cast<std::size_t>(count);
  const double width = wave_width(w, shape_), start = static_cast<double>(w) * static_cast<double>(shape_.steps);
  const std::vector<double>* measured = shape_.tile_starts;
  const auto steps = static_cast<double>(shape_.steps);
  p.phase.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto pos = static_cast<std::size_t>(first) + i;
    double phase = measured && pos < measured->size() ? (*measured)[pos] * steps - start
                                                      : (start + width * (static_cast<double>(i) + 0.5) / static_cast<double>(slots)) - start;
    if (drift > 0) phase += drift * normal_of(first + static_cast<std::int64_t>(i));
    p.phase[i] = static_cast<float>(phase);
  }
  p.order.clear();
  if (sorted) sort_phases(p);
  return p;
}

// The keys of every tile of wave w, and its phases; the wave's size.
std::int64_t StreamWalker::load(std::int64_t w, bool sorted) {
  const std::int64_t first = w * shape_.slots;
  const std::int64_t count = std::min(tiles_.size(), first + shape_.slots) - first;
  const auto n = static_cast<std::size_t>(count);
  const std::size_t accesses = input_->keys.size();
  if (tiles_.ids) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t a = 0; a < accesses; ++a)
        keys_[a * stride_ + i] = input_->keys[a]->of_tile((*tiles_.ids)[static_cast<std::size_t>(first) + i]);
  } else {
    coords_.resize(n);
    tiles_.order->coordinates(*tiles_.grid, first, count, coords_.data());
    for (std::size_t a = 0; a < accesses; ++a)
      for (std::size_t i = 0; i < n; ++i) keys_[a * stride_ + i] = input_->keys[a]->of_coord(coords_[i]);
  }
  loaded_first_ = first;
  if (followers_) mark_followers(n);
  for (std::size_t a = 0; a < accesses; ++a)
    if (input_->keys[a]->count() > input_->dense_keys) number_keys(a, n);
  loaded_ = &phases_of(w, count, sorted);
  return count;
}

// The loaded wave's keys of access `a` as the numbers of their blocks in the order the walk met
// them (a new block gets the next number and a fresh slot in last_): the walk's memory grows
// with the blocks it touches, not with the tensor (StreamInput::dense_keys).
void StreamWalker::number_keys(std::size_t a, std::size_t n) {
  auto& numbers = dense_[a];
  std::int64_t& met = wave_.key_counts[a];
  const auto groups = static_cast<std::size_t>(shape_.groups);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t& key = keys_[a * stride_ + i];
    const auto [it, added] = numbers.try_emplace(key, met);
    if (added) {
      ++met;
      last_[a].resize(last_[a].size() + groups, -kNever);
    }
    key = it->second;
  }
}

// A tile is a follower of a multicast access where an earlier tile of its cluster (row-major
// within the cluster, inside the grid) reads the same block: that tile's multicast brings it.
void StreamWalker::mark_followers(std::size_t n) {
  const Planes grid = planes(*tiles_.grid);
  if (tiles_.ids) {
    coords_.resize(n);
    const auto first = static_cast<std::size_t>(loaded_first_);
    for (std::size_t i = 0; i < n; ++i) coords_[i] = coord_of(grid, (*tiles_.ids)[first + i]);
  }
  const std::int64_t cr = input_->cluster_rows, cc = input_->cluster_cols;
  for (std::size_t a = 0; a < input_->keys.size(); ++a) {
    if (!input_->multicast[a]) continue;
    const ReuseKeys& keys = *input_->keys[a];
    const auto leads = [&](const TileCoord& t, std::int64_t key) {
      for (std::int64_t r = t.row - t.row % cr; r < std::min(t.row - t.row % cr + cr, grid.rows); ++r)
        for (std::int64_t c = t.col - t.col % cc; c < std::min(t.col - t.col % cc + cc, grid.cols); ++c) {
          if (r == t.row && c == t.col) return true;
          if (keys.of_coord({.plane = t.plane, .row = r, .col = c}) == key) return false;
        }
      return true;
    };
    for (std::size_t i = 0; i < n; ++i) follower_[a * stride_ + i] = leads(coords_[i], keys_[a * stride_ + i]) ? 0 : 1;
  }
}

// Sorts the tiles by phase as std::sort would sort their keys, in about linear time: the
// phases spread smoothly over the wave, so with a bucket per tile (monotone in the phase) the
// buckets hold a tile or two, and one insertion pass by the whole key finishes them (it moves
// keys only within a bucket). Without drift the phases rise with the slot: no sort needed.
void StreamWalker::sort_phases(Phases& p) {
  const std::size_t n = p.phase.size();
  p.order.resize(n);
  for (std::size_t i = 0; i < n; ++i) p.order[i] = phase_key(p.phase[i], i);
  if (!shape_.tile_starts && !(shape_.skew.per_iteration * std::sqrt(k_) > 0)) return;
  const auto [lo, hi] = std::minmax_element(p.phase.begin(), p.phase.end());
  if (n < 16 || !(*hi > *lo)) {
    std::sort(p.order.begin(), p.order.end());
    return;
  }
  const double low = *lo, scale = static_cast<double>(n - 1) / (static_cast<double>(*hi) - low);
  const auto bucket = [&](std::size_t slot) {
    return std::min(n - 1, static_cast<std::size_t>((static_cast<double>(p.phase[slot]) - low) * scale));
  };
  starts_.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++starts_[bucket(i) + 1];
  for (std::size_t b = 0; b < n; ++b) starts_[b + 1] += starts_[b];
  sorted_.resize(n);
  for (const std::uint64_t key : p.order) sorted_[starts_[bucket(key & 0xffffffffU)]++] = key;
  for (std::size_t i = 1; i < n; ++i) {
    const std::uint64_t key = sorted_[i];
    std::size_t j = i;
    for (; j > 0 && sorted_[j - 1] > key; --j) sorted_[j] = sorted_[j - 1];
    sorted_[j] = key;
  }
  p.order.swap(sorted_);
}

void StreamWalker::warm(std::int64_t w) {
  const auto n = static_cast<std::size_t>(load(w, false));
  const double start = static_cast<double>(w) * static_cast<double>(shape_.steps);
  const auto groups = static_cast<std::size_t>(shape_.groups);
  const float* phase = loaded_->phase.data();
  for (std::size_t i = 0; i < n; ++i) {
    const auto group = static_cast<std::size_t>(shape_.group_of_slot[i]);
    for (std::size_t a = 0; a < input_->keys.size(); ++a) {
      if (followers_ && follower_[a * stride_ + i]) continue;  // asked nothing
      double& last = last_[a][static_cast<std::size_t>(keys_[a * stride_ + i]) * groups + group];
      last = std::max(last, start + static_cast<double>(phase[i]));  // unsorted: keep the latest
    }
  }
}

// The loaded wave's tiles touch their blocks in phase order: each touch's gaps since every
// group's last touch of the block, and its rate into its own group's footprint (where another
// group touched the block since, the share of it homed here counts from that touch: it is
// here already), its foreign one (the gap since any group's touch: what it adds to another
// partition, where a block the other group touched since is present already) and the whole
// stream's (replay() mixes the groups' near footprints). It runs for every access of every
// sampled wave: everything it reads is hoisted into locals, and the group count is a template
// argument for the common case (0: any).
template <std::size_t kGroups>
void StreamWalker::touch_all(double start, std::int64_t first) {
  const std::size_t accesses = input_->keys.size(), groups = kGroups ? kGroups : static_cast<std::size_t>(shape_.groups);
  const double unreused = input_->unreused_bytes_per_iteration, min_gap = min_gap_;
  WaveFootprint* whole = shape_.whole_stream ? &wave_.footprints.back() : nullptr;
  const std::int32_t* group_of = shape_.group_of_slot.data();
  const double* rates = input_->bytes_per_iteration.data();
  const double* revisit = input_->revisit_gap.size() == accesses ? input_->revisit_gap.data() : nullptr;
  const float* phase_in_wave = loaded_->phase.data();
  WaveFootprint* own_fp = own_.data();
  WaveFootprint* foreign_fp = shape_.foreign_share > 0 ? foreign_.data() : nullptr;  // mixed only at a share
  const double home = shape_.foreign_share;  // a partition's share of the lines: 1 / groups
  wave_.accesses.resize(loaded_->order.size() * accesses);
  StreamAccess* out = wave_.accesses.data();
  for (const std::uint64_t order_key : loaded_->order) {
    const auto slot = static_cast<std::size_t>(order_key & 0xffffffffU);
    const double phase = start + static_cast<double>(phase_in_wave[slot]);
    const std::int32_t group = group_of[slot];
    const auto own = static_cast<std::size_t>(group);
    own_fp[own].add_unreused(unreused);
    if (foreign_fp) foreign_fp[own].add_unreused(unreused);
    if (whole) whole->add_unreused(unreused);
    for (std::size_t a = 0; a < accesses; ++a, ++out) {
      const std::int64_t key = keys_[a * stride_ + slot];
      double* last = last_[a].data() + static_cast<std::size_t>(key) * groups;
      double gap_same = kNever, gap_other = kNever;
      for (std::size_t g = 0; g < groups; ++g) {
        const double gap = std::max(min_gap, phase - last[g]);
        if (g == own) gap_same = gap;
        else gap_other = std::min(gap_other, gap);
      }
      if (followers_ && follower_[a * stride_ + slot]) {  // asks nothing: no gaps, no footprint
        *out = {.pos = first + static_cast<std::int64_t>(slot), .key = key, .access = static_cast<std::int32_t>(a),
                .group = group, .gap_same = gap_same, .gap_other = gap_other, .follower = true};
        continue;
      }
      last[own] = phase;
      if (revisit && revisit[a] > 0) gap_same = std::min(gap_same, std::max(min_gap, revisit[a]));
      double within = 0;
      const std::size_t bin = WaveFootprint::locate(gap_same, within);
      *out = {.pos = first + static_cast<std::int64_t>(slot), .key = key, .access = static_cast<std::int32_t>(a), .group = group,
              .gap_same = gap_same, .gap_other = gap_other, .within_same = within, .bin_same = bin};
      if (foreign_fp && gap_other < gap_same) {
        // Of a block another group touched since, the share homed here is here already (that
        // group's miss brought it): those bytes count from its touch, the rest from this group's.
        own_fp[own].add(bin, gap_same, rates[a] * (1 - home));
        own_fp[own].add(gap_other, rates[a] * home);
        foreign_fp[own].add(gap_other, rates[a]);
        if (whole) whole->add(gap_other, rates[a]);
        continue;
      }
      own_fp[own].add(bin, gap_same, rates[a]);
      if (foreign_fp) foreign_fp[own].add(bin, gap_same, rates[a]);  // gap_same: after revisits
      if (whole) whole->add(std::min(gap_same, gap_other), rates[a]);
    }
  }
}

const WaveStream& StreamWalker::replay(std::int64_t w, std::int32_t sample) {
  load(w, true);
  wave_.sample = sample;
  for (auto& fp : own_) fp.clear();
  for (auto& fp : foreign_) fp.clear();
  if (shape_.whole_stream) wave_.footprints.back().clear();
  const double start = static_cast<double>(w) * static_cast<double>(shape_.steps);
  if (shape_.groups == 2) touch_all<2>(start, w * shape_.slots);
  else touch_all<0>(start, w * shape_.slots);
  for (std::size_t g = 0; g < own_.size(); ++g) wave_.footprints[g].mix(own_, foreign_, g, shape_.foreign_share);
  for (auto& fp : wave_.footprints) fp.finish();
  return wave_;
}

}  // namespace detail

}  // namespace tilesight::cache
