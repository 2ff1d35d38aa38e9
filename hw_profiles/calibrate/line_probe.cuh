// flush(): reads a buffer far larger than the L2 so that nothing of before stays in it;
// time_first_reads(): one thread times its read of each of n lines, one load at a time
// (ld.global.cg, clock64 around a load whose result a shared-memory store waits for). Shared
// by the microbenchmarks that tell where a line is from its latency (sm_partition.cu,
// l2_retention.cu).
#pragma once

#include <cstddef>
#include <cstdint>

__global__ void flush(const uint4* buf, std::size_t n, uint4* sink) {
  uint4 acc = {0, 0, 0, 0};
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint4 v = __ldcg(buf + i);
    acc.x ^= v.x;
    acc.y ^= v.y;
  }
  if (acc.x == 0x12345678u) sink[0] = acc;  // never true: keeps the loads
}

// offs: the lines' offsets in uint32 elements (in shared memory: no global load between the
// timed ones); the buffer is zero, so v & 1 = 0, but each load waits for the last.
__device__ inline void time_first_reads(const uint32_t* buf, const uint32_t* offs, int n, uint32_t* lat,
                                        uint32_t* val) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) {
    const long long c0 = clock64();
    v = __ldcg(buf + offs[i] + (v & 1u));
    val[i] = v;  // waits for the load
    const long long c1 = clock64();
    lat[i] = static_cast<uint32_t>(c1 - c0);
  }
}
