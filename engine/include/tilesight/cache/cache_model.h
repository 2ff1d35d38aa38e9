// The interface between the cache model (§3.5) and the resource vectors: for each tensor
// access, which share of its bytes comes from L2 and which from DRAM.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tilesight/cache/stream_timing.h"
#include "tilesight/hw/hardware_spec.h"
#include "tilesight/plan/tile_program.h"

namespace tilesight::cache {

struct AccessTraffic {
  std::string tensor;
  bool write = false;
  bool revisit = false;        // TensorAccess::revisit > 0
  double requested_bytes = 0;  // bytes all tiles request over the whole kernel
  double dram_bytes = 0;       // bytes that go to DRAM (misses, or write-backs)
  double l15_lookup_bytes = 0;  // bytes looked up in an L1.5 tier (0 where there is none)
  double l15_hit_bytes = 0;
  double l2_lookup_bytes = 0;   // L2 sector lookups in bytes, every partition looked up
                                // (ncu's lts__t_sectors); 0: one lookup per requested byte
  double l2_hit_bytes = 0;
  double l2_far_lookup_bytes = 0;  // of l2_lookup_bytes: second lookups in a far (home) partition
  double l2_far_hit_bytes = 0;     // of l2_hit_bytes: hits there
  double l2_pending_bytes = 0;     // requests served by a fill already in flight (no DRAM read of
                                   // their own); those that reach a lookup count as hits, as ncu does
  double l2_merged_bytes = 0;      // of those: requests merged before L2 (not in l2_lookup_bytes)

  double dram_fraction() const { return requested_bytes > 0 ? dram_bytes / requested_bytes : 0; }
};

// Predicted hit rate of every tile of the grid at one level (the GUI's heatmap).
// Drawn for grids of up to kMaxMapTiles tiles: past them the maps alone would cost more than
// the prediction (an rmsnorm of 8 M rows: 3.3 s and 760 MB with them, 0.04 s without).
inline constexpr std::int64_t kMaxMapTiles = std::int64_t{1} << 20;
struct TileHitMap {
  std::string tensor;                  // "" for all tensors together
  std::string level;                   // "l2" or "l15"
  std::vector<double> hit_rate;        // per tile id (row-major over grid.dims), 0..1
  std::vector<double> reuse_distance;  // mean tile reuse distance D_T per tile (tiles)
};

// One wave the cache model walked (launch order, StreamTiming::tiles_in_flight tiles a wave):
// the full waves it stands for (1 for the tail) and each access's DRAM bytes were every wave of
// the kernel like it. Waves differ: the first reads cold, a grouped order's first reads of A
// come where a group starts, and a convoy holds for a few waves and then parts
// (docs/cache-model.md), so each wave is timed at its own split (model/evaluate.cpp).
struct WaveTraffic {
  std::int64_t wave = 0;
  double waves = 1;
  std::vector<double> dram_bytes;  // per access, as CacheTraffic::accesses
};

struct CacheTraffic {
  std::string model;  // name for the report
  std::vector<AccessTraffic> accesses;  // one per TileProgram::accesses, same order
  std::vector<TileHitMap> tile_maps;    // empty when the model has no per-tile view
  std::optional<StreamTiming> stream;   // empty when the model has no stream in time
  std::vector<WaveTraffic> wave_traffic;  // empty when the model has no waves of its own

  double dram_read_bytes() const;
  double dram_write_bytes() const;
  double l2_hit_rate() const;       // hits per L2 lookup, loads and stores (ncu's definition)
  double l2_load_hit_rate() const;  // hits per L2 lookup, loads only
  double l15_hit_rate() const;      // hits per L1.5 lookup; 0 without an L1.5 tier
  // DRAM fraction of the loads of `tensor` (1 when the tensor has no access entry): of its
  // revisit accesses with `revisit`, of the others without (all of them where none match).
  double dram_fraction(const std::string& tensor, bool revisit = false) const;
  // Share of the bytes of `tensor` served by an L1.5 tier (0 without one).
  double l15_fraction(const std::string& tensor) const;
  // The traffic of the kernel were every wave like `w` (its DRAM bytes; no maps, no waves).
  CacheTraffic at_wave(const WaveTraffic& w) const;
};

class CacheModel {
 public:
  virtual ~CacheModel() = default;
  virtual std::string name() const = 0;
  virtual CacheTraffic analyze(const plan::TileProgram& program, const hw::HardwareSpec& hw) const = 0;
};

// The simplest honest model (issue 2): an infinite cache. The first touch of each tensor block
// comes from DRAM, every repeat hits L2; writes go to DRAM once.
class FirstTouchCacheModel final : public CacheModel {
 public:
  std::string name() const override { return "first-touch (infinite L2)"; }
  CacheTraffic analyze(const plan::TileProgram& program, const hw::HardwareSpec& hw) const override;
};

}  // namespace tilesight::cache
