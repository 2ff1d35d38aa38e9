// Spill reloads against the L1 the shared-memory carve-out leaves: every thread of two
// 128-thread blocks an SM stores and reloads a frame of `words` 4-byte local slots each
// iteration (the pattern of a K loop's spilled registers), while it also streams `stream` bytes
// a block and iteration through L1 (ld.global.ca of lines never read again in L1's lifetime,
// standing for an operand loaded through registers). The dynamic shared memory of each block
// sets the carve-out: 34, 48, 60 and 80 KiB a block, with preferred carve-outs of 44, 58, 72 and
// 100%, ran with 132, 164, 196 and 228 KiB on the H200 (three blocks never fit, so two run an SM
// whatever the carve-out; ncu's launch__shared_mem_config_size, h200/l1_frame.csv).
// ncu_kernel_facts' carveout set (tests/validation/h200/ncu_carveout_facts.csv) found GEMM
// tiles whose spill reloads hit L1 72-80% with a 132 KiB carve-out and ~0% with 228 KiB.
// Output (stdout CSV): smem_per_block,carveout_pct,words,frame_bytes_per_sm,stream_bytes_per_sm,
// iters,us,ns_per_iteration; under ncu (L1F_ONCE=1: one launch a config) the metrics give each
// launch's carve-out and local-load L1 hit rate (l1_frame.py runs and joins both).
// Build: nvcc -O3 -arch=sm_90a -o l1_frame l1_frame.cu     Run: ./l1_frame
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"

constexpr int kMaxWords = 160;
constexpr int kThreads = 128;
constexpr size_t kRegionInt4 = (1u << 20) / 16;  // 1 MiB a block: its stream wraps far past L1

__global__ void frame(int words, int iters, int stream_int4, const int4* __restrict__ stream, int* out) {
  extern __shared__ int smem[];
  volatile int slot[kMaxWords];  // volatile: every access is a local-memory load or store
  for (int i = 0; i < words; ++i) slot[i] = threadIdx.x + i;
  const int4* base = stream + static_cast<size_t>(blockIdx.x) * kRegionInt4;
  size_t at = 0;
  int acc = 0;
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < words; ++i) {
      const int v = slot[i];
      acc += v;
      slot[i] = v + 1;
    }
    for (int j = 0; j < stream_int4; ++j) {
      const int4 x = __ldca(base + at + threadIdx.x);
      acc += x.x ^ x.w;
      at += kThreads;
      if (at + kThreads > kRegionInt4) at = 0;
    }
  }
  if (acc == 0x7fffffff) {
    smem[threadIdx.x] = acc;
    out[0] = smem[(threadIdx.x + 1) % kThreads];
  }
}

// Latency: one warp a block, each thread walking its own frame as a chain (the next slot read is
// the value of the last), so every local load waits for the one before it. The frame is
// written first (a permutation of its slots), then walked `iters` times round.
__global__ void chain(int words, int iters, int* out) {
  extern __shared__ int smem[];
  volatile int slot[kMaxWords];
  for (int i = 0; i < words; ++i) slot[i] = (i + 7) % words;  // one cycle through every slot
  int at = 0;
  for (int it = 0; it < iters * words; ++it) at = slot[at];
  if (at == 0x7fffffff) {
    smem[threadIdx.x] = at;
    out[0] = smem[threadIdx.x];
  }
}

int run_chain() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int* out;
  CK(cudaMalloc(&out, sizeof(int)));
  CK(cudaFuncSetAttribute(chain, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("smem_per_block,warps_per_sm,words,frame_bytes_per_sm,loads,us,ns_per_load\n");
  // One block an SM (the dynamic shared memory keeps a second one out), 1-8 warps; 8 KiB of
  // shared memory leaves the L1 room (carve-out 132 KiB or less), 200 KiB none (228 KiB).
  for (int smem_kib : {8, 200}) {
    CK(cudaFuncSetAttribute(chain, cudaFuncAttributePreferredSharedMemoryCarveout, smem_kib > 100 ? 100 : 50));
    for (int warps : {1, 8})
      for (int words : {16, 64, 160}) {
        const int threads = 32 * warps, iters = 50;
        const int smem = smem_kib * 1024 > 120 * 1024 ? smem_kib * 1024 : 120 * 1024;  // one block an SM
        chain<<<sms, threads, smem_kib > 100 ? smem_kib * 1024 : smem>>>(words, 2, out);
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(e0));
        chain<<<sms, threads, smem_kib > 100 ? smem_kib * 1024 : smem>>>(words, iters, out);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        const double loads = static_cast<double>(iters) * words;
        printf("%d,%d,%d,%d,%.0f,%.1f,%.2f\n", smem_kib > 100 ? smem_kib * 1024 : smem, warps, words,
               threads * words * 4, loads, ms * 1e3, ms * 1e6 / loads);
      }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] == 'c') return run_chain();
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const bool once = getenv("L1F_ONCE") != nullptr;
  const int blocks = 2 * sms;
  int4* stream;
  int* out;
  CK(cudaMalloc(&stream, static_cast<size_t>(blocks) * kRegionInt4 * sizeof(int4)));
  CK(cudaMemset(stream, 1, static_cast<size_t>(blocks) * kRegionInt4 * sizeof(int4)));
  CK(cudaMalloc(&out, sizeof(int)));
  CK(cudaFuncSetAttribute(frame, cudaFuncAttributeMaxDynamicSharedMemorySize, 80 * 1024));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("smem_per_block,carveout_pct,words,frame_bytes_per_sm,stream_bytes_per_sm,iters,us,ns_per_iteration\n");
  const int smem_kib[] = {34, 48, 60, 80};
  const int carve_pct[] = {44, 58, 72, 100};  // of the 228 KiB the carve-out can take
  for (int c = 0; c < 4; ++c) {
    const int smem = smem_kib[c] * 1024;
    CK(cudaFuncSetAttribute(frame, cudaFuncAttributePreferredSharedMemoryCarveout, carve_pct[c]));
    for (int stream_int4 : {0, 4, 8, 16}) {  // 0, 8, 16, 32 KiB a block and iteration
      for (int words : {8, 16, 26, 32, 40, 48, 64, 96, 128}) {
        const int iters = 200;
        if (!once) frame<<<blocks, kThreads, smem>>>(words, 2, stream_int4, stream, out);
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(e0));
        frame<<<blocks, kThreads, smem>>>(words, iters, stream_int4, stream, out);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        printf("%d,%d,%d,%d,%d,%d,%.1f,%.1f\n", smem, carve_pct[c], words, 2 * kThreads * words * 4,
               2 * stream_int4 * kThreads * 16, iters, ms * 1e3, ms * 1e6 / iters);
      }
    }
  }
  return 0;
}
