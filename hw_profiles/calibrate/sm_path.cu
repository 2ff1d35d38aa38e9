// One SM's path from L2 into shared memory, against how many SMs pull at once: every active
// SM runs one block (dynamic shared memory sized so no second block fits) that streams an
// L2-resident buffer into a ring of shared-memory stages with cp.async (cp_async_ring.cuh:
// 16 bytes a thread, .cg: past L1), as Triton's software-pipelined GEMM loops do, keeping
// `stages - 1` stages of 16 KiB in flight. With all 132 SMs the L2 itself limits (8.7 TB/s, bw_sweep.csv); with
// few, what one SM's path carries shows. The buffer (8 MiB) is read once before timing.
// Output (stdout, CSV): active_sms,stages,stage_bytes,bytes_per_sm,us,gbps_per_sm,tbps_total
// `./sm_path sizes`: all SMs, 3 and 5 stages, buffers of 4-64 MiB (h200/sm_path_sizes.csv):
// past the size the two L2 partitions can each hold a copy of, loads cross between them.
// Build: nvcc -O3 -arch=sm_90a -o sm_path sm_path.cu     Run: ./sm_path [sizes]
#include <cstdio>
#include <string>
#include <vector>

#include "cp_async_ring.cuh"
#include "cuda_check.cuh"

constexpr size_t kBufferBytes = 8u << 20;

template <int S>
__global__ void pull(const int4* __restrict__ buf, size_t buffer_vecs, int iters, int* out) {
  extern __shared__ int4 ring[];  // S stages of kStageBytes
  const size_t stage_vecs = kStageBytes / 16;
  // Each block starts at its own offset so that the SMs read different lines.
  size_t off = (static_cast<size_t>(blockIdx.x) * 7919 * stage_vecs) % buffer_vecs;
  for (int it = 0; it < iters; ++it) {
    copy_stage<S>(ring, buf, buffer_vecs, off, it);
  }
  asm volatile("cp.async.wait_group 0;\n" ::);
  __syncthreads();
  if (ring[threadIdx.x].x == 0x12345678) out[0] = 1;  // keep the copies
}

template <int S>
float run(const int4* buf, int blocks, int iters, int* out, size_t buffer_bytes = kBufferBytes) {
  const int smem = 200 * 1024;  // one block per SM
  CK(cudaFuncSetAttribute(pull<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const size_t vecs = buffer_bytes / 16;
  pull<S><<<blocks, kThreads, smem>>>(buf, vecs, iters / 4, out);  // warm-up, L2 fill
  CK(cudaDeviceSynchronize());
  return best_of_ms([&] { pull<S><<<blocks, kThreads, smem>>>(buf, vecs, iters, out); });
}

int main(int argc, char** argv) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int4* buf;
  int* out;
  CK(cudaMalloc(&buf, kBufferBytes));
  CK(cudaMemset(buf, 1, kBufferBytes));
  CK(cudaMalloc(&out, sizeof(int)));
  const int iters = 20000;  // 320 MB per SM
  if (argc > 1 && std::string(argv[1]) == "sizes") {
    // All SMs, buffers from 4 MiB to the L2's size: where the partitions stop holding copies.
    int4* big;
    const size_t max_bytes = 64u << 20;
    CK(cudaMalloc(&big, max_bytes));
    CK(cudaMemset(big, 1, max_bytes));
    printf("buffer_bytes,active_sms,stages,stage_bytes,bytes_per_sm,us,gbps_per_sm,tbps_total\n");
    for (size_t mib : {4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 56, 64}) {
      const size_t bytes = mib << 20;
      for (int s : {3, 5}) {
        const float ms = s == 3 ? run<3>(big, sms, iters, out, bytes) : run<5>(big, sms, iters, out, bytes);
        const double moved = static_cast<double>(iters) * kStageBytes;
        const double gbps = moved / (ms * 1e-3) / 1e9;
        printf("%zu,%d,%d,%d,%.0f,%.1f,%.1f,%.3f\n", bytes, sms, s, kStageBytes, moved, ms * 1e3, gbps, gbps * sms / 1e3);
        fflush(stdout);
      }
    }
    CK(cudaFree(big));
    return 0;
  }
  printf("active_sms,stages,stage_bytes,bytes_per_sm,us,gbps_per_sm,tbps_total\n");
  const std::vector<int> active = {1, 2, 4, 8, 16, 32, 48, 64, 96, 132};
  for (int n : active) {
    if (n > sms) continue;
    for (int s : {2, 3, 5, 9}) {
      float ms = s == 2 ? run<2>(buf, n, iters, out) : s == 3 ? run<3>(buf, n, iters, out)
                 : s == 5 ? run<5>(buf, n, iters, out) : run<9>(buf, n, iters, out);
      const double bytes = static_cast<double>(iters) * kStageBytes;
      const double gbps = bytes / (ms * 1e-3) / 1e9;
      printf("%d,%d,%d,%.0f,%.1f,%.1f,%.3f\n", n, s, kStageBytes, bytes, ms * 1e3, gbps, gbps * n / 1e3);
      fflush(stdout);
    }
  }
  CK(cudaFree(buf));
  CK(cudaFree(out));
  return 0;
}
