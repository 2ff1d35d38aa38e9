// Each SM's path from L2 by the GPC it sits in: the blocks of sm_path.cu's loop (cp.async of
// 16 KiB stages into shared memory from an L2-resident buffer, `stages - 1` in flight, one block
// an SM), but only on the SMs a mask names, and every block timed on its own: %globaltimer when
// it starts, after a quarter and three quarters of its iterations, and at its end, with its
// %smid, and clock64() at the two quarters (the SM's clock over that time). The rate between the
// quarters is the SM's while all the named SMs still pull.
// gpc_path.py names the SMs (all, one GPC, 16 of every GPC, ...) and reads the CSV.
// Usage: ./gpc_path STAGES BUFFER_MIB MASK REPS   (MASK: one '0' or '1' per SM id)
// Output (stdout, CSV): rep,smid,active,t_start,t_q1,t_q3,t_end (ns, %globaltimer),c_q1,c_q3 (clock64)
// Build: nvcc -O3 -arch=sm_90a -o gpc_path gpc_path.cu
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cp_async_ring.cuh"
#include "cuda_check.cuh"

constexpr int kIters = 20000;                                // 328 MB an SM

__device__ __forceinline__ long long now_ns() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

struct Record {
  long long smid, active, t_start, t_q1, t_q3, t_end, c_q1, c_q3;
};

template <int S>
__global__ void pull(const int4* __restrict__ buf, size_t buffer_vecs, int iters, const unsigned char* mask,
                     Record* rec) {
  extern __shared__ int4 ring[];  // S stages of kStageBytes
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  const bool active = mask[smid] != 0;
  const long long t_start = now_ns();
  long long t_q1 = 0, t_q3 = 0, c_q1 = 0, c_q3 = 0;
  if (active) {
    const size_t stage_vecs = kStageBytes / 16;
    size_t off = (static_cast<size_t>(blockIdx.x) * 7919 * stage_vecs) % buffer_vecs;
    for (int it = 0; it < iters; ++it) {
      if (it == iters / 4) {
        t_q1 = now_ns();
        c_q1 = clock64();
      }
      if (it == 3 * iters / 4) {
        t_q3 = now_ns();
        c_q3 = clock64();
      }
      copy_stage<S>(ring, buf, buffer_vecs, off, it);
    }
    asm volatile("cp.async.wait_group 0;\n" ::);
  }
  __syncthreads();
  if (threadIdx.x == 0)
    rec[blockIdx.x] = {static_cast<long long>(smid), active ? 1 : 0, t_start, t_q1, t_q3, now_ns(), c_q1, c_q3};
  if (active && ring[threadIdx.x].x == 0x12345678) rec[0].smid = -1;  // keep the copies
}

template <int S>
void run(const int4* buf, size_t buffer_bytes, int blocks, const unsigned char* mask, Record* rec, int reps,
         std::vector<Record>& host) {
  const int smem = 200 * 1024;  // one block an SM
  CK(cudaFuncSetAttribute(pull<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const size_t vecs = buffer_bytes / 16;
  pull<S><<<blocks, kThreads, smem>>>(buf, vecs, kIters / 8, mask, rec);  // warm-up, L2 fill
  CK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; ++r) {
    pull<S><<<blocks, kThreads, smem>>>(buf, vecs, kIters, mask, rec);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host.data(), rec, sizeof(Record) * blocks, cudaMemcpyDeviceToHost));
    for (const Record& x : host)
      printf("%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n", r, x.smid, x.active, x.t_start, x.t_q1, x.t_q3, x.t_end,
             x.c_q1, x.c_q3);
  }
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s STAGES BUFFER_MIB MASK REPS\n", argv[0]);
    return 2;
  }
  const int stages = std::atoi(argv[1]);
  const size_t bytes = static_cast<size_t>(std::atoi(argv[2])) << 20;
  const std::string mask_text = argv[3];
  const int reps = std::atoi(argv[4]);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<unsigned char> mask(256, 0);
  for (size_t i = 0; i < mask_text.size() && i < mask.size(); ++i) mask[i] = mask_text[i] == '1';
  int4* buf;
  unsigned char* dmask;
  Record* rec;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMemset(buf, 1, bytes));
  CK(cudaMalloc(&dmask, mask.size()));
  CK(cudaMemcpy(dmask, mask.data(), mask.size(), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&rec, sizeof(Record) * sms));
  std::vector<Record> host(sms);
  printf("rep,smid,active,t_start,t_q1,t_q3,t_end,c_q1,c_q3\n");
  if (stages == 3) run<3>(buf, bytes, sms, dmask, rec, reps, host);
  else if (stages == 5) run<5>(buf, bytes, sms, dmask, rec, reps, host);
  else {
    fprintf(stderr, "stages must be 3 or 5\n");
    return 2;
  }
  CK(cudaFree(buf));
  CK(cudaFree(dmask));
  CK(cudaFree(rec));
  return 0;
}
