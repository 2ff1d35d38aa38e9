// Latency of dependent loads right after an L2 flush, as triton.testing.do_bench leaves the
// GPU before every timed launch (a 256 MB memset): the serial load chain of a small kernel
// (e.g. one row of PyTorch's RMSNorm, whose threads load their vectors one loop iteration
// at a time) pays this, not the warm pointer-chase latency.
// One thread walks a chain of N dependent 16-byte loads through a 64 MiB buffer that the
// flush evicted, with a given stride between consecutive loads (16 B: same row and page;
// 4 KiB; 2 MiB: a new page each time), timed by clock64 / %globaltimer inside the kernel.
// Output (stdout CSV): stride_bytes,loads,ns_per_load,cycles_per_load
// Build: nvcc -O3 -arch=sm_90a -o cold_chain cold_chain.cu     Run: ./cold_chain
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void chain(const int4* __restrict__ buf, size_t stride_vecs, size_t span_vecs, int loads,
                      unsigned long long* out) {
  size_t idx = 0;
  int carry = 0;
  const unsigned long long c0 = clock64(), t0 = global_ns();
  for (int i = 0; i < loads; ++i) {
    const int4 v = __ldcg(buf + idx);
    carry = v.x & 1;  // 0: the buffer is zero; makes the next address depend on this load
    idx = (idx + stride_vecs + carry) % span_vecs;
  }
  const unsigned long long c1 = clock64(), t1 = global_ns();
  out[0] = t1 - t0;
  out[1] = c1 - c0;
  out[2] = carry;
}

int main() {
  const size_t span = 64ull << 20, flush_bytes = 256ull << 20;
  int4* buf;
  unsigned char* flush;
  unsigned long long *d_out, h_out[3];
  CK(cudaMalloc(&buf, span));
  CK(cudaMemset(buf, 0, span));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&d_out, sizeof(h_out)));
  printf("stride_bytes,loads,ns_per_load,cycles_per_load,state\n");
  for (size_t stride : {16ull, 4096ull, 2ull << 20}) {
    for (const char* state : {"after_flush", "warm"}) {
      const int loads = 32;
      for (int rep = 0; rep < 5; ++rep) {
        if (state[0] == 'a') CK(cudaMemset(flush, rep, flush_bytes));
        else chain<<<1, 1>>>(buf, stride / 16, span / 16, loads, d_out);  // warm the same lines
        chain<<<1, 1>>>(buf, stride / 16, span / 16, loads, d_out);
        CK(cudaMemcpy(h_out, d_out, sizeof(h_out), cudaMemcpyDeviceToHost));
        printf("%zu,%d,%.1f,%.1f,%s\n", stride, loads, (double)h_out[0] / loads, (double)h_out[1] / loads, state);
      }
    }
  }
  return 0;
}
