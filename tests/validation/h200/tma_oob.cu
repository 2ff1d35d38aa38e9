// How ncu counts a TMA box that runs past the tensor (ncu_tma_oob.py runs this under ncu).
//
// cuBLAS's skinny kernels load boxes taller than the matrix: a 1 x 4096 activation read in boxes
// of 8, 16 or 32 rows (its tile's extent along M). The tensor copy fills the rows past the
// tensor's edge with zeros; does it still look them up in L2? One CTA copies a row-major bf16
// matrix of R rows x 4096 columns through a tensor map of those dims, in boxes of B rows x 64
// columns (128 bytes of each row), walking K; one launch a case (R, B), B >= R. Then the box
// past the edge along the contiguous dim (a 16-column B under a 64-column tile): a C-column x
// 4096-row matrix (C = 8, 16, 32) in boxes of 64 rows x 64 columns, walking the rows. Last,
// boxes wholly inside (64 x 4096 in boxes of 64 rows as wide as the swizzle) copied with the
// shared-memory swizzles GEMM kernels use (32, 64, 128 bytes): does a swizzled copy ask for
// its lines in pieces?
// Build: nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o tma_oob tma_oob.cu -lcuda
// Run:   ./tma_oob cases.txt      (writes the case list, then launches each once)
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../../hw_profiles/calibrate/cuda_check.cuh"
#include "tma_util.cuh"

namespace {

constexpr int kCols = 4096, kBoxCols = 64;

__global__ void oob_case(const __grid_constant__ CUtensorMap map, int box_rows, int box_cols, int down, unsigned* sink) {
  extern __shared__ __align__(1024) char buf[];  // a 128-byte swizzle wants 1024
  __shared__ __align__(8) std::uint64_t bar_storage;
  const std::uint32_t bar = smem(&bar_storage);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  const auto map_addr = reinterpret_cast<std::uint64_t>(&map);
  const std::uint32_t bytes = static_cast<std::uint32_t>(box_rows * box_cols) * 2;  // OOB fill counts
  std::uint32_t parity = 0;
  unsigned acc = 0;
  for (int step = 0; step < kCols; step += down ? box_rows : box_cols) {
    const int col = down ? 0 : step, row = down ? step : 0;
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
              smem(buf)),
          "l"(map_addr), "r"(col), "r"(row), "r"(bar)
          : "memory");
    }
    wait_parity(bar, parity);
    parity ^= 1;
    acc += reinterpret_cast<const unsigned*>(buf)[threadIdx.x];
    __syncthreads();
  }
  sink[threadIdx.x] = acc;
}


}  // namespace

int main(int argc, char** argv) {
  struct Case {
    int rows, box_rows, cols;  // cols < kCols: the box runs past the edge along the columns
    int swizzle = 0;           // bytes: 0 (none), 32, 64, 128; a box row as wide (at most 128)
    int box_cols() const { return swizzle > 0 ? swizzle / 2 : kBoxCols; }
  };
  std::vector<Case> cases;
  for (int rows : {1, 2, 4, 8, 16, 32, 64})
    for (int box : {8, 16, 32, 64, 128})
      if (box >= rows) cases.push_back({rows, box, kCols});
  for (int cols : {8, 16, 32, 64}) cases.push_back({kCols, 64, cols});
  for (int swizzle : {32, 64, 128}) cases.push_back({64, 64, kCols, swizzle});
  FILE* f = fopen(argc > 1 ? argv[1] : "cases.txt", "w");
  if (!f) return 1;
  fprintf(f, "case,rows,box_rows,cols,box_cols,swizzle\n");
  for (std::size_t i = 0; i < cases.size(); ++i)
    fprintf(f, "%zu,%d,%d,%d,%d,%d\n", i, cases[i].rows, cases[i].box_rows, cases[i].cols, cases[i].box_cols(),
            cases[i].swizzle);
  fclose(f);
  char* src;
  unsigned* sink;
  CK(cudaMalloc(&src, std::size_t{kCols} * kCols * 2));
  CK(cudaMemset(src, 1, std::size_t{kCols} * kCols * 2));
  CK(cudaMalloc(&sink, 1024 * sizeof(unsigned)));
  CK(cudaFuncSetAttribute(oob_case, cudaFuncAttributeMaxDynamicSharedMemorySize, 128 * kBoxCols * 2));
  for (const Case& c : cases) {
    const CUtensorMapSwizzle swizzle = c.swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                       : c.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                       : c.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                         : CU_TENSOR_MAP_SWIZZLE_NONE;
    const CUtensorMap map = bf16_tensor_map(src, c.rows, c.cols, c.box_rows, c.box_cols(), swizzle);
    oob_case<<<1, 128, c.box_rows * c.box_cols() * 2>>>(map, c.box_rows, c.box_cols(), c.cols < kCols ? 1 : 0, sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  printf("%zu cases ran\n", cases.size());
  return 0;
}
