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

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <unordered_map>
#include <vector>

#include "tilesight/cache/launch_order.h"
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
  // The same from the tile's coordinates (launch_order.h): linear in row and column.
  std::int64_t of_coord(const TileCoord& t) const {
    return (t.plane == 0 ? 0 : of_tile(t.plane * plane_tiles_)) + t.row * row_step_ + t.col * col_step_;
  }

 private:
  struct Dim {
    std::int64_t stride, extent, scale;  // tile-id stride of the dim, its extent, its key stride
  };
  std::vector<Dim> kept_;
  std::int64_t count_ = 1;
  std::int64_t plane_tiles_ = 1, row_step_ = 0, col_step_ = 0;  // of_coord's
};

// Inter-SM skew (§5.3): iteration times vary by `per_iteration` iterations (standard
// deviation), so after n iterations two slots are apart by a random walk of sd
// per_iteration * sqrt(n). Tiles whose loads queue also run at speeds of their own: a tile's
// time varies by `rate_sd` of itself, so w tiles into the launch two slots are apart by
// rate_sd * steps * sqrt(w) more. A wave's start times spread uniformly over sqrt(12) times
// the slots' drift (at least the first wave's 0.1 iteration, at most one tile); within the
// tile each one drifts on, bounded by the catch-up of tiles that fall behind
// (stream_walker.cpp).
struct SkewModel {
  double per_iteration = 0;  // 0: lockstep
  double rate_sd = 0;        // relative sd of a tile's time (0: tiles keep pace)
  double wave_growth = 0;    // share of a tile each wave's start spread widens by (0: the rate_sd walk)
  // A loop one stage ahead: its own speed times the first wave's footprint over the L2 (x,
  // stream_shape.cpp). Its waves hold together for the first waves and part later: the share
  // of rate_sd that wave w adds, held_rate_share (0: all of it, every wave).
  double coupling = 0;
  // The wave from which such a loop keeps its whole own speed however few waves it has run: the
  // launch has run long enough for a laggard to run away (stream_shape.cpp, runaway_wave; 0: none).
  double onset_waves = 0;
};

// The share of rate_sd that wave w (1: the second wave) adds to the walk (SkewModel::coupling);
// the waves after the first that add none, and the first that adds all of it (0 without a
// coupling).
double held_rate_share(const SkewModel& skew, std::int64_t w);
std::int64_t held_waves(const SkewModel& skew);
std::int64_t parted_wave(const SkewModel& skew);

// A tile's drift after k iterations of its loop (sd, iterations): the per_iteration walk,
// bounded by the catch-up of tiles that fall behind (stream_walker.cpp).
double within_tile_drift(const SkewModel& skew, double k);

struct StreamShape {
  std::int64_t slots = 1;                    // tiles in flight at once
  std::int64_t groups = 1;                   // SM groups, each with its own near cache
  std::vector<std::int32_t> group_of_slot;   // slot -> group; empty: slot % groups
  // slot -> the GPC whose request coalescer its reads pass (merge domains, 0..domains - 1);
  // empty: reads merge across the slot's whole group (hw::CacheLevel::grid_gpc).
  std::vector<std::int8_t> domain_of_slot;
  std::int32_t domains = 0;
  std::int64_t steps = 1;                    // iterations of the reduction loop per tile (time unit)
  SkewModel skew;
  double fill_window = 0;                    // iterations a miss stays in flight (0: none)
  double hit_window = 0;                     // iterations a hit's read stays open to merges (0: none)
  double race_window = 0;                    // iterations a line's home side reads it first (l2.home_race_ns; 0: none)
  // Bytes the launch's CTAs keep in flight: the resident tiles (the whole grid where it fits)
  // x the iterations a load runs ahead x a tile's loads of an iteration.
  double bytes_in_flight = 0;
  // A loop one stage ahead: the tiles' own speed before their wave held them together, and the
  // bytes the first wave reads over the loop, its footprint (stream_shape.cpp, coupled_rate_sd);
  // 0 where the rule does not apply.
  double own_rate_sd = 0;
  double wave_footprint = 0;
  // Share of every other group's stream that also flows through a group's near cache (an L2
  // partition holds the lines homed there that other groups look up: 1 / groups).
  double foreign_share = 0;
  bool whole_stream = false;                 // also keep all groups' footprint together
  // Measured start of each launch position, in tile times from the launch's first start
  // (SdcmOptions::tile_starts); null or short: the model's wave widths for the rest.
  const std::vector<double>* tile_starts = nullptr;
};

