// How ncu counts a TMA multicast's L2 lookups (ncu_tma_multicast.py runs this under ncu).
//
// 128 CTAs in clusters of m (1, 2 or 4) copy REGION bytes, 32 KiB a step, into shared memory
// with bulk copies (cp.async.bulk, the TMA unit), in one of three ways:
//   each    every CTA of the cluster copies the whole step itself (m requests a sector);
//   slice   CTA r of the cluster copies the step's r-th m-th part and multicasts it to all m
//           (CUTLASS's way: each CTA asks for a share, every CTA receives the whole);
//   leader  CTA 0 copies the whole step and multicasts it to all m.
// region: "private" (each cluster its own REGION bytes: every sector is read by one cluster) or
// "shared" (every cluster the same REGION bytes). Each step ends at a cluster barrier, so the
// cluster's CTAs move together. One launch a case, in the order of the cases file.
// copy "bulk": plain bulk copies of 32 contiguous KiB; "tensor": tensor copies (a tensor map, as
// GEMM kernels load), a 256-row x 64-column bf16 box of a row-major matrix 4096 columns wide (a
// GEMM operand's K-major tile: 128 bytes from each 8 KiB row), the cluster's 256 rows walked
// along K, 2 MiB a cluster; a slice is 256 / m of the box's rows.
// Build: nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o tma_multicast tma_multicast.cu -lcuda
// Run:   ./tma_multicast cases.txt      (writes the case list, then launches each once)
#include <cooperative_groups.h>
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "../../../hw_profiles/calibrate/cuda_check.cuh"
#include "tma_util.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kStep = 32 << 10;         // bytes a step, every CTA receives them all
constexpr std::size_t kRegion = 1 << 20;  // bytes a cluster reads
constexpr int kCtas = 128;
enum Mode { kEach = 0, kSlice = 1, kLeader = 2 };
const char* kModeName[] = {"each", "slice", "leader"};

// One arrival a phase (thread 0's expect_tx); seen by the cluster before any multicast lands.
__device__ __forceinline__ void init_barrier(std::uint32_t bar, cg::cluster_group& cluster) {
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster.sync();
}

__global__ void mc_case(const char* src, int mode, int shared_region, unsigned* sink) {
  extern __shared__ __align__(128) char buf[];
  __shared__ __align__(8) std::uint64_t bar_storage;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), m = cluster.num_blocks();
  const char* base = src + (shared_region ? 0 : (blockIdx.x / m) * kRegion);
  const std::uint32_t bar = smem(&bar_storage);
  init_barrier(bar, cluster);
  const std::uint16_t mask = static_cast<std::uint16_t>((1u << m) - 1);
  std::uint32_t parity = 0;
  unsigned acc = 0;
  for (std::size_t off = 0; off < kRegion; off += kStep) {
    if (threadIdx.x == 0)
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kStep) : "memory");
    cluster.sync();  // every CTA expects its bytes before any multicast lands
    if (threadIdx.x == 0) {
      const char* g = base + off;
      if (mode == kEach || m == 1) {
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         smem(buf)),
                     "l"(g), "r"(kStep), "r"(bar)
                     : "memory");
      } else if (mode == kSlice) {
        const unsigned part = kStep / m;
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], "
            "%4;" ::"r"(smem(buf + rank * part)),
            "l"(g + rank * part), "r"(part), "r"(bar), "h"(mask)
            : "memory");
      } else if (rank == 0) {
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], "
            "%4;" ::"r"(smem(buf)),
            "l"(g), "r"(kStep), "r"(bar), "h"(mask)
            : "memory");
      }
    }
    wait_parity(bar, parity);
    parity ^= 1;
    acc += reinterpret_cast<const unsigned*>(buf)[threadIdx.x];
    cluster.sync();  // nobody's buffer is written again until every CTA has read it
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

constexpr int kCols = 4096, kBoxCols = 64, kBoxRows = 256;  // tensor: bf16, 128-byte box rows

