// Pointer-chasing latency: one thread, dependent loads over a random cyclic permutation
// of nodes 128 B apart, working sets 16 KiB .. 1 GiB.
//   variant "ca": ld.global.ca (L1 + L2), variant "cg": ld.global.cg (L2 only).
// Output (stdout, CSV): variant,bytes,nodes,loads,ns_per_load,cycles_per_load,sm_mhz
// Also writes a per-load latency histogram (clock64 cycles, 8-cycle bins, 4096 samples
// per set, one load timed at a time via a shared-memory store that waits for the load)
// to the file named by argv[2] (default pchase_hist.csv).
// Build: nvcc -O3 -arch=sm_90a -o pchase pchase.cu      Run: ./pchase [budget_s] [hist.csv]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cuda_check.cuh"

static const int STRIDE_U32 = 32;  // 128 bytes between nodes

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <bool CG>
__device__ __forceinline__ uint32_t ld(const uint32_t* p) {
  return CG ? __ldcg(p) : __ldca(p);
}

template <bool CG>
__global__ void chase(const uint32_t* __restrict__ arr, uint32_t start, long long n,
                      uint32_t* out, long long* cycles, unsigned long long* ns) {
  uint32_t idx = start;
  long long c0 = clock64();
  unsigned long long t0 = gtimer();
#pragma unroll 8
  for (long long i = 0; i < n; ++i) idx = ld<CG>(arr + idx);
  long long c1 = clock64();
  unsigned long long t1 = gtimer();
  out[0] = idx;
  cycles[0] = c1 - c0;
  ns[0] = t1 - t0;
}

static const int NSAMP = 4096;

template <bool CG>
__global__ void chase_hist(const uint32_t* __restrict__ arr, uint32_t start, uint32_t* out,
                           uint32_t* lat) {
  __shared__ uint32_t s_idx[NSAMP];
  __shared__ uint32_t s_lat[NSAMP];
  uint32_t idx = start;
  for (int i = 0; i < NSAMP; ++i) {
    long long c0 = clock64();
    idx = ld<CG>(arr + idx);
    s_idx[i] = idx;  // waits for the load
    long long c1 = clock64();
    s_lat[i] = (uint32_t)(c1 - c0);
  }
  for (int i = 0; i < NSAMP; ++i) lat[i] = s_lat[i];
  out[0] = s_idx[NSAMP - 1];
}

// Random single cycle over `nodes` (Sattolo), written as element indices into h.
static uint32_t build(std::vector<uint32_t>& h, size_t nodes, std::mt19937_64& rng) {
  std::vector<uint32_t> perm(nodes);
  for (size_t i = 0; i < nodes; ++i) perm[i] = (uint32_t)i;
  for (size_t i = nodes - 1; i > 0; --i) {
    std::uniform_int_distribution<size_t> d(0, i - 1);
    std::swap(perm[i], perm[d(rng)]);
  }
  // perm is a random cyclic permutation: node i -> perm[i]
  h.assign(nodes * STRIDE_U32, 0u);
  for (size_t i = 0; i < nodes; ++i) h[i * STRIDE_U32] = perm[i] * STRIDE_U32;
  return 0;
}