// Waves evaluated along the grid (the stream is sampled over waves as well as along the
// reduction axis): each stands for `weight` waves like it. The three waves before each sample are
// replayed too, untallied (their last touches), so that reuse from them is seen.
struct WaveSample {
  std::int64_t wave = 0;
  double weight = 1;
};
// All full waves when there are at most max_waves + 1 (0: no limit); otherwise the first wave
// on its own (cold misses happen once) and max_waves of the others evenly spread, each
// standing for the waves nearest to it; the tail wave always on its own.
std::vector<WaveSample> sample_waves(std::int64_t tiles, std::int64_t slots, std::int64_t max_waves);

// Distinct bytes over a window of g iterations: fp(g) = sum r * min(gap, g). Gaps are kept in
// quarter-octave bins (a sort-free histogram: the footprint is smooth in g), so adding is O(1)
// and a query is O(1) after finish(). Accesses never reused (stores) add to every window.
class WaveFootprint {
 public:
  static constexpr int kBinsPerOctave = 4;
  static constexpr int kLowestOctave = -16;  // 2^-16 iterations: far below one request slot
  static constexpr int kOctaves = 48;
  static constexpr std::size_t kBins = static_cast<std::size_t>(kBinsPerOctave * kOctaves) + 1;  // + never reused

  void clear();
  void add(double gap, double bytes_per_iteration) { add(bin(gap), gap, bytes_per_iteration); }
  void add(std::size_t bin, double gap, double bytes_per_iteration) {  // bin = bin(gap)
    rate_[bin] += bytes_per_iteration;
    if (bin + 1 < kBins) gap_rate_[bin] += gap * bytes_per_iteration;
  }
  static std::size_t bin(double gap) {
    double within = 0;
    return locate(gap, within);
  }
  // The bin of a gap and where it sits inside (0..1); gaps past the top share the last
  // finite bin, an infinite gap is "never reused" (within unchanged).
  static std::size_t locate(double gap, double& within);
  void add_unreused(double bytes_per_iteration) { unreused_rate_ += bytes_per_iteration; }
  void finish();  // after the last add, before bytes()
  // Replaces this footprint by own[mine] plus `share` of every other group's foreign one
  // (before finish()): a group's near cache sees its own stream and the share of the others'
  // homed there. A foreign footprint counts each touch's gap since the block's last touch by
  // any group: a block the near group touched in the window is there already, and the other
  // group's reads of it add no bytes (StreamWalker::touch_all).
  void mix(const std::vector<WaveFootprint>& own, const std::vector<WaveFootprint>& foreign, std::size_t mine,
           double share);
  double bytes(double window) const;
  // The same with the window's locate() already known.
  double bytes(double window, std::size_t bin, double within) const {
    if (!(window > 0)) return 0;
    if (std::isinf(window)) return kNever;
    // Bins below the window's count their gaps, bins above count the window; the window's own
    // bin is split by where the window sits in it.
    const double own = within * gap_rate_[bin] + (1 - within) * window * rate_[bin];
    return below_[bin] + own + window * (above_[bin + 1] + unreused_rate_);
  }
  // After finish(), windows that bound bytes() for a level of bytes (SDCM's sure-hit and
  // sure-miss distances): every window below sure_below(b) gives bytes() <= b, every window
  // from sure_from(b) on gives bytes() >= b. Conservative: a window between may go either way.
  double sure_below(double limit) const;
  double sure_from(double limit) const;

 private:
  std::array<double, kBins> rate_{}, gap_rate_{};      // per bin: sum r, sum r * gap
  std::array<double, kBins + 1> below_{}, above_{};    // after finish(): sum r * gap below bin b, sum r from b on
  double unreused_rate_ = 0;
};

// The lowest window of bin b (bins below 4 also hold every window under 2^-16, and bins 188
// and up every window past 2^32).
inline double bin_start(std::size_t b) {  // 2^(b / 4 - 16) * (1 + (b % 4) / 4), from its bits
  const auto exponent = static_cast<std::uint64_t>(static_cast<int>(b) / WaveFootprint::kBinsPerOctave +
                                                   WaveFootprint::kLowestOctave + 1023);
  return std::bit_cast<double>(exponent << 52 | static_cast<std::uint64_t>(b % WaveFootprint::kBinsPerOctave) << 50);
}

