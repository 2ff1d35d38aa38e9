// The online softmax of one warp group's 64 x 128 score tile, run by a warp alone on its
// scheduler (issue 6: cuDNN's sm90 SDPA kernel runs its two consumer warp groups' softmax in
// turn, named barriers 4/5, tests/validation/h200/cudnn_sdpa_sass_d64.csv, so one warp per
// scheduler issues it). Each thread holds the wgmma accumulator layout of 2 rows x 32 scores
// and 2 rows x d/4 of O, and per iteration does what that kernel's SASS does per key block:
// row max (FMNMX tree + 2 SHFL.BFLY rounds), alpha = ex2((m_old - m) * scale), p = ex2((s - m)
// * scale) (FADD, FMUL, MUFU.EX2), the row sum (FADD), the bf16 pack of P (F2FP), O *= alpha
// (FMUL); the next iteration's scores are p + c (one FADD each, in place of the wgmma).
// One block of `warps` warps per SM (4: one warp per scheduler; 8: two), 132 blocks; cycles
// per iteration by clock64 in each block, median over blocks.
// Output (stdout CSV): head_dim,warps,iterations,cycles_per_iteration,sm_mhz
// Build: nvcc -O3 -arch=sm_90a --use_fast_math -o lone_warp_softmax lone_warp_softmax.cu
//        cuobjdump -sass lone_warp_softmax   (instruction counts of the loop)
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_bf16.h>

#include "cuda_check.cuh"

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

template <int D>
__global__ void softmax_loop(float* out, long long* cycles, unsigned long long* ns, int iters, float scale,
                             float c) {
  constexpr int kO = D / 2;  // O values per thread: 64 rows x D over 128 threads
  float s[64], o[kO];
#pragma unroll
  for (int i = 0; i < 64; ++i) s[i] = 0.001f * static_cast<float>((threadIdx.x * 7 + i * 13) % 97);
#pragma unroll
  for (int j = 0; j < kO; ++j) o[j] = 1.0f;
  float m[2] = {-1e30f, -1e30f}, l[2] = {0.f, 0.f};
  unsigned sink = 0;
  __syncthreads();
  const long long t0 = clock64();
  const unsigned long long g0 = gtimer();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float* sr = s + 32 * r;
      float t[16];
#pragma unroll
      for (int i = 0; i < 16; ++i) t[i] = fmaxf(sr[2 * i], sr[2 * i + 1]);
#pragma unroll
      for (int w = 8; w >= 1; w /= 2)
#pragma unroll
        for (int i = 0; i < w; ++i) t[i] = fmaxf(t[i], t[i + w]);
      float mx = fmaxf(m[r], t[0]);
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float alpha = exp2f(__fmul_rn(__fsub_rn(m[r], mx), scale));
      m[r] = mx;
      float sum[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
      for (int i = 0; i < 32; i += 2) {
        const float p0 = exp2f(__fmul_rn(__fsub_rn(sr[i], mx), scale));
        const float p1 = exp2f(__fmul_rn(__fsub_rn(sr[i + 1], mx), scale));
        sum[(i / 2) % 4] = __fadd_rn(__fadd_rn(sum[(i / 2) % 4], p0), p1);
        __nv_bfloat162 pk = __floats2bfloat162_rn(p0, p1);
        sink ^= *reinterpret_cast<unsigned*>(&pk);
        sr[i] = __fadd_rn(p0, c);
        sr[i + 1] = __fadd_rn(p1, c);
      }
      l[r] = __fadd_rn(__fmul_rn(l[r], alpha), __fadd_rn(__fadd_rn(sum[0], sum[1]), __fadd_rn(sum[2], sum[3])));
#pragma unroll
      for (int j = 0; j < kO / 2; ++j) o[r * (kO / 2) + j] = __fmul_rn(o[r * (kO / 2) + j], alpha);
    }
  }
  const long long t1 = clock64();
  const unsigned long long g1 = gtimer();
  float acc = l[0] + l[1] + m[0] + m[1] + static_cast<float>(sink & 1u);
#pragma unroll
  for (int i = 0; i < 64; ++i) acc += s[i];
#pragma unroll
  for (int j = 0; j < kO; ++j) acc += o[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  if (threadIdx.x == 0) {
    cycles[blockIdx.x] = t1 - t0;
    ns[blockIdx.x] = g1 - g0;
  }
}

template <int D>
void run(int warps, int iters, int sms) {
  float* out;
  long long* cyc;
  unsigned long long* ns;
  CK(cudaMalloc(&out, sizeof(float) * sms * warps * 32));
  CK(cudaMalloc(&cyc, sizeof(long long) * sms));
  CK(cudaMalloc(&ns, sizeof(unsigned long long) * sms));
  softmax_loop<D><<<sms, warps * 32>>>(out, cyc, ns, 10, 1.4427f, 0.5f);  // warm-up
  CK(cudaDeviceSynchronize());
  softmax_loop<D><<<sms, warps * 32>>>(out, cyc, ns, iters, 1.4427f, 0.5f);
  CK(cudaDeviceSynchronize());
  std::vector<long long> c(sms);
  std::vector<unsigned long long> t(sms);
  CK(cudaMemcpy(c.data(), cyc, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(t.data(), ns, sizeof(unsigned long long) * sms, cudaMemcpyDeviceToHost));
  std::vector<long long> cs = c;
  std::sort(cs.begin(), cs.end());
  const double med = static_cast<double>(cs[cs.size() / 2]);
  const double mhz = static_cast<double>(c[0]) / static_cast<double>(t[0]) * 1e3;
  std::printf("%d,%d,%d,%.1f,%.0f\n", D, warps, iters, med / iters, mhz);
  CK(cudaFree(out));
  CK(cudaFree(cyc));
  CK(cudaFree(ns));
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("head_dim,warps,iterations,cycles_per_iteration,sm_mhz\n");
  for (int warps : {4, 8}) {
    run<64>(warps, 20000, sms);
    run<128>(warps, 20000, sms);
  }
  return 0;
}
