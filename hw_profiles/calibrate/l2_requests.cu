// What an SM's loads from L2 cost when they come as narrow rows: every SM runs one block that
// copies 16 KiB a stage into shared memory with cp.async (16 bytes a thread, .cg), as Triton's
// GEMM loops do, keeping `stages - 1` stages in flight. A stage is two 8 KiB parts, like a
// GEMM's A and B tiles: part a is rows of `row_a` bytes, part b rows of `row_b` bytes, each row
// at an 8 KiB pitch (a bf16 matrix 4096 wide), so a row narrower than a line (128 B) is a
// request for fewer sectors of it, and the next stage asks for the next sectors of the same
// lines, as a GEMM's k-loop does with BLOCK_K 32 (64-byte rows of A). `share` blocks in a row
// of the grid read the same rows at the same time, as the CTAs of one tile row of a GEMM do.
// The buffer is read once before timing, so every load hits in L2.
// Output (stdout, CSV): buffer_bytes,row_a,row_b,share,stages,active_sms,requests_per_stage,
//   sectors_per_stage,us,gbps_per_sm,requests_per_clk_per_sm,sectors_per_clk_per_sm
// `./l2_requests active`: rows of 128 or 64 and 256 bytes from the 32 MiB buffer, unshared,
// with 1-132 SMs copying (h200/l2_requests_active.csv).
// `./l2_requests share`: whole-line rows (128 and 256 bytes) from the 32 MiB buffer, every SM
// copying, `share` = 1-16 blocks reading the same rows at once, either neighbouring launch slots
// (next to one L2 partition on the H200, sm_partition.cu) or slots spread over the grid
// (both partitions): how much of the L2 path's time merged requests save (h200/l2_requests_share.csv;
// the CSV gains a `spread` column).
// `./l2_requests distance`: the same with `share` readers exactly `spread` launch slots apart
// (block b reads with the blocks b +- spread, ... as ncu_share.py's CTAs do): 2 and 4 readers
// 1-64 slots apart, 3 and 5 stages (h200/l2_requests_distance.csv; `spread` = the distance).
// (a request is one row's part of one 128-byte line; clocks at 1.98 GHz)
// Build: nvcc -O3 -arch=sm_90a -o l2_requests l2_requests.cu     Run: ./l2_requests [active]
#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include "cuda_check.cuh"

constexpr int kThreads = 256;
constexpr int kPartBytes = 8192;
constexpr int kStageBytes = 2 * kPartBytes;
constexpr int kPitch = 8192;
constexpr double kClockHz = 1.98e9;

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}

// One part's walk: the rows a stage reads and where in them, kept incrementally so that the
// loop issues little besides the copies (regions are powers of two: a mask wraps the rows).
struct Walk {
  unsigned rel_row[2], vcol[2];  // this thread's two vectors of the part
  unsigned row_base, col, rows, row_bytes, row_mask;
  __device__ Walk(int row_bytes_, unsigned first_row, int first_chunk, unsigned region_rows)
      : row_bytes(row_bytes_), row_mask(region_rows - 1) {
    const unsigned vecs_per_row = row_bytes / 16, chunks = kPitch / row_bytes;
    rows = kPartBytes / row_bytes;
    for (int k = 0; k < 2; ++k) {
      const unsigned v = threadIdx.x + k * kThreads;
      rel_row[k] = v / vecs_per_row;
      vcol[k] = (v % vecs_per_row) * 16;
    }
    row_base = first_row + (first_chunk / chunks) * rows;
    col = (first_chunk % chunks) * row_bytes;
  }
  __device__ unsigned offset(int k) const { return ((row_base + rel_row[k]) & row_mask) * kPitch + col + vcol[k]; }
  __device__ void next() {
    col += row_bytes;
    if (col == kPitch) col = 0, row_base += rows;
  }
};

template <int S>
__global__ void pull(const char* __restrict__ buf, unsigned region_bytes, int row_a, int row_b,
                     int share, int spread, int iters, int* out) {
  extern __shared__ int4 ring[];
  const unsigned region_rows = region_bytes / kPitch;
  // Blocks of one group read the same bytes at the same time; groups start at other rows and
  // other columns, so that no two groups ask for the same sectors at once.
  // spread < 0: readers -spread slots apart; 1: spread over the grid; 0: side by side.
  const unsigned group = spread < 0   ? blockIdx.x % (-spread) + (-spread) * (blockIdx.x / (-spread * share))
                         : spread > 0 ? blockIdx.x % (gridDim.x / share)
                                      : blockIdx.x / share;
  Walk a(row_a, group * 97, group * 37, region_rows), b(row_b, group * 97, group * 37, region_rows);
  const char* base_b = buf + region_bytes;
  constexpr int kVecs = kPartBytes / 16;  // per part: two a thread
  for (int it = 0; it < iters; ++it) {
    int4* stage = ring + static_cast<size_t>(it % S) * (kStageBytes / 16);
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int v = threadIdx.x + k * kThreads;
      cp_async16(stage + v, buf + a.offset(k));
      cp_async16(stage + kVecs + v, base_b + b.offset(k));
    }
    asm volatile("cp.async.commit_group;\n" ::);
    asm volatile("cp.async.wait_group %0;\n" ::"n"(S - 1));
    a.next();
    b.next();
  }
  asm volatile("cp.async.wait_group 0;\n" ::);
  __syncthreads();
  if (ring[threadIdx.x].x == 0x12345678) out[0] = 1;  // keep the copies
}