inline std::size_t WaveFootprint::locate(double gap, double& within) {
  if (std::isinf(gap)) return kBins - 1;
  // gap = m * 2^e with m in [1, 2), read off the IEEE-754 bits (gap > 0, normal): the octave
  // from e, the quarter from m's top two bits, where it sits inside from the rest.
  constexpr int kQuarterShift = 50;
  constexpr std::uint64_t kRest = (std::uint64_t{1} << kQuarterShift) - 1;
  const auto bits = std::bit_cast<std::uint64_t>(std::max(gap, 1e-300));
  const int octave = std::clamp(static_cast<int>((bits >> 52) & 0x7ff) - 1023 - kLowestOctave, 0, kOctaves - 1);
  const auto quarter = static_cast<int>((bits >> kQuarterShift) & 3);
  within = static_cast<double>(bits & kRest) * (1.0 / static_cast<double>(kRest + 1));
  if (quarter == kBinsPerOctave - 1) within = std::min(within, 1 - 1e-9);  // short of the next octave
  const auto b = static_cast<std::size_t>(octave * kBinsPerOctave + quarter);
  if (b == kBins - 2) within = std::min(within, 0.999999);  // past the top: the last finite bin
  return b;
}

// One access of a sampled wave: the tile at launch position `pos` touching its block of
// access `access`.
struct StreamAccess {
  std::int64_t pos = 0;
  std::int64_t key = 0;  // the block's reuse key
  std::int32_t access = 0;
  std::int32_t group = 0;
  double gap_same = kNever;   // iterations since the same block was touched by this group
  double gap_other = kNever;  // ... by any other group
  double within_same = 0;     // WaveFootprint::locate(gap_same)
  std::size_t bin_same = WaveFootprint::kBins - 1;
  // A tile of a cluster that receives this block through another tile's multicast: it asks L2
  // nothing, and its touch changes no gaps or footprints (StreamInput::multicast).
  bool follower = false;
};

// One sampled wave of one k-slice: its accesses in phase order and its footprints, one per
// SM group's near cache (own stream plus foreign share), then the whole stream's when
// StreamShape::whole_stream.
struct WaveStream {
  std::int32_t sample = 0;  // index into the WaveSamples
  std::vector<StreamAccess> accesses;
  // Per access: the keys a touch's StreamAccess::key can take so far (all of ReuseKeys::count,
  // or, where the walker numbers a large key space's blocks as it meets them, those met).
  std::vector<std::int64_t> key_counts;
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
  // Per access: the gap (stream iterations) at which its tile read the block before, through
  // another access (TensorAccess::revisit); 0: none. A touch's own-group gap is at most it.
  std::vector<double> revisit_gap;
  double unreused_bytes_per_iteration = 0;
  // Per access: whether its loads are TMA multicasts within the clusters (none: empty), and the
  // clusters' rows x columns of the grid. Of a cluster's tiles reading one block, the first in
  // the cluster's row-major order asks for it; the others are followers (StreamAccess).
  std::vector<bool> multicast;
  std::int64_t cluster_rows = 1, cluster_cols = 1;
  // Keys of an access past which the walk numbers the blocks it meets rather than keep a slot
  // for every one (SdcmOptions::dense_keys).
  std::int64_t dense_keys = std::int64_t{1} << 18;
};

// The tiles the stream launches: a launch order over a grid, asked a wave at a time
// (TileLaunchOrder::coordinates), or a whole sequence of tile ids.
struct TileSequence {
  const std::vector<std::int64_t>* ids = nullptr;  // launch position -> tile id
  const TileLaunchOrder* order = nullptr;          // when ids is null, with grid
  const plan::TileGrid* grid = nullptr;            // with ids too where clusters need coordinates
  std::int64_t size() const {
    if (ids) return static_cast<std::int64_t>(ids->size());
    const detail::Planes p = detail::planes(*grid);
    return p.count * p.rows * p.cols;
  }
};

// Walks the stream at iteration k_fraction * steps of every tile (k_fraction in [0, 1)) over
// the sampled waves, handing each sampled wave to `visit` (the wave is reused afterwards). The
// overload with a walker reuses its buffers (StreamWalker::of_this_thread, the cache model's).
template <class Visit>
void walk_stream(const TileSequence& tiles, const StreamInput& input, const StreamShape& shape, double k_fraction,
                 const std::vector<WaveSample>& waves, Visit&& visit);
template <class Visit>
void walk_stream(const std::vector<std::int64_t>& order, const StreamInput& input, const StreamShape& shape,
                 double k_fraction, const std::vector<WaveSample>& waves, Visit&& visit) {
  walk_stream(TileSequence{.ids = &order}, input, shape, k_fraction, waves, std::forward<Visit>(visit));
}

namespace detail {
class StreamWalker {
 public:
  StreamWalker() = default;
  StreamWalker(const TileSequence& tiles, const StreamInput& input, const StreamShape& shape, double k_fraction) {
    start(tiles, input, shape, k_fraction);
  }
  // A new walk (the buffers, and the phases of recent waves, are kept).
  void start(const TileSequence& tiles, const StreamInput& input, const StreamShape& shape, double k_fraction);
  void warm(std::int64_t wave);  // the wave before a sample: only its last touches matter
  const WaveStream& replay(std::int64_t wave, std::int32_t sample);
  static StreamWalker& of_this_thread();  // one walker per thread, for the cache model's walks

