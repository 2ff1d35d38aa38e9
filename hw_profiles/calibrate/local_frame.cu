// Local memory (register spills) against the L2's capacity: every resident thread stores and
// reloads a frame of `words` 4-byte slots each iteration, the pattern of a K loop whose spilled
// registers go through local memory. The frames of all resident threads are the working set,
// reused cyclically; past the L2's capacity part of it misses and waits for DRAM. Checks the
// model's rule for spills (engine/src/model/loop_analysis.cpp: the L2's cyclic hit rate from
// the bandwidth sweep, l2.cyclic_hit, and a miss taking (DRAM latency + queueing) / L2
// latency times as long at the same bytes in flight).
// 132 SMs x 2 blocks x 256 threads; frame sizes 16-512 words (4.3-138 MB in all).
// Output (stdout CSV): words,footprint_bytes,iters,us,local_gbps (bytes stored and loaded / time)
// Build: nvcc -O3 -arch=sm_90a -o local_frame local_frame.cu     Run: ./local_frame
#include <cstdio>

#include "cuda_check.cuh"

constexpr int kMaxWords = 512;

__global__ void frame(int words, int iters, int* out) {
  volatile int slot[kMaxWords];  // volatile: every access is a local-memory load or store
  for (int i = 0; i < words; ++i) slot[i] = threadIdx.x + i;
  int acc = 0;
  for (int it = 0; it < iters; ++it)
    for (int i = 0; i < words; ++i) {
      const int v = slot[i];
      acc += v;
      slot[i] = v + 1;
    }
  if (acc == 0x7fffffff) out[0] = acc;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int threads = 256, blocks = 2 * sms;
  const double resident = static_cast<double>(threads) * blocks;
  int* out;
  CK(cudaMalloc(&out, sizeof(int)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("words,footprint_bytes,iters,us,local_gbps\n");
  for (int words : {16, 32, 64, 96, 128, 160, 176, 192, 208, 224, 240, 256, 288, 320, 384, 448, 512}) {
    const double per_iter = resident * words * 8.0;  // bytes stored and loaded
    const int iters = static_cast<int>(6e9 / per_iter) + 2;
    frame<<<blocks, threads>>>(words, 2, out);
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    frame<<<blocks, threads>>>(words, iters, out);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    printf("%d,%.0f,%d,%.1f,%.1f\n", words, resident * words * 4.0, iters, ms * 1e3,
           per_iter * iters / (ms * 1e-3) / 1e9);
  }
  return 0;
}