int main(int argc, char** argv) {
  double budget_s = argc > 1 ? atof(argv[1]) : 60.0;
  const char* hist_path = argc > 2 ? argv[2] : "pchase_hist.csv";
  auto t_start = std::chrono::steady_clock::now();
  auto elapsed = [&]() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  };
  const size_t MAXB = size_t(1) << 30;
  uint32_t* d_arr;
  uint32_t* d_out;
  long long* d_cyc;
  unsigned long long* d_ns;
  uint32_t* d_lat;
  CK(cudaMalloc(&d_arr, MAXB));
  CK(cudaMalloc(&d_out, 64));
  CK(cudaMalloc(&d_cyc, 64));
  CK(cudaMalloc(&d_ns, 64));
  CK(cudaMalloc(&d_lat, NSAMP * 4));
  std::mt19937_64 rng(12345);
  std::vector<uint32_t> h;

  // sizes: 16 KiB .. 1 GiB, two per octave, plus a finer grid inside 16..96 MiB
  std::vector<size_t> sizes;
  for (int i = 0; i <= 32; ++i) {
    double b = 16384.0 * pow(2.0, i / 2.0);
    size_t s = (size_t)(b / 128.0 + 0.5) * 128;
    sizes.push_back(s);
  }
  for (int mb = 20; mb <= 96; mb += 4) sizes.push_back((size_t)mb << 20);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

  printf("variant,bytes,nodes,loads,ns_per_load,cycles_per_load,sm_mhz\n");
  fflush(stdout);
  for (size_t bytes : sizes) {
    if (elapsed() > budget_s) {
      fprintf(stderr, "pchase: budget reached at %zu bytes\n", bytes);
      break;
    }
    size_t nodes = bytes / 128;
    build(h, nodes, rng);
    CK(cudaMemcpy(d_arr, h.data(), nodes * 128, cudaMemcpyHostToDevice));
    for (int v = 0; v < 2; ++v) {
      bool cg = v == 1;
      if (!cg && bytes > (size_t(8) << 20)) continue;  // L1 only matters for small sets
      long long warm = (long long)std::min<size_t>(nodes, size_t(1) << 20);
      long long n = bytes > (size_t(256) << 20) ? 100000 : 200000;
      if (cg) {
        chase<true><<<1, 1>>>(d_arr, 0, warm, d_out, d_cyc, d_ns);
        chase<true><<<1, 1>>>(d_arr, 0, n, d_out, d_cyc, d_ns);
      } else {
        chase<false><<<1, 1>>>(d_arr, 0, warm, d_out, d_cyc, d_ns);
        chase<false><<<1, 1>>>(d_arr, 0, n, d_out, d_cyc, d_ns);
      }
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      long long cyc;
      unsigned long long ns;
      CK(cudaMemcpy(&cyc, d_cyc, 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(&ns, d_ns, 8, cudaMemcpyDeviceToHost));
      printf("%s,%zu,%zu,%lld,%.2f,%.1f,%.0f\n", cg ? "cg" : "ca", bytes, nodes, n,
             (double)ns / n, (double)cyc / n, ns ? (double)cyc / ns * 1000.0 : 0.0);
      fflush(stdout);
    }
  }

  // Per-load latency histograms (one load at a time).
  FILE* fh = fopen(hist_path, "w");
  if (fh) {
    fprintf(fh, "variant,bytes,cycles_bin_lo,count\n");
    struct HS {
      bool cg;
      size_t bytes;
    } hs[] = {{false, 32 << 10}, {true, 32 << 10},        {true, 4 << 20},
              {true, 16 << 20},  {true, 48 << 20},        {true, size_t(1) << 30}};
    for (auto& x : hs) {
      if (elapsed() > budget_s + 20) break;
      size_t nodes = x.bytes / 128;
      build(h, nodes, rng);
      CK(cudaMemcpy(d_arr, h.data(), nodes * 128, cudaMemcpyHostToDevice));
      long long warm = (long long)std::min<size_t>(nodes, size_t(1) << 20);
      if (x.cg) {
        chase<true><<<1, 1>>>(d_arr, 0, warm, d_out, d_cyc, d_ns);
        chase_hist<true><<<1, 1>>>(d_arr, 0, d_out, d_lat);
      } else {
        chase<false><<<1, 1>>>(d_arr, 0, warm, d_out, d_cyc, d_ns);
        chase_hist<false><<<1, 1>>>(d_arr, 0, d_out, d_lat);
      }
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<uint32_t> lat(NSAMP);
      CK(cudaMemcpy(lat.data(), d_lat, NSAMP * 4, cudaMemcpyDeviceToHost));
      std::vector<int> bins(1 << 12, 0);
      for (uint32_t l : lat) bins[std::min<uint32_t>(l / 8, (1 << 12) - 1)]++;
      for (size_t b = 0; b < bins.size(); ++b)
        if (bins[b]) fprintf(fh, "%s,%zu,%zu,%d\n", x.cg ? "cg" : "ca", x.bytes, b * 8, bins[b]);
    }
    fclose(fh);
  }
  cudaFree(d_arr);
  return 0;
}
