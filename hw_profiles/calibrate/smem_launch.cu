// What a kernel's shared-memory size costs at launch, timed as triton.testing.do_bench times
// the validation corpora: a 256 MiB L2 flush kernel (no shared memory, like torch's zero_),
// then events around one launch of the kernel under test, median of REPS.
// The kernel under test does nothing but touch its dynamic shared memory (one word a thread)
// and store one word a block, so its time is the launch and the block scheduling alone.
// Modes:
//   flush  - the flush kernel runs just before every timed launch (do_bench's protocol): an SM
//            going from the flush's L1/shared split to the one the kernel needs reconfigures
//   same   - the timed launch follows a launch of the same kernel (same split), no flush
// Output (stdout CSV): mode,smem_bytes,blocks,threads,us
// Build: nvcc -O3 -arch=sm_90a -o smem_launch smem_launch.cu     Run: ./smem_launch
#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda_check.cuh"

constexpr int kReps = 200;
constexpr size_t kFlushBytes = size_t(256) << 20;

__global__ void flush(int4* buf, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    buf[i] = make_int4(0, 0, 0, 0);
}

__global__ void touch(unsigned* out, int words) {
  extern __shared__ unsigned smem[];
  if (threadIdx.x < words) smem[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = words > 0 ? smem[words - 1] : 0;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int4* buf;
  unsigned* out;
  CK(cudaMalloc(&buf, kFlushBytes));
  CK(cudaMalloc(&out, 1 << 20));
  CK(cudaFuncSetAttribute(touch, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("mode,smem_bytes,blocks,threads,us\n");
  const int sizes_kib[] = {0, 8, 32, 48, 64, 96, 128, 160, 192, 227};
  for (const char* mode : {"flush", "same"})
    for (int threads : {128, 256})
      for (int blocks : {1, sms, 2 * sms})
        for (int kib : sizes_kib) {
          const size_t smem = size_t(kib) * 1024;
          const int words = static_cast<int>(std::min<size_t>(smem / 4, threads));
          std::vector<float> t;
          for (int r = 0; r < kReps + 5; ++r) {
            if (mode[0] == 'f')
              flush<<<4 * sms, 512>>>(buf, kFlushBytes / sizeof(int4));
            else
              touch<<<blocks, threads, smem>>>(out, words);
            CK(cudaEventRecord(e0));
            touch<<<blocks, threads, smem>>>(out, words);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 5) t.push_back(ms * 1000.0f);
          }
          std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
          printf("%s,%zu,%d,%d,%.3f\n", mode, smem, blocks, threads, t[t.size() / 2]);
          fflush(stdout);
        }
  return 0;
}
