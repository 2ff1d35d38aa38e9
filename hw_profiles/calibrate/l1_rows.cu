// Register loads whose 32 lanes each read a different row of a matrix: the path of a Triton
// GEMM operand contiguous along N whose N is not a multiple of 16 (the compiler cannot prove
// the wrapped N indices contiguous, so a warp's lanes spread over 32 rows of K; ncu on the
// corpus's 3000x5000x2048 kernels: 32 sectors per warp load instruction).
// Every warp walks 32-row x 64-column tiles of one bf16 matrix shared by all blocks (2048 rows,
// row stride ROW bytes, L2-resident like a GEMM's B): lane l reads row l, instruction u reads
// column u, so a lane's sector serves 16 consecutive instructions from L1 after its first
// touch and each instruction touches 32 lines. Each loaded value is stored to shared memory
// (the tile buffer's st.shared). U = 8 independent loads per iteration.
// Output (stdout CSV): row_bytes,warps_per_sm,ns_per_instr_per_sm,cycles_per_instr
//   (clock 1.98 GHz, the profile's)
// Build: nvcc -O3 -arch=sm_90a -o l1_rows l1_rows.cu     Run: ./l1_rows
#include <cstdio>
#include <cstdlib>

#include "cuda_check.cuh"

constexpr int U = 8;
constexpr int kRows = 2048;

__global__ void rows(const unsigned char* __restrict__ buf, int row_bytes, int iters, unsigned* out) {
  extern __shared__ unsigned short tile[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const int warps = blockDim.x / 32;
  const int col_tiles = row_bytes / 128;  // 64-column (128-byte) tiles per row
  unsigned acc = 0;
  // each warp of each block starts at its own tile
  int tile_id = (blockIdx.x * warps + warp) * 7;
  int col = 0;
  for (int it = 0; it < iters; ++it) {
    const int row0 = (tile_id / col_tiles) % (kRows / 32) * 32;
    const int col0 = (tile_id % col_tiles) * 64;
    const unsigned char* p = buf + (size_t)(row0 + lane) * row_bytes + (size_t)col0 * 2;
    unsigned short v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = *reinterpret_cast<const unsigned short*>(p + 2 * (col + u));
#pragma unroll
    for (int u = 0; u < U; ++u) tile[u * blockDim.x + threadIdx.x] = v[u];
    acc += tile[((it & 7) * blockDim.x + threadIdx.x + 1) % (U * blockDim.x)];
    col += U;
    if (col == 64) col = 0, tile_id += 1;
  }
  if (acc == 0xFFFFFFFFu) out[threadIdx.x] = acc;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned* out;
  CK(cudaMalloc(&out, 4096 * sizeof(unsigned)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("row_bytes,warps_per_sm,ns_per_instr_per_sm,cycles_per_instr\n");
  // 10000 and 14000: the corpus's N = 5000 and 7000 (not multiples of 128: rows straddle lines)
  for (int row_bytes : {10000 / 16 * 16, 14000 / 16 * 16, 10240}) {
    unsigned char* buf;
    CK(cudaMalloc(&buf, (size_t)kRows * row_bytes + 256));
    CK(cudaMemset(buf, 1, (size_t)kRows * row_bytes + 256));
    for (int warps : {4, 8, 12, 16}) {
      const int threads = warps * 32, blocks = sms, iters = 4000;
      const size_t smem = sizeof(unsigned short) * U * threads;
      rows<<<blocks, threads, smem>>>(buf, row_bytes, 16, out);
      CK(cudaDeviceSynchronize());
      CK(cudaEventRecord(e0));
      rows<<<blocks, threads, smem>>>(buf, row_bytes, iters, out);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      const double ns = ms * 1e6 / ((double)iters * U * warps);
      printf("%d,%d,%.3f,%.2f\n", row_bytes, warps, ns, ns * 1.98);
    }
    CK(cudaFree(buf));
  }
  return 0;
}
