// The H200-like spec and the default GEMM tile config the GEMM model tests calculate by hand
// (built here, so that recalibrating hw_profiles/h200.json moves no expected value).
#pragma once

#include <cstdint>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/kernels/gemm.h"

namespace tilesight::test {

inline hw::HardwareSpec h200_like() {
  hw::HardwareSpec hw;
  hw.name = "h200-test";
  hw.sm_count = 132;
  hw.clock_ghz = 1.83;
  hw.limits = {.smem_bytes_per_sm = 233472, .smem_bytes_per_block = 232448, .smem_reserved_per_block = 1024,
               .registers_per_sm = 65536, .registers_per_thread = 255, .register_alloc_unit = 256,
               .max_warps_per_sm = 64, .max_blocks_per_sm = 32, .max_threads_per_block = 1024};
  hw.tensor_core.flops_per_s = {{DType::kBF16, 928e12}, {DType::kFP16, 928e12}};
  hw.tensor_core.mma_sync_fraction = 0.67;
  hw.cuda_fp32_flops_per_s = 49.5e12;
  hw.sfu_ops_per_s = 4.1e12;
  hw.smem_bandwidth_per_sm = 234.24e9;  // 128 B/clk x 1.83 GHz
  hw.l2 = {.bytes = 60e6, .bandwidth = 9.2e12, .per_sm_bandwidth = 117.12e9, .latency_ns = 260};
  hw.dram_bandwidth = 4.2e12;
  hw.dram_latency_ns = 550;
  hw.launch_overhead_us = 4.8;
  return hw;  // power: sustained_fraction 1 (no derating) unless a test sets it
}

inline kernels::GemmParams gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  kernels::GemmParams p;
  p.M = m, p.N = n, p.K = k;
  p.block_m = 128, p.block_n = 128, p.block_k = 64, p.stages = 3, p.warps = 8;
  return p;
}

}  // namespace tilesight::test
