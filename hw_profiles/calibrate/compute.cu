// Throughput microbenchmarks of the SM's pipelines (full grid, independent chains):
//   fp32_fma      : FFMA, 8 independent accumulators per thread            -> TFLOP/s (2/FMA)
//   sfu_ex2       : MUFU.EX2 (ex2.approx.ftz.f32), 8 independent chains    -> Tops/s
//   mma_sync_bf16 : mma.sync.m16n8k16 bf16 -> fp32, 4 independent accumulators per warp
//                   (the Ampere-style tensor-core path FA2 uses)            -> TFLOP/s
//   mma_sync_fp16 : same with f16 inputs                                    -> TFLOP/s
//   smem_ld128    : ld.volatile.shared.v4 (16 B per thread, conflict-free)  -> TB/s
// Each test auto-scales its loop count so one launch takes ~30 ms, then reports the
// median of 5 launches timed with CUDA events, plus the SM clock measured in-kernel
// (clock64 cycles over %globaltimer ns of block 0).
// Output (stdout, CSV): test,value,unit,ms,blocks,threads,iters,ops,sm_mhz
// Build: nvcc -O3 -arch=sm_90a -o compute compute.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.cuh"

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

struct Clk {
  long long cyc;
  unsigned long long ns;
};

#define CLK_BEGIN                          \
  long long c0_ = clock64();               \
  unsigned long long t0_ = gtimer();
#define CLK_END(clk)                                           \
  if (blockIdx.x == 0 && threadIdx.x == 0) {                   \
    clk->cyc = clock64() - c0_;                                \
    clk->ns = gtimer() - t0_;                                  \
  }

__global__ void k_fma(float* out, long long iters, float b, float c, Clk* clk) {
  CLK_BEGIN
  float a[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) a[j] = threadIdx.x * 1e-6f + j;
  for (long long i = 0; i < iters; ++i) {
#pragma unroll
    for (int r = 0; r < 16; ++r) {
#pragma unroll
      for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], b, c);
    }
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += a[j];
  if (s == 1234.5f) out[threadIdx.x] = s;
  CLK_END(clk)
}

__device__ __forceinline__ float ex2n(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(-x));
  return y;
}

__global__ void k_ex2(float* out, long long iters, float b, float c, Clk* clk) {
  CLK_BEGIN
  float a[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) a[j] = threadIdx.x * 1e-6f + j * b + c;
  for (long long i = 0; i < iters; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
      for (int j = 0; j < 8; ++j) a[j] = ex2n(a[j]);
    }
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += a[j];
  if (s == 1234.5f) out[threadIdx.x] = s;
  CLK_END(clk)
}

template <bool BF16>
__global__ void k_mma(float* out, long long iters, float b, float c, Clk* clk) {
  CLK_BEGIN
  unsigned ra[4], rb[2];
#pragma unroll
  for (int j = 0; j < 4; ++j) ra[j] = 0x3c003c00u ^ (threadIdx.x * 2654435761u & 0x00ff00ffu);
  rb[0] = 0x3c003c00u ^ threadIdx.x;
  rb[1] = 0x3c003c00u;
  float d[4][4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int j = 0; j < 4; ++j) d[q][j] = 0.f;
  for (long long i = 0; i < iters; ++i) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      if (BF16) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
            "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[q][0]), "+f"(d[q][1]), "+f"(d[q][2]), "+f"(d[q][3])
            : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
      } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
            "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[q][0]), "+f"(d[q][1]), "+f"(d[q][2]), "+f"(d[q][3])
            : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
      }
    }
  }
  float s = 0;
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int j = 0; j < 4; ++j) s += d[q][j];
  if (s == 1234.5f) out[threadIdx.x] = s;
  CLK_END(clk)
}