template <int S>
float run(const char* buf, unsigned region, int row_a, int row_b, int share, int spread, int blocks, int iters,
          int* out) {
  const int smem = 200 * 1024;  // one block per SM
  CK(cudaFuncSetAttribute(pull<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  pull<S><<<blocks, kThreads, smem>>>(buf, region, row_a, row_b, share, spread, iters / 4, out);  // L2 fill
  CK(cudaDeviceSynchronize());
  return best_of_ms([&] { pull<S><<<blocks, kThreads, smem>>>(buf, region, row_a, row_b, share, spread, iters, out); });
}

int requests(int row_bytes) { return (kPartBytes / row_bytes) * ((row_bytes + 127) / 128); }

float run_stages(int s, const char* buf, unsigned region, int row_a, int row_b, int share, int spread, int blocks,
                 int iters, int* out) {
  return s == 2   ? run<2>(buf, region, row_a, row_b, share, spread, blocks, iters, out)
         : s == 3 ? run<3>(buf, region, row_a, row_b, share, spread, blocks, iters, out)
                  : run<5>(buf, region, row_a, row_b, share, spread, blocks, iters, out);
}

int main(int argc, char** argv) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t max_region = 16u << 20;
  char* buf;
  int* out;
  CK(cudaMalloc(&buf, 2 * max_region));
  CK(cudaMemset(buf, 1, 2 * max_region));
  CK(cudaMalloc(&out, sizeof(int)));
  const int iters = 8000;  // 131 MB per SM
  const bool distance_mode = argc > 1 && std::string(argv[1]) == "distance";
  const bool share_mode = distance_mode || (argc > 1 && std::string(argv[1]) == "share");
  auto row = [&](unsigned region, int a, int b, int share, int s, int active, int spread = 0) {
    const float ms = run_stages(s, buf, region, a, b, share, spread, active, iters, out);
    const double sec = ms * 1e-3, clocks = sec * kClockHz;
    const int req = requests(a) + requests(b);
    const double moved = static_cast<double>(iters) * kStageBytes;
    printf("%u,%d,%d,%d,%d,%d,%d,%d,%.1f,%.1f,%.4f,%.4f", 2 * region, a, b, share, s, active, req,
           kStageBytes / 32, ms * 1e3, moved / sec / 1e9, iters * req / clocks, iters * (kStageBytes / 32.0) / clocks);
    printf(share_mode ? ",%d\n" : "\n", spread < 0 ? -spread : spread);
    fflush(stdout);
  };
  printf("buffer_bytes,row_a,row_b,share,stages,active_sms,requests_per_stage,sectors_per_stage,us,"
         "gbps_per_sm,requests_per_clk_per_sm,sectors_per_clk_per_sm%s\n", share_mode ? ",spread" : "");
  if (distance_mode) {
    row(static_cast<unsigned>(max_region), 128, 256, 1, 3, sms);
    row(static_cast<unsigned>(max_region), 128, 256, 1, 5, sms);
    for (int share : {2, 4})
      for (int d : {1, 2, 4, 8, 16, 32, 64})
        for (int s : {3, 5})
          if (share * d <= sms) row(static_cast<unsigned>(max_region), 128, 256, share, s, sms, -d);
    return 0;
  }
  if (share_mode) {
    for (const auto& p : {std::array<int, 2>{128, 256}, std::array<int, 2>{256, 256}})
      for (int share : {1, 2, 4, 8, 16})
        for (int spread : {0, 1})
          for (int s : {2, 3, 5})
            if (share > 1 || spread == 0) row(static_cast<unsigned>(max_region), p[0], p[1], share, s, sms, spread);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "active") {
    // GEMM-like rows (A: 128 or 64 bytes, B: 256) from the 32 MiB buffer, 1-132 SMs copying.
    for (int active : {1, 2, 4, 8, 16, 32, 48, 64, 96, 132})
      for (const auto& p : {std::array<int, 2>{128, 256}, std::array<int, 2>{64, 256}})
        for (int s : {3, 5}) row(static_cast<unsigned>(max_region), p[0], p[1], 1, s, std::min(active, sms));
    return 0;
  }
  const int pairs[][2] = {{32, 32}, {64, 64}, {128, 128}, {256, 256}, {512, 512},
                          {32, 256}, {64, 256}, {128, 256}, {64, 512}, {128, 512}};
  for (unsigned region : {4u << 20, static_cast<unsigned>(max_region)})
    for (const auto& p : pairs)
      for (int share : {1, 8})
        for (int s : {2, 3, 5}) row(region, p[0], p[1], share, s, sms);
  CK(cudaFree(buf));
  CK(cudaFree(out));
  return 0;
}
