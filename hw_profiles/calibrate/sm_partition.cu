// Which L2 partition each SM sits next to, and which SM each CTA of a launch runs on.
//
// dispatch: CTAs that stay resident (each spins 200 us) record %smid; grids of 132 x R CTAs
//   with R CTAs an SM (dynamic shared memory allows no more), R = 1-8, 10, 12, 16, three
//   launches each.
//   CSV: dispatch,R,rep,cta,smid
// partition: LINES lines of 128 B at random places in a 64 MiB buffer. For each target SM t:
//   flush the L2 (a read of 512 MiB), let SM 0 read every line once (its fill: each line is
//   then in L2, in its home partition and, homed in the other one, copied next to SM 0), then
//   SM t times its first read of each line, one load at a time (ld.global.cg, clock64 around
//   a load whose result a shared-memory store waits for). An SM next to SM 0's partition finds
//   every line near (~290 cycles, pointer_chase.csv); one next to the other partition finds the
//   lines homed there near and the rest far (~535 cycles): about half slow.
//   Mode "cold" skips SM 0's fill: every first read misses L2, and a line homed in the far
//   partition pays the crossing on top of DRAM.
//   CSV: mode,target_sm,line,cycles
// Build: nvcc -O3 -arch=sm_90a -o sm_partition sm_partition.cu
// Run:   ./sm_partition dispatch.csv partition.csv
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "cuda_check.cuh"
#include "line_probe.cuh"
#include "sm_clock.cuh"

namespace {

constexpr int kLines = 512;
constexpr std::size_t kProbeBytes = 64ull << 20;
constexpr std::size_t kFlushBytes = 512ull << 20;

__global__ void where(int* out, unsigned long long spin_ns) {
  extern __shared__ char pad[];
  if (threadIdx.x != 0) return;
  out[blockIdx.x] = static_cast<int>(smid());
  pad[0] = 0;
  const unsigned long long t0 = gtimer();
  while (gtimer() - t0 < spin_ns) {
  }
}

// One CTA an SM (its shared memory allows no more): the CTA on SM `filler` (if >= 0) reads every
// line; after a grid-wide pause the CTA on SM `target` times its read of every line.
__global__ void probe(const uint32_t* buf, const uint32_t* offs, int filler, int target, uint32_t* lat,
                      unsigned long long pause_ns) {
  extern __shared__ uint32_t s_lat[];  // kLines + 1 latencies, kLines offsets, kLines values
  uint32_t* s_offs = s_lat + kLines + 1;
  uint32_t* s_val = s_offs + kLines;
  if (threadIdx.x != 0) return;
  for (int i = 0; i < kLines; ++i) s_offs[i] = offs[i];  // no global load inside the timed reads
  const unsigned sm = smid();
  const unsigned long long t0 = gtimer();
  if (static_cast<int>(sm) == filler) {
    uint32_t v = 0;
    for (int i = 0; i < kLines; ++i) v += __ldcg(buf + s_offs[i] + (v & 1u));
    s_lat[kLines] = v;
  }
  while (gtimer() - t0 < pause_ns) {
  }
  if (static_cast<int>(sm) != target) return;
  time_first_reads(buf, s_offs, kLines, s_lat, s_val);
  for (int i = 0; i < kLines; ++i) lat[i] = s_lat[i] + (s_val[i] & 0x80000000u);  // values are 0
}

}  // namespace

int main(int argc, char** argv) {
  const char* dispatch_csv = argc > 1 ? argv[1] : "sm_dispatch.csv";
  const char* partition_csv = argc > 2 ? argv[2] : "sm_partition.csv";
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const int smem_max = static_cast<int>(prop.sharedMemPerMultiprocessor);
  CK(cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(prop.sharedMemPerBlockOptin)));
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(prop.sharedMemPerBlockOptin)));

  FILE* f = fopen(dispatch_csv, "w");
  fprintf(f, "resident,rep,cta,smid\n");
  int* d_out = nullptr;
  CK(cudaMalloc(&d_out, sizeof(int) * sms * 16));
  for (const int r : {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16}) {
    const int smem = smem_max / r - 2048;  // the SM reserves 1 KiB a CTA
    for (int rep = 0; rep < 3; ++rep) {
      where<<<sms * r, 32, smem>>>(d_out, 200000);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<int> out(sms * r);
      CK(cudaMemcpy(out.data(), d_out, sizeof(int) * out.size(), cudaMemcpyDeviceToHost));
      for (int c = 0; c < sms * r; ++c) fprintf(f, "%d,%d,%d,%d\n", r, rep, c, out[c]);
    }
  }
  fclose(f);

  uint32_t *d_buf = nullptr, *d_offs = nullptr, *d_lat = nullptr;
  uint4 *d_flush = nullptr, *d_sink = nullptr;
  CK(cudaMalloc(&d_buf, kProbeBytes));
  CK(cudaMemset(d_buf, 0, kProbeBytes));
  CK(cudaMalloc(&d_flush, kFlushBytes));
  CK(cudaMemset(d_flush, 1, kFlushBytes));
  CK(cudaMalloc(&d_sink, sizeof(uint4)));
  CK(cudaMalloc(&d_lat, sizeof(uint32_t) * kLines));
  std::vector<uint32_t> offs(kLines);
  std::mt19937 rng(7);
  const uint32_t lines = kProbeBytes / 128;
  std::vector<bool> used(lines, false);
  for (int i = 0; i < kLines; ++i) {
    uint32_t l;
    do l = rng() % lines; while (used[l]);
    used[l] = true;
    offs[i] = l * 32;  // in uint32 elements
  }
  CK(cudaMalloc(&d_offs, sizeof(uint32_t) * kLines));
  CK(cudaMemcpy(d_offs, offs.data(), sizeof(uint32_t) * kLines, cudaMemcpyHostToDevice));

  f = fopen(partition_csv, "w");
  fprintf(f, "mode,target_sm,line,cycles\n");
  const int probe_smem = static_cast<int>(prop.sharedMemPerBlockOptin);
  for (int mode = 0; mode < 2; ++mode) {
    for (int t = 0; t < sms; ++t) {
      flush<<<sms * 4, 512>>>(d_flush, kFlushBytes / sizeof(uint4), d_sink);
      probe<<<sms, 32, probe_smem>>>(d_buf, d_offs, mode == 0 ? 0 : -1, t, d_lat, 400000);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<uint32_t> lat(kLines);
      CK(cudaMemcpy(lat.data(), d_lat, sizeof(uint32_t) * kLines, cudaMemcpyDeviceToHost));
      for (int i = 0; i < kLines; ++i) fprintf(f, "%s,%d,%d,%u\n", mode == 0 ? "filled" : "cold", t, i, lat[i]);
    }
  }
  fclose(f);
  printf("sms %d, smem/SM %d, lines %d\n", sms, smem_max, kLines);
  return 0;
}
