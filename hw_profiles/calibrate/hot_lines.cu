// L2 bandwidth when every SM reads the same few cache lines: the pattern of a GEMM operand
// whose tile is wider than the tensor (Triton's tutorial kernel wraps the N indices modulo N,
// so a 4096x16 B read by 256-wide tiles is 16 columns read 16 times, by every CTA at once).
// Each line lives in one L2 slice (the H200 has 96: ncu's device__attribute_l2s_count), so a
// handful of lines can use only a handful of slices.
// All SMs, 32 warps each; every warp instruction reads one 512-byte chunk (4 lines, 16 B per
// lane, ld.global.cg: no L1) of a set of `lines` lines, chunk chosen by warp and iteration;
// U = 4 independent loads in flight per warp. Bytes requested / time.
// Output (stdout CSV): lines,bytes_requested,us,gb_per_s
// Build: nvcc -O3 -arch=sm_90a -o hot_lines hot_lines.cu     Run: ./hot_lines
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"

constexpr int U = 4;

__global__ void hot(const int4* __restrict__ buf, int chunks, int iters, int* out) {
  const int lane = threadIdx.x & 31;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int acc = 0;
  for (int it = 0; it < iters; ++it) {
    int4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int chunk = (warp * 7 + it * U + u) % chunks;
      v[u] = __ldcg(buf + chunk * 32 + lane);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) acc += v[u].x;
  }
  if (acc == 0x7fffffff) out[0] = acc;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int4* buf;
  const int max_lines = 65536;
  CK(cudaMalloc(&buf, (size_t)max_lines * 128));
  CK(cudaMemset(buf, 1, (size_t)max_lines * 128));
  int* out;
  CK(cudaMalloc(&out, sizeof(int)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("lines,bytes_requested,us,gb_per_s\n");
  for (int lines : {4, 8, 16, 32, 64, 128, 256, 512, 1024, 65536}) {
    const int chunks = lines / 4, threads = 1024, blocks = sms, iters = 2000;
    hot<<<blocks, threads>>>(buf, chunks, 10, out);
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    hot<<<blocks, threads>>>(buf, chunks, iters, out);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const double bytes = (double)blocks * threads * iters * U * 16;
    printf("%d,%.0f,%.1f,%.1f\n", lines, bytes, ms * 1e3, bytes / (ms * 1e-3) / 1e9);
  }
  return 0;
}