__global__ void mc_tensor_case(const __grid_constant__ CUtensorMap map, int mode, int shared_region,
                               unsigned* sink) {
  extern __shared__ __align__(128) char buf[];
  __shared__ __align__(8) std::uint64_t bar_storage;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), m = cluster.num_blocks();
  const int row0 = shared_region ? 0 : static_cast<int>(blockIdx.x / m) * kBoxRows;
  const std::uint32_t bar = smem(&bar_storage);
  init_barrier(bar, cluster);
  const std::uint16_t mask = static_cast<std::uint16_t>((1u << m) - 1);
  const auto map_addr = reinterpret_cast<std::uint64_t>(&map);
  std::uint32_t parity = 0;
  unsigned acc = 0;
  for (int col = 0; col < kCols; col += kBoxCols) {
    if (threadIdx.x == 0)
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kStep) : "memory");
    cluster.sync();
    if (threadIdx.x == 0) {
      if (mode == kEach || m == 1) {
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                smem(buf)),
            "l"(map_addr), "r"(col), "r"(row0), "r"(bar)
            : "memory");
      } else if (mode == kSlice) {  // the map's box is a slice: 256 / m rows
        const int rows = kBoxRows / static_cast<int>(m);
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, "
            "{%2, %3}], [%4], %5;" ::"r"(smem(buf + rank * rows * kBoxCols * 2)),
            "l"(map_addr), "r"(col), "r"(row0 + static_cast<int>(rank) * rows), "r"(bar), "h"(mask)
            : "memory");
      } else if (rank == 0) {
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, "
            "{%2, %3}], [%4], %5;" ::"r"(smem(buf)),
            "l"(map_addr), "r"(col), "r"(row0), "r"(bar), "h"(mask)
            : "memory");
      }
    }
    wait_parity(bar, parity);
    parity ^= 1;
    acc += reinterpret_cast<const unsigned*>(buf)[threadIdx.x];
    cluster.sync();
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}


struct Case {
  int m, mode, shared_region, tensor;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  for (int tensor = 0; tensor < 2; ++tensor)
    for (int shared_region = 0; shared_region < 2; ++shared_region)
      for (int m : {1, 2, 4})
        for (int mode = 0; mode < 3; ++mode)
          if (m > 1 || mode == kEach) cases.push_back({m, mode, shared_region, tensor});
  FILE* f = fopen(argc > 1 ? argv[1] : "cases.txt", "w");
  if (!f) return 1;
  fprintf(f, "case,copy,cluster,mode,region,ctas,region_bytes,step_bytes\n");
  for (std::size_t i = 0; i < cases.size(); ++i)
    fprintf(f, "%zu,%s,%d,%s,%s,%d,%zu,%d\n", i, cases[i].tensor ? "tensor" : "bulk", cases[i].m,
            kModeName[cases[i].mode], cases[i].shared_region ? "shared" : "private", kCtas,
            cases[i].tensor ? std::size_t{kBoxRows} * kCols * 2 : kRegion, kStep);
  fclose(f);

  char* src;
  unsigned* sink;
  const std::size_t tensor_bytes = std::size_t{kCtas} * kBoxRows * kCols * 2;  // 256 MiB
  CK(cudaMalloc(&src, tensor_bytes));
  CK(cudaMemset(src, 1, tensor_bytes));
  const int rows = kCtas * kBoxRows;
  const CUtensorMap whole = bf16_tensor_map(src, rows, kCols, kBoxRows, kBoxCols);
  const CUtensorMap half = bf16_tensor_map(src, rows, kCols, kBoxRows / 2, kBoxCols);
  const CUtensorMap quarter = bf16_tensor_map(src, rows, kCols, kBoxRows / 4, kBoxCols);
  CK(cudaMalloc(&sink, kCtas * 128 * sizeof(unsigned)));
  CK(cudaFuncSetAttribute(mc_case, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(mc_tensor_case, cudaFuncAttributeMaxDynamicSharedMemorySize, kStep));
  for (const Case& c : cases) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(kCtas);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = c.tensor ? kStep : kStep;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = c.m;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    if (c.tensor) {
      const CUtensorMap& map = c.mode == kSlice && c.m == 2 ? half : c.mode == kSlice && c.m == 4 ? quarter : whole;
      CK(cudaLaunchKernelEx(&cfg, mc_tensor_case, map, c.mode, c.shared_region, sink));
    } else {
      CK(cudaLaunchKernelEx(&cfg, mc_case, static_cast<const char*>(src), c.mode, c.shared_region, sink));
    }
    CK(cudaDeviceSynchronize());
  }
  printf("%zu cases ran\n", cases.size());
  return 0;
}
