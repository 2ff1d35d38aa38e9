// Tile reuse distance over the concurrent access stream (§3.5.1-3.5.3).
//
// Reuse keys (eq. 6): a tile's key for one tensor access is its grid coordinate projected off
// the access's reuse_dims; with a loop, each iteration touches block (key, iteration).
//
// The stream. Tiles launch in the order's sequence onto `slots` resident CTAs (SMs x
// resident blocks); wave w holds launch positions [w slots, (w+1) slots). Tiles in flight
// advance through the reduction loop together, so iteration k of every tile in flight touches
// its blocks (key, k) at about the same time: time is counted in iterations, and tile p
// touches (key, k) at phase(p) + k. The phases of a wave rise with launch position (the
// block scheduler hands the next tile to whichever slot frees first) and spread over the
// drift the slots have accumulated (SkewModel, §5.3). Every k-slice repeats the same pattern
// of keys, so the reuse *time* of block (key, k) is the phase gap to the previous tile with
// the same key whatever k is; only the skew depends on k, which is why the reduction axis is
// sampled at a few k (§3.5.2, last paragraph) rather than walked.
//
// The reuse *distance* D_T of a gap g is the footprint of the stream over a window of g
// iterations, the distinct bytes touched in between. With per-iteration byte rates r and the
// reuse gaps of the tiles in flight, fp(g) = sum over in-flight accesses of r * min(gap, g)
// (each access adds new bytes only for the part of the window its block was not touched in
// already); divided by the block's bytes it is D_T in tile units.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "tilesight/plan/tile_program.h"

namespace tilesight::cache {

inline constexpr double kNever = std::numeric_limits<double>::infinity();

// Eq. 6: a tile's reuse key for one access, its grid coordinate projected off reuse_dims and
// linearized, computed from the tile id (row-major over grid.dims) when asked.
class ReuseKeys {
 public:
  ReuseKeys(const plan::TileGrid& grid, const plan::TensorAccess& access);
  std::int64_t count() const { return count_; }  // product of the non-reuse extents
  std::int64_t of_tile(std::int64_t tile) const {
    std::int64_t key = 0;
    for (const Dim& d : kept_) key += (tile / d.stride) % d.extent * d.scale;
    return key;
  }

 private:
  struct Dim {
    std::int64_t stride, extent, scale;  // tile-id stride of the dim, its extent, its key stride
  };
  std::vector<Dim> kept_;
  std::int64_t count_ = 1;
};

// Inter-SM skew (§5.3): iteration times vary by `per_iteration` iterations (standard
// deviation), so after n iterations two slots are apart by a random walk of sd
// per_iteration * sqrt(n). A wave's start times spread uniformly over sqrt(12) times the
// slots' drift (at least one iteration, at most one tile); within the tile each one drifts on.
struct SkewModel {
  double per_iteration = 0;  // 0: lockstep
};

struct StreamShape {
  std::int64_t slots = 1;                    // tiles in flight at once
  std::int64_t groups = 1;                   // SM groups, each with its own near cache
  std::vector<std::int32_t> group_of_slot;   // slot -> group; empty: slot % groups
  std::int64_t steps = 1;                    // iterations of the reduction loop per tile (time unit)
  SkewModel skew;
  // Share of every other group's stream that also flows through a group's near cache (an L2
  // partition holds the lines homed there that other groups look up: 1 / groups).
  double foreign_share = 0;
  bool whole_stream = false;                 // also keep all groups' footprint together
};

// Waves evaluated along the grid (the stream is sampled over waves as well as along the
// reduction axis): each stands for `weight` waves like it. The wave before each sample is
// replayed too, untallied, so that reuse from the previous wave is seen.
struct WaveSample {
  std::int64_t wave = 0;
  double weight = 1;
};
// All full waves when there are at most max_waves (0: no limit); otherwise max_waves of them
// evenly spread, each standing for the waves nearest to it; the tail wave always on its own.
std::vector<WaveSample> sample_waves(std::int64_t tiles, std::int64_t slots, std::int64_t max_waves);

// One access of a sampled wave: the tile at launch position `pos` touching its block of
// access `access`.
struct StreamAccess {
  std::int64_t pos = 0;
  std::int32_t access = 0;
  std::int32_t group = 0;
  double gap_same = kNever;   // iterations since the same block was touched by this group
  double gap_other = kNever;  // ... by any other group
};

// Distinct bytes over a window of g iterations: fp(g) = sum r * min(gap, g). Gaps are kept in
// quarter-octave bins (a sort-free histogram: the footprint is smooth in g), so adding is O(1)
// and a query is O(1) after finish(). Accesses never reused (stores) add to every window.
class WaveFootprint {
 public:
  WaveFootprint();
  void clear();
  void add(double gap, double bytes_per_iteration) { add(bin(gap), gap, bytes_per_iteration); }
  void add(std::size_t bin, double gap, double bytes_per_iteration);  // bin = bin(gap)
  static std::size_t bin(double gap);
  void add_unreused(double bytes_per_iteration) { unreused_rate_ += bytes_per_iteration; }
  void finish();  // after the last add, before bytes()
  double bytes(double window) const;

