// How fast the L2 serves requests for the same few lines when each request asks for 1, 2 or 4
// sectors: the lookups of a GEMM tile wider than its tensor (Triton's tutorial kernel wraps
// B's columns modulo N, so with N = 16 every CTA asks for the same 32-byte runs of a few lines
// again and again, one sector a request; hot_lines.cu measured 4-sector requests).
// All SMs, 32 warps each; every warp instruction is one request: its 32 lanes read 16 bytes
// each (ld.global.cg, no L1) inside one line, covering `sectors` sectors of it; line chosen by
// warp and iteration among `lines` lines; U = 4 independent loads in flight per warp.
// Output (stdout CSV): lines,sectors_per_request,requests,us,requests_per_s_per_line
// Build: nvcc -O3 -arch=sm_90a -o hot_sectors hot_sectors.cu     Run: ./hot_sectors
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"

constexpr int U = 4;

__global__ void hot(const int4* __restrict__ buf, int lines, int sectors, int iters, int* out) {
  const int lane = threadIdx.x & 31;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int chunk = lane % (2 * sectors);  // 16-byte chunk of the line this lane reads
  int acc = 0;
  for (int it = 0; it < iters; ++it) {
    int4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int line = (warp * 7 + it * U + u) % lines;
      v[u] = __ldcg(buf + line * 8 + chunk);
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
  CK(cudaMalloc(&buf, 4096 * 128));
  CK(cudaMemset(buf, 1, 4096 * 128));
  int* out;
  CK(cudaMalloc(&out, sizeof(int)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("lines,sectors_per_request,requests,us,requests_per_s_per_line\n");
  for (int lines : {8, 16, 32, 64}) {
    for (int sectors : {1, 2, 4}) {
      const int threads = 1024, blocks = sms, iters = 1000;
      hot<<<blocks, threads>>>(buf, lines, sectors, 10, out);
      CK(cudaDeviceSynchronize());
      CK(cudaEventRecord(e0));
      hot<<<blocks, threads>>>(buf, lines, sectors, iters, out);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      const double requests = (double)blocks * threads / 32 * iters * U;
      printf("%d,%d,%.0f,%.1f,%.4g\n", lines, sectors, requests, ms * 1e3, requests / (ms * 1e-3) / lines);
    }
  }
  return 0;
}
