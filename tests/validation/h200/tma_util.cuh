// What tma_multicast.cu and tma_oob.cu share: smem(p), a shared-memory pointer as the 32-bit
// address PTX takes; wait_parity(bar, parity), spin on an mbarrier's phase; bf16_tensor_map, a
// TMA tensor map over a row-major bf16 matrix, rows x cols (a row at least 16 bytes apart), in
// boxes of box_rows x box_cols, no swizzle unless asked (exits with the error if the driver
// refuses it).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

__device__ __forceinline__ std::uint32_t smem(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void wait_parity(std::uint32_t bar, std::uint32_t parity) {
  asm volatile(
      "{\n .reg .pred p;\n WAIT:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @p bra.uni DONE;\n bra.uni WAIT;\n DONE:\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

inline CUtensorMap bf16_tensor_map(void* base, int rows, int cols, int box_rows, int box_cols,
                                   CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem[2] = {1, 1};
  const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, elem,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(r));
    exit(1);
  }
  return map;
}
