// Block-wide reduction latency: the combine step of row reductions (RMSNorm, LayerNorm,
// softmax's max and sum), where a block of T threads sums one value per thread.
// Pattern (PyTorch's cuda_utils BlockReduce): warp shuffle-xor tree (5 steps), lane 0 of
// each warp writes shared memory, __syncthreads, warp 0 reduces the T/32 partials with
// shuffles, writes the result, __syncthreads, every thread reads it.
// Each block runs R dependent reductions (the next input depends on the last result), timed
// with clock64 by thread 0; grid = 132 x B blocks (B resident per SM at once).
// Output (stdout CSV): threads,blocks_per_sm,rounds,cycles_per_reduce,ns_per_reduce
// Build: nvcc -O3 -arch=sm_90a -o block_reduce block_reduce.cu     Run: ./block_reduce
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.cuh"

__device__ __forceinline__ float block_sum(float v, float* smem) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < nw ? smem[lane] : 0.f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) w += __shfl_xor_sync(0xffffffffu, w, o);
    if (lane == 0) smem[32] = w;
  }
  __syncthreads();
  return smem[32];
}

__global__ void chain(int rounds, long long* cycles, float* out) {
  __shared__ float smem[33];
  float v = threadIdx.x * 1e-3f;
  __syncthreads();
  const long long t0 = clock64();
  for (int r = 0; r < rounds; ++r) {
    v = block_sum(v, smem) * 1e-6f + threadIdx.x * 1e-3f;
    __syncthreads();  // smem[32] is rewritten by the next round
  }
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  if (v == 12345.f) out[blockIdx.x] = v;
}

int main() {
  int sms = 0, clock_khz = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const int rounds = 2000;
  printf("# sms=%d clock_khz(attribute)=%d; ns use the measured elapsed time\n", sms, clock_khz);
  printf("threads,blocks_per_sm,rounds,cycles_per_reduce,ns_per_reduce\n");
  long long* d_cycles;
  float* d_out;
  CK(cudaMalloc(&d_cycles, sizeof(long long) * sms * 32));
  CK(cudaMalloc(&d_out, sizeof(float) * sms * 32));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int threads : {128, 256, 512, 1024}) {
    for (int per_sm : {1, 2, 4, 8}) {
      if (threads * per_sm > 2048) continue;
      const int blocks = sms * per_sm;
      chain<<<blocks, threads>>>(10, d_cycles, d_out);  // warm-up
      CK(cudaDeviceSynchronize());
      CK(cudaEventRecord(e0));
      chain<<<blocks, threads>>>(rounds, d_cycles, d_out);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      std::vector<long long> c(blocks);
      CK(cudaMemcpy(c.data(), d_cycles, sizeof(long long) * blocks, cudaMemcpyDeviceToHost));
      double mean = 0;
      for (long long x : c) mean += static_cast<double>(x);
      mean /= blocks;
      printf("%d,%d,%d,%.1f,%.1f\n", threads, per_sm, rounds, mean / rounds, ms * 1e6 / rounds);
    }
  }
  return 0;
}
