// Shared by the SDCM cache-model tests: an H200-like spec with the measured L2 (two
// partitions, 65.9 GB/s per SM) and a GEMM tile config with BLOCK_K 64.
#pragma once

#include <cstdint>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/kernels/gemm.h"

namespace tilesight::test::sdcm {

inline hw::HardwareSpec h200_like() {
  hw::HardwareSpec hw;
  hw.name = "h200-test";
  hw.sm_count = 132;
  hw.limits = {.smem_bytes_per_sm = 233472, .smem_bytes_per_block = 232448, .smem_reserved_per_block = 1024,
               .registers_per_sm = 65536, .registers_per_thread = 255, .register_alloc_unit = 256,
               .max_warps_per_sm = 64, .max_blocks_per_sm = 32, .max_threads_per_block = 1024};
  hw.tensor_core.flops_per_s = {{DType::kBF16, 850e12}};
  hw.smem_bandwidth_per_sm = 250e9;
  hw.l2 = {.bytes = 56e6, .bandwidth = 8.7e12, .per_sm_bandwidth = 65.9e9, .associativity = 16, .line_bytes = 128,
           .partitions = 2, .latency_ns = 207.5};
  hw.dram_bandwidth = 4.4e12;
  hw.dram_latency_ns = 400;
  return hw;
}

inline kernels::GemmParams gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t bm, std::int64_t bn,
                         std::int64_t group_m, std::int64_t stages, std::int64_t warps) {
  kernels::GemmParams p;
  p.M = m, p.N = n, p.K = k;
  p.block_m = bm, p.block_n = bn, p.block_k = 64, p.group_m = group_m, p.stages = stages, p.warps = warps;
  return p;
}

}  // namespace tilesight::test::sdcm
