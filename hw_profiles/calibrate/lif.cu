// Loads-in-flight probe: streaming read bandwidth with exactly one block per SM (dynamic
// shared memory sized so no second block fits) vs the bytes each SM keeps in flight.
// Each thread issues U independent 16-byte ld.global.cg loads, then consumes them (XOR),
// so bytes in flight per SM ~= threads * U * 16. By Little's law
//   bandwidth = SMs * bytes_in_flight_per_SM / latency,
// so the slope of the unsaturated part gives the loaded latency.
// Sets: "dram" = 2 GiB buffer streamed once per launch; "l2" = 8 MiB buffer, each block
// re-reading its own 1/132 slice (L2 hits).
// Output (stdout, CSV): set,blocks,threads,unroll,bytes_in_flight_per_sm,gbps,ms
// Build: nvcc -O3 -arch=sm_90a -o lif lif.cu     Run: ./lif [budget_s]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.cuh"

template <int U>
__global__ void stream(const int4* __restrict__ buf, size_t region_vecs, long long iters,
                       int4* out) {
  extern __shared__ int4 pad[];  // only to keep other blocks off this SM
  const int4* base = buf + (size_t)blockIdx.x * region_vecs;
  const size_t chunk = (size_t)blockDim.x * U;
  int a0 = 0, a1 = 0;
  size_t off = threadIdx.x;
#pragma unroll 1  // keep exactly U loads per thread in flight (no cross-iteration overlap)
  for (long long it = 0; it < iters; ++it) {
    int4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcg(base + off + (size_t)u * blockDim.x);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      a0 ^= v[u].x ^ v[u].y;
      a1 ^= v[u].z ^ v[u].w;
    }
    off += chunk;
    if (off + chunk > region_vecs + threadIdx.x) off = threadIdx.x;
  }
  if ((a0 ^ a1) == 0x7fffabcd) {
    out[threadIdx.x] = make_int4(a0, a1, 0, 0);
    pad[0] = out[0];
  }
}

template <int U>
static float run(const int4* buf, size_t region_vecs, long long iters, int blocks, int threads,
                 int4* out, size_t smem) {
  CK(cudaFuncSetAttribute(stream<U>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  cudaEvent_t s, e;
  CK(cudaEventCreate(&s));
  CK(cudaEventCreate(&e));
  stream<U><<<blocks, threads, smem>>>(buf, region_vecs, iters, out);
  CK(cudaGetLastError());
  std::vector<float> t;
  for (int r = 0; r < 3; ++r) {
    CK(cudaEventRecord(s));
    stream<U><<<blocks, threads, smem>>>(buf, region_vecs, iters, out);
    CK(cudaEventRecord(e));
    CK(cudaEventSynchronize(e));
    float ms;
    CK(cudaEventElapsedTime(&ms, s, e));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(s);
  cudaEventDestroy(e);
  return t[1];
}

int main(int argc, char** argv) {
  double budget_s = argc > 1 ? atof(argv[1]) : 30.0;
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&]() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int nsm = p.multiProcessorCount;
  const size_t smem = (size_t)p.sharedMemPerMultiprocessor / 2 + 1024;  // > half: 1 block/SM
  const size_t BIG = size_t(2) << 30;
  int4* buf;
  int4* out;
  CK(cudaMalloc(&buf, BIG));
  CK(cudaMalloc(&out, 1024 * sizeof(int4)));
  CK(cudaMemset(buf, 0x5a, BIG));
  printf("set,blocks,threads,unroll,bytes_in_flight_per_sm,gbps,ms\n");
  fflush(stdout);
  const int threads_list[] = {32, 64, 128, 256, 512, 1024};
  const int unroll_list[] = {1, 2, 4, 8, 16};
  for (int set = 0; set < 2; ++set) {
    for (int th : threads_list) {
      for (int u : unroll_list) {
        if (elapsed() > budget_s) {
          fprintf(stderr, "lif: budget reached\n");
          goto done;
        }
        size_t total_vecs = set == 0 ? BIG / 16 : (size_t(8) << 20) / 16;
        size_t region = total_vecs / nsm;
        size_t chunk = (size_t)th * u;
        if (region < chunk) continue;
        // bytes per launch: dram 2 GiB once (rounded to whole chunks); l2 512 MiB
        size_t per_block = set == 0 ? region / chunk * chunk : (size_t(512) << 20) / 16 / nsm;
        long long iters = (long long)(per_block / chunk);
        if (iters < 1) iters = 1;
        float ms = 0;
        switch (u) {
          case 1: ms = run<1>(buf, region, iters, nsm, th, out, smem); break;
          case 2: ms = run<2>(buf, region, iters, nsm, th, out, smem); break;
          case 4: ms = run<4>(buf, region, iters, nsm, th, out, smem); break;
          case 8: ms = run<8>(buf, region, iters, nsm, th, out, smem); break;
          case 16: ms = run<16>(buf, region, iters, nsm, th, out, smem); break;
        }
        double bytes = (double)iters * chunk * 16.0 * nsm;
        printf("%s,%d,%d,%d,%zu,%.1f,%.5f\n", set == 0 ? "dram" : "l2", nsm, th, u,
               chunk * 16, bytes / (ms * 1e-3) / 1e9, ms);
        fflush(stdout);
      }
    }
  }
done:
  cudaFree(buf);
  cudaFree(out);
  return 0;
}