// 256 threads, 16 KiB of shared memory (1024 x 16 B); thread t reads 16 B at
// t*16 + j*4096 (a warp touches 512 contiguous bytes: 4 wavefronts, no conflicts).
__global__ void k_smem(float* out, long long iters, float b, float c, Clk* clk) {
  __shared__ int4 s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    s[i] = make_int4(i, i * 3, i * 5, i * 7);
  __syncthreads();
  CLK_BEGIN
  unsigned addr = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
  int a0 = 0, a1 = 0;
  for (long long i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int x, y, z, w;
      // ld.volatile: ptxas must not merge or hoist the loads (plain ld.shared from the
      // same addresses was CSE'd by ptxas, giving an impossible 126 TB/s)
      asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                   : "r"(addr + (j & 3) * 4096));
      a0 ^= x ^ y;
      a1 ^= z ^ w;
    }
  }
  if ((a0 ^ a1) == 0x7fffabcd) out[threadIdx.x] = (float)a0;
  CLK_END(clk)
}

typedef void (*KernelFn)(float*, long long, float, float, Clk*);

struct Test {
  const char* name;
  KernelFn fn;
  int blocks_per_sm;
  int threads;
  double ops_per_thread_iter;  // "ops" per thread per outer iteration
  double scale;                // value = ops / s / scale
  const char* unit;
};

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int nsm = p.multiProcessorCount;
  float* out;
  Clk* clk;
  CK(cudaMalloc(&out, 4096 * sizeof(float)));
  CK(cudaMalloc(&clk, sizeof(Clk)));
  // mma: ops per thread-iteration = 4 mma * 4096 flop / 32 threads
  Test tests[] = {
      {"fp32_fma", k_fma, 8, 256, 16 * 8 * 2.0, 1e12, "TFLOP/s"},
      {"sfu_ex2", k_ex2, 8, 256, 4 * 8.0, 1e12, "Tops/s"},
      {"mma_sync_bf16", k_mma<true>, 4, 256, 4 * 4096.0 / 32, 1e12, "TFLOP/s"},
      {"mma_sync_fp16", k_mma<false>, 4, 256, 4 * 4096.0 / 32, 1e12, "TFLOP/s"},
      {"smem_ld128", k_smem, 8, 256, 8 * 16.0, 1e12, "TB/s"},
  };
  printf("test,value,unit,ms,blocks,threads,iters,ops,sm_mhz\n");
  fflush(stdout);
  cudaEvent_t s, e;
  CK(cudaEventCreate(&s));
  CK(cudaEventCreate(&e));
  for (auto& t : tests) {
    int blocks = nsm * t.blocks_per_sm;
    long long iters = 256;
    float ms = 0;
    // auto-scale to ~30 ms
    for (int k = 0; k < 12; ++k) {
      CK(cudaEventRecord(s));
      t.fn<<<blocks, t.threads>>>(out, iters, 0.999999f, 1e-7f, clk);
      CK(cudaEventRecord(e));
      CK(cudaEventSynchronize(e));
      CK(cudaGetLastError());
      CK(cudaEventElapsedTime(&ms, s, e));
      if (ms > 10.f) break;
      iters = (long long)(iters * std::min(64.0, 30.0 / std::max(ms, 0.01f)));
    }
    iters = (long long)(iters * 30.0 / std::max(ms, 0.01f));
    std::vector<float> v;
    Clk h{};
    for (int r = 0; r < 5; ++r) {
      CK(cudaEventRecord(s));
      t.fn<<<blocks, t.threads>>>(out, iters, 0.999999f, 1e-7f, clk);
      CK(cudaEventRecord(e));
      CK(cudaEventSynchronize(e));
      CK(cudaGetLastError());
      CK(cudaEventElapsedTime(&ms, s, e));
      v.push_back(ms);
    }
    CK(cudaMemcpy(&h, clk, sizeof(Clk), cudaMemcpyDeviceToHost));
    std::sort(v.begin(), v.end());
    double med = v[2];
    double ops = (double)blocks * t.threads * iters * t.ops_per_thread_iter;
    printf("%s,%.3f,%s,%.4f,%d,%d,%lld,%.4e,%.0f\n", t.name, ops / (med * 1e-3) / t.scale,
           t.unit, med, blocks, t.threads, iters, ops,
           h.ns ? (double)h.cyc / h.ns * 1000.0 : 0.0);
    fflush(stdout);
  }
  return 0;
}
