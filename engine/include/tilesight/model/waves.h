// Wave decomposition (Algorithm 2, WaveDecompose): full waves of sm_count * resident blocks
// plus a tail wave that runs on fewer SMs and so gets a larger share of L2/DRAM bandwidth.
#pragma once

#include <cstdint>

namespace tilesight::model {

struct WaveDecomposition {
  std::int64_t blocks = 0;
  std::int64_t blocks_per_wave = 0;  // sm_count * resident
  std::int64_t full_waves = 0;
  std::int64_t tail_blocks = 0;      // blocks in the tail wave (0: no tail)
  std::int64_t tail_active_sms = 0;  // SMs with at least one tail block
  std::int64_t tail_resident = 0;    // blocks on the busiest SM of the tail wave

  std::int64_t waves() const { return full_waves + (tail_blocks > 0 ? 1 : 0); }
  // The SMs the tail wave's share of the device's bandwidth (DRAM, L2) is split over, each
  // holding tail_resident blocks (waves.cpp).
  double tail_bandwidth_sms() const;
};

WaveDecomposition decompose_waves(std::int64_t blocks, std::int64_t sm_count, std::int64_t resident);

}  // namespace tilesight::model
