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
  const std::int64_t cols = n >= 1 ? grid.dims[n - 1].extent : 1, rows = n >= 2 ? grid.dims[n - 2].extent : 1;
  plane_tiles_ = rows * cols;
  row_step_ = rows > 1 ? of_tile(cols) : 0;
  col_step_ = cols > 1 ? of_tile(1) : 0;
}

void WaveFootprint::clear() {
  rate_.fill(0.0);
  gap_rate_.fill(0.0);
  unreused_rate_ = 0;
}

void WaveFootprint::finish() {
  below_[0] = 0;
  above_[kBins] = 0;
  for (std::size_t b = 0; b < kBins; ++b) below_[b + 1] = below_[b] + gap_rate_[b];
  for (std::size_t b = kBins; b-- > 0;) above_[b] = above_[b + 1] + rate_[b];
}

void WaveFootprint::mix(const std::vector<WaveFootprint>& own, const std::vector<WaveFootprint>& foreign,
                        std::size_t mine, double share) {
  rate_ = own[mine].rate_;
  gap_rate_ = own[mine].gap_rate_;
  unreused_rate_ = own[mine].unreused_rate_;
  if (!(share > 0)) return;
  for (std::size_t g = 0; g < foreign.size(); ++g) {
    if (g == mine) continue;
    for (std::size_t b = 0; b < kBins; ++b) {
      rate_[b] += share * foreign[g].rate_[b];
      gap_rate_[b] += share * foreign[g].gap_rate_[b];
    }
    unreused_rate_ += share * foreign[g].unreused_rate_;
  }
}

// A window w of bin b lies under the start of bin b + 1, at most 5/4 w (bins are quarter
// octaves) unless w is under 2^-16, and so do the gaps of the bins up to b; hence
// bytes(w) <= start(b + 1) * (sum of rates + unreused) <= 5/4 w (...). Past 2^-15 only, so
// that windows under 2^-16 (which share bins 0-3) stay below the limit as well.
double WaveFootprint::sure_below(double limit) const {
  const double all = above_[0] + unreused_rate_;
  if (!(all > 0)) return kNever;
  const double below = limit / (1.25 * all);
  return below >= bin_start(2 * kBinsPerOctave) ? below : 0.0;  // 2^-14
}

// bytes() at the start of each bin rises with the bin (the gaps of bin b are at least its
// start), and bytes(w) >= bytes(start of w's bin): the first bin whose start reaches the limit
// bounds every window from there on. Windows past 2^32 fall in bins 188-191 whatever their
// size, so the bound holds only from bin 188 down; under 2^-15 it is not tried.
double WaveFootprint::sure_from(double limit) const {
  const auto at_start = [&](std::size_t b) { return below_[b] + bin_start(b) * (above_[b] + unreused_rate_); };
  constexpr std::size_t kFirst = kBinsPerOctave, kLast = static_cast<std::size_t>(kBinsPerOctave * (kOctaves - 1));
  if (!(at_start(kLast) >= limit)) return kNever;
  std::size_t lo = kFirst, hi = kLast;  // at_start(hi) >= limit
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (at_start(mid) >= limit) hi = mid;
    else lo = mid + 1;
  }
  return bin_start(lo);
}

double WaveFootprint::bytes(double window) const {
  double within = 0;
  const std::size_t b = window > 0 && !std::isinf(window) ? locate(window, within) : 0;
  return bytes(window, b, within);
}

std::vector<WaveSample> sample_waves(std::int64_t tiles, std::int64_t slots, std::int64_t max_waves) {
  slots = std::max<std::int64_t>(1, slots);
  const std::int64_t full = tiles / slots, tail = tiles % slots;
  std::vector<WaveSample> samples;
  if (max_waves <= 0 || full <= max_waves + 1) {
    for (std::int64_t w = 0; w < full; ++w) samples.push_back({w, 1.0});
  } else {
    // The first wave stands for itself: its cold misses happen once, not once per wave it
    // would stand for. The others evenly spread over waves 1 .. full - 1, both ends included,
    // each standing for the waves nearest it.
    samples.push_back({0, 1.0});
    const std::int64_t n = std::max<std::int64_t>(2, max_waves), span = full - 2;
    for (std::int64_t i = 0; i < n; ++i) samples.push_back({1 + (i * span + (n - 1) / 2) / (n - 1), 0.0});
    for (std::int64_t w = 1; w < full; ++w) {
      std::size_t best = 0;
      for (std::size_t i = 1; i < samples.size(); ++i)
        if (std::abs(samples[i].wave - w) < std::abs(samples[best].wave - w)) best = i;
      samples[best].weight += 1;
    }
  }
  if (tail > 0) samples.push_back({full, 1.0});
  return samples;
}

}  // namespace tilesight::cache
