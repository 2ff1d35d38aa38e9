// The interface between the cache model (§3.5) and the resource vectors: for each tensor
// access, which share of its bytes comes from L2 and which from DRAM.
#pragma once

#include <string>
#include <vector>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/plan/tile_program.h"

namespace tilesight::cache {

struct AccessTraffic {
  std::string tensor;
  bool write = false;
  double requested_bytes = 0;  // bytes all tiles request over the whole kernel
  double dram_bytes = 0;       // bytes that go to DRAM (misses, or write-backs)
  double l15_hit_bytes = 0;
  double l2_hit_bytes = 0;

  double dram_fraction() const { return requested_bytes > 0 ? dram_bytes / requested_bytes : 0; }
};

struct CacheTraffic {
  std::string model;  // name for the report
  std::vector<AccessTraffic> accesses;  // one per TileProgram::accesses, same order

  double dram_read_bytes() const;
  double dram_write_bytes() const;
  double l2_hit_rate() const;       // loads and stores
  double l2_load_hit_rate() const;  // loads only
  // DRAM fraction of the loads of `tensor` (1 when the tensor has no access entry).
  double dram_fraction(const std::string& tensor) const;
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