 private:
  // The phases of one wave: they depend on the stream's timing only, not on its tiles, so
  // walks of other grids and orders with the same timing reuse them.
  struct Phases {
    std::int64_t slots = 0, steps = 0, wave = -1, count = 0;
    double skew = 0, rate = 0, growth = 0, k = 0, coupling = 0;
    const std::vector<double>* starts = nullptr;
    std::vector<float> phase;          // per slot: iterations after the wave's start
    std::vector<std::uint64_t> order;  // sort keys (ordered phase bits, slot), sorted; empty: not yet
  };
  std::int64_t load(std::int64_t wave, bool sorted);  // keys_, phase_ and phases_ of a wave; its size
  void mark_followers(std::size_t n);                 // follower_ of the loaded wave (coords_)
  void number_keys(std::size_t access, std::size_t n);  // dense_: the loaded wave's keys numbered
  const Phases& phases_of(std::int64_t wave, std::int64_t count, bool sorted);
  template <std::size_t kGroups>
  void touch_all(double start, std::int64_t first);
  void sort_phases(Phases& p);

  TileSequence tiles_;
  const StreamInput* input_ = nullptr;
  StreamShape shape_;
  double k_ = 0, min_gap_ = 0;
  std::vector<std::vector<double>> last_;  // [access][key * groups + group]: phase of the last touch
  // Per access whose key space is too large to keep a slot for every block (a norm over 10^8
  // rows): the blocks met so far, numbered as met; StreamAccess::key is that number. Empty:
  // the keys themselves index last_.
  std::vector<std::unordered_map<std::int64_t, std::int64_t>> dense_;
  std::size_t stride_ = 1;                 // slots of a loaded wave
  std::vector<std::int64_t> keys_;         // [access * stride_ + slot] of the loaded wave
  std::vector<TileCoord> coords_;          // of the loaded wave
  std::vector<std::uint8_t> follower_;     // [access * stride_ + slot]: StreamAccess::follower
  bool followers_ = false;                 // any multicast access in clusters
  std::int64_t loaded_first_ = 0;          // launch position of the loaded wave's first tile
  const Phases* loaded_ = nullptr;         // the loaded wave's phases
  std::vector<Phases> recent_;             // phases of recent waves, replaced round robin
  std::size_t next_recent_ = 0;
  std::vector<WaveFootprint> own_;         // per group: its own stream only (mixed into wave_'s)
  std::vector<WaveFootprint> foreign_;     // per group: its stream, each gap since any group's touch
  std::vector<std::uint64_t> sorted_;      // sort_phases()'s buffers
  std::vector<std::uint32_t> starts_;
  WaveStream wave_;
};
}  // namespace detail

template <class Visit>
void walk_stream(detail::StreamWalker& walker, const TileSequence& tiles, const StreamInput& input,
                 const StreamShape& shape, double k_fraction, const std::vector<WaveSample>& waves, Visit&& visit) {
  // The waves before a sample whose last touches are replayed (untallied), so that its gaps
  // start from them: a grouped order reads a group's blocks of B again a group later, 2.4
  // waves for 5120 x 5120 x 1536 with 64 x 128 tiles and group 8, whose B came 9.5x its 15.7 MB
  // from DRAM with only the wave before replayed (2.7x with three, 1.6x walking every wave; ncu
  // reads 35 MB for A and B together). Held out 4: 3.68 -> 3.56 pp; three or all, the same
  // within 0.02 pp; 1.05x the bench's instructions, all 1.22x.
  constexpr std::int64_t kWarmWaves = 3;
  walker.start(tiles, input, shape, k_fraction);
  std::int64_t replayed = -1;
  for (std::size_t i = 0; i < waves.size(); ++i) {
    const std::int64_t w = waves[i].wave;
    for (std::int64_t v = std::max(replayed + 1, w - kWarmWaves); v < w; ++v) walker.warm(v);
    visit(walker.replay(w, static_cast<std::int32_t>(i)));
    replayed = w;
  }
}

template <class Visit>
void walk_stream(const TileSequence& tiles, const StreamInput& input, const StreamShape& shape, double k_fraction,
                 const std::vector<WaveSample>& waves, Visit&& visit) {
  detail::StreamWalker walker;
  walk_stream(walker, tiles, input, shape, k_fraction, waves, std::forward<Visit>(visit));
}

}  // namespace tilesight::cache
