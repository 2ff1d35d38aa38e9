// Sustained SM clock against what a kernel keeps busy (issue 6: the power-limited clock of
// softmax-heavy attention kernels). Built as a shared library that power_mix.py drives through
// ctypes on torch's stream, so the same process also runs torch's SDPA and cuBLAS kernels.
//   pm_load   : one launch of a synthetic load, each warp per iteration issuing n_mma
//               mma.sync.m16n8k16 bf16 (CH independent accumulators, operands changing every
//               iteration as random data does), n_ex2 MUFU.EX2 and n_fma FFMA per thread
//               (8 independent chains each); block 0 records clock64 and %globaltimer around
//               its loop, so each launch gives its own SM clock (cycles / ns).
//   pm_probe  : one warp spins ~2000 cycles and records the same pair: launched right after a
//               library kernel, it reads the clock that kernel left (the clock is chip-wide and
//               moves on a millisecond scale).
//   pm_read   : copy the records back.
// Build: nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -o libpower_mix.so power_mix.cu
#include <cuda_runtime.h>

namespace {

struct Rec {
  long long cyc;
  unsigned long long ns;
};

constexpr int kMaxRecs = 1 << 16;
Rec* g_recs = nullptr;
float* g_sink = nullptr;

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ float ex2f_approx(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

template <int CH>
__global__ void k_load(float* sink, Rec* rec, long long iters, int n_mma, int n_ex2, int n_fma) {
  const long long c0 = clock64();
  const unsigned long long t0 = gtimer();
  unsigned seed = threadIdx.x * 2654435761u + blockIdx.x * 40503u + 12345u;
  unsigned ra[4], rb[2];
  float d[CH][4];
#pragma unroll
  for (int q = 0; q < CH; ++q)
#pragma unroll
    for (int j = 0; j < 4; ++j) d[q][j] = 0.f;
  float e[8], f[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    e[j] = -0.5f - 1e-3f * static_cast<float>((threadIdx.x + j) & 63);
    f[j] = 1e-3f * static_cast<float>(threadIdx.x + j);
  }
  for (long long i = 0; i < iters; ++i) {
    // new operands every iteration: random signs and mantissas, exponents near 1 (bf16)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      seed = seed * 1664525u + 1013904223u;
      ra[j] = (seed & 0x807f807fu) | 0x3f003f00u;
    }
    rb[0] = (ra[0] ^ ra[2]) & 0x807f807fu | 0x3f003f00u;
    rb[1] = (ra[1] ^ ra[3]) & 0x807f807fu | 0x3f003f00u;
    for (int m = 0; m < n_mma; m += CH) {
#pragma unroll
      for (int q = 0; q < CH; ++q)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
            "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[q][0]), "+f"(d[q][1]), "+f"(d[q][2]), "+f"(d[q][3])
            : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
    }
    for (int x = 0; x < n_ex2; x += 8) {
#pragma unroll
      for (int j = 0; j < 8; ++j) e[j] = ex2f_approx(e[j]) - 1.5f;  // stays in (-1.5, -0.5)
    }
    for (int x = 0; x < n_fma; x += 8) {
#pragma unroll
      for (int j = 0; j < 8; ++j) f[j] = fmaf(f[j], 0.999999f, 1e-7f);
    }
  }
  float s = 0;
#pragma unroll
  for (int q = 0; q < CH; ++q)
#pragma unroll
    for (int j = 0; j < 4; ++j) s += d[q][j];
#pragma unroll
  for (int j = 0; j < 8; ++j) s += e[j] + f[j];
  if (s == 1234.5f) sink[threadIdx.x] = s;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    rec->cyc = clock64() - c0;
    rec->ns = gtimer() - t0;
  }
}

__global__ void k_probe(Rec* rec) {
  const long long c0 = clock64();
  const unsigned long long t0 = gtimer();
  long long c = c0;
  while (c - c0 < 4000) c = clock64();
  rec->cyc = c - c0;
  rec->ns = gtimer() - t0;
}

}  // namespace

extern "C" {

int pm_init() {
  if (cudaMalloc(&g_recs, sizeof(Rec) * kMaxRecs) != cudaSuccess) return 1;
  if (cudaMalloc(&g_sink, sizeof(float) * 1024) != cudaSuccess) return 1;
  return 0;
}

int pm_load(int chains, int n_mma, int n_ex2, int n_fma, int blocks, int threads, long long iters,
            int slot, void* stream) {
  if (slot < 0 || slot >= kMaxRecs) return 2;
  auto s = static_cast<cudaStream_t>(stream);
  Rec* r = g_recs + slot;
  switch (chains) {
    case 1: k_load<1><<<blocks, threads, 0, s>>>(g_sink, r, iters, n_mma, n_ex2, n_fma); break;
    case 2: k_load<2><<<blocks, threads, 0, s>>>(g_sink, r, iters, n_mma, n_ex2, n_fma); break;
    default: k_load<4><<<blocks, threads, 0, s>>>(g_sink, r, iters, n_mma, n_ex2, n_fma); break;
  }
  return static_cast<int>(cudaGetLastError());
}

int pm_probe(int slot, void* stream) {
  if (slot < 0 || slot >= kMaxRecs) return 2;
  k_probe<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>(g_recs + slot);
  return static_cast<int>(cudaGetLastError());
}

int pm_read(int n, long long* cyc, unsigned long long* ns) {
  static Rec host[kMaxRecs];
  if (n > kMaxRecs) return 2;
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  if (cudaMemcpy(host, g_recs, sizeof(Rec) * n, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  for (int i = 0; i < n; ++i) {
    cyc[i] = host[i].cyc;
    ns[i] = host[i].ns;
  }
  return 0;
}

}  // extern "C"
