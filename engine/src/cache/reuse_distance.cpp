#include "tilesight/cache/reuse_distance.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace tilesight::cache {

ReuseKeys::ReuseKeys(const plan::TileGrid& grid, const plan::TensorAccess& access) {
  const std::size_t n = grid.dims.size();
  std::vector<bool> kept(n, true);
  for (const auto& d : access.reuse_dims)
    if (auto i = grid.dim_index(d)) kept[*i] = false;
  std::int64_t stride = 1;  // tile ids are row-major over grid.dims: the last dim is fastest
  for (std::size_t i = n; i-- > 0;) {
    const std::int64_t extent = std::max<std::int64_t>(1, grid.dims[i].extent);
    if (kept[i] && extent > 1) {
      kept_.push_back({stride, extent, count_});
      count_ *= extent;
    }
    stride *= extent;
  }
}

namespace {

constexpr int kBinsPerOctave = 4;
constexpr int kLowestOctave = -16;  // 2^-16 iterations: far below one request slot
constexpr int kOctaves = 48;
constexpr std::size_t kBins = static_cast<std::size_t>(kBinsPerOctave * kOctaves) + 1;  // + never reused

// Bin of a gap and where it sits inside (0..1); gaps past the top share the last finite bin.
std::size_t bin_of(double gap, double* within = nullptr) {
  if (std::isinf(gap)) return kBins - 1;
  // gap = m * 2^e with m in [1, 2), read off the IEEE-754 bits (gap > 0, normal).
  const auto bits = std::bit_cast<std::uint64_t>(std::max(gap, 1e-300));
  const int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const double m = std::bit_cast<double>((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
  const double sub = (m - 1) * kBinsPerOctave;
  const int octave = std::clamp(e - kLowestOctave, 0, kOctaves - 1);
  const double at = octave * kBinsPerOctave + std::min(sub, kBinsPerOctave - 1e-9);
  const double clamped = std::clamp(at, 0.0, static_cast<double>(kBins - 2) + 0.999999);
  if (within) *within = clamped - std::floor(clamped);
  return static_cast<std::size_t>(clamped);
}

}  // namespace

WaveFootprint::WaveFootprint() : rate_(kBins, 0.0), gap_rate_(kBins, 0.0) {}

void WaveFootprint::clear() {
  std::fill(rate_.begin(), rate_.end(), 0.0);
  std::fill(gap_rate_.begin(), gap_rate_.end(), 0.0);
  unreused_rate_ = 0;
}

std::size_t WaveFootprint::bin(double gap) { return bin_of(gap); }

void WaveFootprint::add(std::size_t bin, double gap, double bytes_per_iteration) {
  rate_[bin] += bytes_per_iteration;
  if (bin + 1 < kBins) gap_rate_[bin] += gap * bytes_per_iteration;
}

void WaveFootprint::finish() {
  below_.assign(kBins + 1, 0.0);
  above_.assign(kBins + 1, 0.0);
  for (std::size_t b = 0; b < kBins; ++b) below_[b + 1] = below_[b] + gap_rate_[b];
  for (std::size_t b = kBins; b-- > 0;) above_[b] = above_[b + 1] + rate_[b];
}

double WaveFootprint::bytes(double window) const {
  if (!(window > 0)) return 0;
  if (std::isinf(window)) return kNever;
  // Bins below the window's count their gaps, bins above count the window; the window's own
  // bin is split by where the window sits in it.
  double within = 0;
  const std::size_t b = bin_of(window, &within);
  const double own = within * gap_rate_[b] + (1 - within) * window * rate_[b];
  return below_[b] + own + window * (above_[b + 1] + unreused_rate_);
}

namespace {

// The phase of launch position `pos` (iterations): waves one tile apart, and within a wave,
// start times rising with launch position over `width` iterations (SkewModel).
double phase_of(std::int64_t pos, const StreamShape& s, double width) {
  const auto w = static_cast<double>(pos / s.slots);
  return w * static_cast<double>(s.steps) + width * (static_cast<double>(pos % s.slots) + 0.5) /
                                                static_cast<double>(s.slots);
}

double wave_width(std::int64_t w, const StreamShape& s) {
  const double steps = static_cast<double>(s.steps), drift = s.skew.per_iteration;
  return std::clamp(drift * std::sqrt(12.0 * static_cast<double>(w) * steps), 1.0, std::max(1.0, steps));
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

struct Phased {
  float phase_in_wave;  // iterations after the wave's start
  std::int32_t slot;
};

// The phases of one wave at iteration k in the order they touch their blocks: start times
// rising with launch position, plus each tile's own drift within the tile (random walk of sd
// per_iteration * sqrt(k)), sorted.
std::vector<Phased> wave_phases(std::int64_t first, std::int64_t last, const StreamShape& s, double k,
                                bool sorted = true) {
  const double width = wave_width(first / s.slots, s), drift = s.skew.per_iteration * std::sqrt(k);
  std::vector<Phased> wave(static_cast<std::size_t>(last - first));
  for (std::int64_t pos = first; pos < last; ++pos) {
    double p = phase_of(pos, s, width) - phase_of(first, s, 0);
    if (drift > 0) p += drift * normal_of(pos);
    wave[static_cast<std::size_t>(pos - first)] = {static_cast<float>(p), static_cast<std::int32_t>(pos - first)};
  }
  if (drift > 0 && sorted)
    std::sort(wave.begin(), wave.end(), [](const Phased& a, const Phased& b) { return a.phase_in_wave < b.phase_in_wave; });
  return wave;
}

}  // namespace

std::vector<WaveSample> sample_waves(std::int64_t tiles, std::int64_t slots, std::int64_t max_waves) {
  slots = std::max<std::int64_t>(1, slots);
  const std::int64_t full = tiles / slots, tail = tiles % slots;
  std::vector<WaveSample> samples;
  if (max_waves <= 0 || full <= max_waves) {
    for (std::int64_t w = 0; w < full; ++w) samples.push_back({w, 1.0});
  } else {
    // Evenly spread, first and last full wave included; each stands for the waves nearest it.
    const std::int64_t n = std::max<std::int64_t>(2, max_waves);
    for (std::int64_t i = 0; i < n; ++i) samples.push_back({(i * (full - 1) + (n - 1) / 2) / (n - 1), 0.0});
    for (std::int64_t w = 0; w < full; ++w) {
      std::size_t best = 0;
      for (std::size_t i = 1; i < samples.size(); ++i)
        if (std::abs(samples[i].wave - w) < std::abs(samples[best].wave - w)) best = i;
      samples[best].weight += 1;
    }
  }
  if (tail > 0) samples.push_back({full, 1.0});
  return samples;
}

namespace {

std::int32_t group_of(const StreamShape& s, std::int64_t slot) {
  return s.group_of_slot.empty() ? static_cast<std::int32_t>(slot % s.groups)
                                 : s.group_of_slot[static_cast<std::size_t>(slot)];
}

// An access adds its rate to its own group's near footprint, to every other group's by the
// foreign share, and to the whole stream's.
void add_to_footprints(const StreamShape& s, WaveStream& w, const StreamAccess& sa, double rate) {
  const std::size_t bin = WaveFootprint::bin(sa.gap_same);
  for (std::int32_t g = 0; g < static_cast<std::int32_t>(s.groups); ++g) {
    const double share = g == sa.group ? 1.0 : s.foreign_share;
    if (share > 0) w.footprints[static_cast<std::size_t>(g)].add(bin, sa.gap_same, rate * share);
  }
  if (s.whole_stream) w.footprints.back().add(std::min(sa.gap_same, sa.gap_other), rate);
}

void add_unreused(const StreamShape& s, WaveStream& w, std::int32_t group, double rate) {
  if (!(rate > 0)) return;
  for (std::int32_t g = 0; g < static_cast<std::int32_t>(s.groups); ++g)
    w.footprints[static_cast<std::size_t>(g)].add_unreused(rate * (g == group ? 1.0 : s.foreign_share));
  if (s.whole_stream) w.footprints.back().add_unreused(rate);
}

}  // namespace

namespace detail {

StreamWalker::StreamWalker(const std::vector<std::int64_t>& order, const StreamInput& input,
                           const StreamShape& shape, double k_fraction)
    : order_(order), input_(input), shape_(shape) {
  shape_.slots = std::max<std::int64_t>(1, shape_.slots);
  shape_.groups = std::max<std::int64_t>(1, shape_.groups);
  k_ = k_fraction * static_cast<double>(shape_.steps);
  last_.resize(input.keys.size());
  for (std::size_t a = 0; a < input.keys.size(); ++a)
    last_[a].assign(static_cast<std::size_t>(shape_.groups * input.keys[a]->count()), -kNever);
  wave_.footprints.resize(static_cast<std::size_t>(shape_.groups + (shape_.whole_stream ? 1 : 0)));
}

void StreamWalker::warm(std::int64_t w) {
  const auto n = static_cast<std::int64_t>(order_.size());
  const std::int64_t slots = shape_.slots;
  const double start = phase_of(w * slots, shape_, 0);
  for (const Phased& t : wave_phases(w * slots, std::min(n, (w + 1) * slots), shape_, k_, false)) {
    const std::int64_t tile = order_[static_cast<std::size_t>(w * slots + t.slot)];
    const std::int32_t group = group_of(shape_, t.slot);
    for (std::size_t a = 0; a < input_.keys.size(); ++a) {
      auto& last = last_[a][static_cast<std::size_t>(group * input_.keys[a]->count() + input_.keys[a]->of_tile(tile))];
      last = std::max(last, start + t.phase_in_wave);  // unsorted: keep the latest
    }
  }
}

const WaveStream& StreamWalker::replay(std::int64_t w, std::int32_t sample) {
  const auto n = static_cast<std::int64_t>(order_.size());
  const std::int64_t slots = shape_.slots, groups = shape_.groups;
  const double min_gap = 1.0 / static_cast<double>(slots);  // one request slot of an iteration
  const double start = phase_of(w * slots, shape_, 0);
  wave_.sample = sample;
  wave_.accesses.clear();
  for (auto& fp : wave_.footprints) fp.clear();
  for (const Phased& t : wave_phases(w * slots, std::min(n, (w + 1) * slots), shape_, k_)) {
    const double phase = start + t.phase_in_wave;
    const std::int32_t group = group_of(shape_, t.slot);
    add_unreused(shape_, wave_, group, input_.unreused_bytes_per_iteration);
    const std::int64_t tile = order_[static_cast<std::size_t>(w * slots + t.slot)];
    for (std::size_t a = 0; a < input_.keys.size(); ++a) {
      const std::int64_t keys = input_.keys[a]->count(), key = input_.keys[a]->of_tile(tile);
      StreamAccess sa{.pos = w * slots + t.slot, .access = static_cast<std::int32_t>(a), .group = group};
      for (std::int64_t g = 0; g < groups; ++g) {
        double& last = last_[a][static_cast<std::size_t>(g * keys + key)];
        const double gap = std::max(min_gap, phase - last);
        if (g != group) {
          sa.gap_other = std::min(sa.gap_other, gap);
          continue;
        }
        sa.gap_same = gap;
        last = phase;
      }
      add_to_footprints(shape_, wave_, sa, input_.bytes_per_iteration[a]);
      wave_.accesses.push_back(sa);
    }
  }
  for (auto& fp : wave_.footprints) fp.finish();
  return wave_;
}

}  // namespace detail

}  // namespace tilesight::cache
