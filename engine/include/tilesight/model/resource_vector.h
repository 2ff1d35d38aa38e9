// Intra-tile resource vector u(o) of eq. 1 (§3.2): seconds an action occupies each
// independently schedulable pipeline of one SM.
#pragma once

#include <algorithm>
#include <array>

#include "tilesight/cache/cache_model.h"
#include "tilesight/hw/hardware_spec.h"
#include "tilesight/hw/resource.h"
#include "tilesight/plan/tile_program.h"

namespace tilesight::model {

struct ResourceVector {
  std::array<double, kResourceCount> t{};

  double& operator[](Resource r) { return t[index(r)]; }
  double operator[](Resource r) const { return t[index(r)]; }
  double max() const { return *std::max_element(t.begin(), t.end()); }
  Resource argmax() const {
    return static_cast<Resource>(std::max_element(t.begin(), t.end()) - t.begin());
  }
  ResourceVector& operator+=(const ResourceVector& o) {
    for (std::size_t i = 0; i < kResourceCount; ++i) t[i] += o.t[i];
    return *this;
  }
  ResourceVector operator*(double k) const {
    ResourceVector r = *this;
    for (auto& x : r.t) x *= k;
    return r;
  }
};

// Rates one SM sees while `active_sms` SMs run: per-SM pipelines at the sustained clock, and
// its share of the shared L2/DRAM bandwidth (a tail wave's SMs get a larger share, §3.4),
// capped by what one SM can pull.
struct SmRates {
  double tc_flops = 0;    // for the action's dtype/instruction: computed per action
  double cuda_flops = 0;
  double sfu_ops = 0;
  double smem_bytes = 0;
  double tmem_bytes = 0;
  double l15_bytes = 0;
  double l2_bytes = 0;
  double l2_async_bytes = 0;  // copies into shared memory (cp.async, TMA)
  double l2_requests = 0;  // line requests/s (0: no limit but the bytes)
  double dram_bytes = 0;
  double l1_bytes_per_tile = 0;  // L1 beside the resident tiles' shared memory, per tile (0: unknown)
};

SmRates sm_rates(const hw::HardwareSpec& hw, double active_sms, double clock_factor);

// Dirty lines the timing protocol's flush left in the L2 (hw.dirty_l2_bytes) that the kernel's
// reads write back: each line a read brings in evicts one, dirty as often as dirty lines fill
// the L2, until none is left; less the kernel's own last writes, which stay dirty in the L2
// when it ends: max(0, min(dirty, read x dirty / l2.bytes) - min(dirty, written)).
double dirty_writeback_bytes(const hw::HardwareSpec& hw, const cache::CacheTraffic& traffic);

// DRAM time per byte the kernel moves, relative to a clean L2: 1 + the write-back above over
// the bytes read and written.
double dirty_writeback_factor(const hw::HardwareSpec& hw, const cache::CacheTraffic& traffic);

// The time a kernel's loads wait for that write-back, beyond its DRAM lane: a miss that evicts
// a dirty line waits for its write first, so a loop whose pace is set by memory latency pays
// the write-back in full, one whose tensor cores set it hides it (tc_share, 0..1, of the
// kernel's time busy on tensor cores). A producer warp group that keeps a deep ring of stages
// in flight (loops with producer_warps) absorbs the wait: only its DRAM lane pays.
double dirty_writeback_wait_s(const hw::HardwareSpec& hw, const cache::CacheTraffic& traffic,
                              const plan::TileProgram& program, double tc_share);

// u(o) for one execution of `action`. Memory actions split their bytes between L2 and DRAM by
// the cache model's traffic for the tensor they move.
ResourceVector resource_vector(const plan::TileAction& action, const hw::HardwareSpec& hw,
                               const SmRates& rates, const cache::CacheTraffic& traffic);

// Memory latency a load of this action waits for: DRAM latency weighted by its DRAM share,
// L2 latency for the rest (0 for non-loads).
double load_latency_s(const plan::TileAction& action, const hw::HardwareSpec& hw,
                      const cache::CacheTraffic& traffic);

}  // namespace tilesight::model
