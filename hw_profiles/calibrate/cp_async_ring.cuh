// The copy loop of sm_path.cu and gpc_path.cu: a block streams an L2-resident buffer into a
// ring of shared-memory stages with cp.async (16 bytes a thread a copy, .cg: past L1), as
// Triton's software-pipelined GEMM loops do, keeping `S - 1` stages of kStageBytes in flight.
// (l2_requests.cu has copies of its own, of rows it walks, and its own cp_async16.)
#pragma once

#include <cstddef>

constexpr int kThreads = 256;
constexpr int kVecsPerThread = 4;                            // 4 x 16 B a thread
constexpr int kStageBytes = kThreads * kVecsPerThread * 16;  // 16 KiB a stage

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}

// Stage `it` of the ring: its copies from `off` (wrapping at buffer_vecs), committed, then a
// wait until at most S - 1 stages are in flight; `off` moves on a stage.
template <int S>
__device__ __forceinline__ void copy_stage(int4* ring, const int4* __restrict__ buf, size_t buffer_vecs, size_t& off,
                                           int it) {
  const size_t stage_vecs = kStageBytes / 16;
  int4* stage = ring + static_cast<size_t>(it % S) * stage_vecs;
#pragma unroll
  for (int v = 0; v < kVecsPerThread; ++v) {
    const size_t idx = v * kThreads + threadIdx.x;
    const size_t at = off + idx;
    cp_async16(stage + idx, buf + (at < buffer_vecs ? at : at - buffer_vecs));
  }
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group %0;\n" ::"n"(S - 1));
  off += stage_vecs;
  if (off >= buffer_vecs) off -= buffer_vecs;
}