 private:
  std::vector<double> rate_, gap_rate_;  // per bin: sum r, sum r * gap
  std::vector<double> below_, above_;    // after finish(): sum r * gap below bin b, sum r from b on
  double unreused_rate_ = 0;
};

// One sampled wave of one k-slice: its accesses in phase order and its footprints, one per
// SM group's near cache (own stream plus foreign share), then the whole stream's when
// StreamShape::whole_stream.
struct WaveStream {
  std::int32_t sample = 0;  // index into the WaveSamples
  std::vector<StreamAccess> accesses;
  std::vector<WaveFootprint> footprints;
  const WaveFootprint& near(std::int32_t group) const { return footprints[static_cast<std::size_t>(group)]; }
  const WaveFootprint& whole() const { return footprints.back(); }
};

// Per access of the program: its keys, and the bytes a tile moves per iteration of the
// reduction loop (the block's bytes times its executions per tile, over `steps`). Accesses
// never reused (stores) only add `unreused_bytes_per_iteration` per tile to the footprints.
struct StreamInput {
  std::vector<const ReuseKeys*> keys;
  std::vector<double> bytes_per_iteration;
  double unreused_bytes_per_iteration = 0;
};

// Walks the stream at iteration k_fraction * steps of every tile (k_fraction in [0, 1)) over
// the sampled waves, handing each sampled wave to `visit` (the wave is reused afterwards).
template <class Visit>
void walk_stream(const std::vector<std::int64_t>& order, const StreamInput& input, const StreamShape& shape,
                 double k_fraction, const std::vector<WaveSample>& waves, Visit&& visit);

namespace detail {
class StreamWalker {
 public:
  StreamWalker(const std::vector<std::int64_t>& order, const StreamInput& input, const StreamShape& shape,
               double k_fraction);
  void warm(std::int64_t wave);  // the wave before a sample: only its last touches matter
  const WaveStream& replay(std::int64_t wave, std::int32_t sample);

 private:
  const std::vector<std::int64_t>& order_;
  const StreamInput& input_;
  StreamShape shape_;
  double k_ = 0;
  std::vector<std::vector<double>> last_;  // [access][group * keys + key]: phase of the last touch
  WaveStream wave_;
};
}  // namespace detail

template <class Visit>
void walk_stream(const std::vector<std::int64_t>& order, const StreamInput& input, const StreamShape& shape,
                 double k_fraction, const std::vector<WaveSample>& waves, Visit&& visit) {
  detail::StreamWalker walker(order, input, shape, k_fraction);
  std::int64_t replayed = -1;
  for (std::size_t i = 0; i < waves.size(); ++i) {
    const std::int64_t w = waves[i].wave;
    if (w > 0 && w - 1 > replayed) walker.warm(w - 1);
    visit(walker.replay(w, static_cast<std::int32_t>(i)));
    replayed = w;
  }
}

}  // namespace tilesight::cache
