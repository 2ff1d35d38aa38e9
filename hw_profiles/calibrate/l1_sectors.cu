// Uncoalesced register loads: how fast one SM's L1 serves warp load instructions whose 32
// lanes touch 2..32 distinct 32-byte sectors. This is the path of a Triton operand whose rows
// the compiler cannot prove 16-byte aligned: element-wise (2-byte) ld.global into registers,
// then st.shared into the tile buffer (tests/validation/h200/ncu_gemm_facts.csv: the K x N
// operand's loads touch 32 sectors per warp instruction).
// Each warp issues U = 8 independent 2-byte loads per iteration, lane l of load u reading
// byte offset (l * STRIDE + (u + 8 * it + warp) * 32 * STRIDE) mod 32 KiB inside its block's slice
// (L2-resident: 4 MiB over the whole grid), then stores the 8 values to shared memory.
// STRIDE 2: 64 contiguous bytes (2 sectors); 16: 16 sectors; 32 and 64: 32 sectors.
// Output (stdout CSV): stride_bytes,sectors_per_instr,warps_per_sm,ns_per_instr_per_sm,
//   instr_per_clk_per_sm,sectors_per_clk_per_sm  (clock 1.98 GHz, the profile's)
// Build: nvcc -O3 -arch=sm_90a -o l1_sectors l1_sectors.cu     Run: ./l1_sectors
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"

constexpr int U = 8;
constexpr size_t kSlice = 32768;  // bytes per block: 4 MiB over 128+ blocks stays in L2

template <int STRIDE>
__global__ void scatter(const unsigned char* __restrict__ buf, int iters, unsigned* out) {
  extern __shared__ unsigned short tile[];
  const int lane = threadIdx.x & 31;
  const unsigned char* base = buf + (size_t)(blockIdx.x % 128) * kSlice;
  unsigned acc = 0;
  for (int it = 0; it < iters; ++it) {
    unsigned short v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const unsigned off = ((unsigned)lane * STRIDE + (unsigned)(u + U * it + threadIdx.x / 32) * 32u * STRIDE) &
                           (unsigned)(kSlice - 2);  // kSlice is a power of two: wrap, keep 2-byte aligned
      v[u] = *reinterpret_cast<const unsigned short*>(base + off);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) tile[u * blockDim.x + threadIdx.x] = v[u];
    acc += tile[((it & 7) * blockDim.x + threadIdx.x + 1) % (U * blockDim.x)];
  }
  if (acc == 0xFFFFFFFFu) out[threadIdx.x] = acc;
}

template <int STRIDE>
void run(int sms, const unsigned char* buf, unsigned* out, cudaEvent_t e0, cudaEvent_t e1) {
  const int sectors = STRIDE * 32 / 32 >= 32 ? 32 : (STRIDE * 32 + 31) / 32;
  for (int warps : {4, 8, 16, 32}) {
    const int threads = warps > 16 ? 512 : warps * 32, blocks_per_sm = warps > 16 ? 2 : 1;
    const int blocks = sms * blocks_per_sm, iters = 4000;
    const size_t smem = sizeof(unsigned short) * U * threads;
    scatter<STRIDE><<<blocks, threads, smem>>>(buf, 10, out);
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    scatter<STRIDE><<<blocks, threads, smem>>>(buf, iters, out);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const double instr_per_sm = (double)iters * U * warps;
    const double ns = ms * 1e6 / instr_per_sm;
    const double per_clk = 1.0 / (ns * 1.98);
    printf("%d,%d,%d,%.3f,%.4f,%.3f\n", STRIDE, sectors, warps, ns, per_clk, per_clk * sectors);
  }
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned char* buf;
  unsigned* out;
  CK(cudaMalloc(&buf, 128 * kSlice));
  CK(cudaMemset(buf, 1, 128 * kSlice));
  CK(cudaMalloc(&out, 4096 * sizeof(unsigned)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("stride_bytes,sectors_per_instr,warps_per_sm,ns_per_instr_per_sm,instr_per_clk_per_sm,sectors_per_clk_per_sm\n");
  run<2>(sms, buf, out, e0, e1);
  run<16>(sms, buf, out, e0, e1);
  run<32>(sms, buf, out, e0, e1);
  run<64>(sms, buf, out, e0, e1);
  return 0;
}
