// How long does a read stay open to merges in the L2 request coalescer (LRC)?
//
// Two SMs read the same 256 KiB, 32 sectors (one warp's ld.global.cg, 32 B apart) every
// `pace` ns; the follower runs `delay` ns behind the leader. Under ncu the coalescer's
// counters say how many of the follower's sectors merged into the leader's reads: the sectors
// it hands the GPCs (lrc__xbar2gpc_sectors_op_read) less those it reads from the L2 slices
// (lrc__lts2lrc_sectors_op_read), over the follower's 8192. The delay where that share falls
// off is the window; hw_profiles/calibrate/lrc_window.py runs and parses it.
//
// Launches (each `lrc_pair`, one CTA an SM on all 132 SMs; those neither leader nor follower
// idle or make the load):
//   pair     leader SM 0 with follower SM 1 (same TPC), 8 (next to the same L2 partition) or
//            2 (next to the other partition; sm_partition.csv)
//   lines    cold (an L2 flush, a read of 512 MiB, before the launch: the leader's reads miss)
//            or warm (the 256 KiB read once before: they hit)
//   load     none; dram (the other 130 SMs stream 1 GiB of their own, every read a miss); or
//            l2 (they re-read 32 MiB of their own, read once before: hits)
//   delay    0-3200 ns
// `domain [LEADERS]` instead: every other SM as the follower of each leader (default SM 0), no
// delay, no load, cold lines: which SMs' reads merge at all. `fine`: SM 1 only, no load, cold
// and warm, delays 0-500 ns in steps down to 16 ns (%globaltimer ticks every 32 ns). `cross`:
// follower SM 2 (the other partition) and SM 8 (the same one, the control), no load, cold
// and warm lines, delays 0-1000 ns: which side's request reaches a line's home first (the per-source
// hits, lrc_window.py --cross). `fineload`: SM 1 behind SM 0, warm lines only, delays 0-600 ns in
// steps down to 16 ns, with no load and with the other SMs re-reading their 32 MiB of hits: all
// 130, every other one, or one in four (load l2, l2half, l2quarter): how long a hit's read stays
// open as the L2 slices get busier (lrc_window.py --fine-load).
// Build: nvcc -O3 -arch=sm_90a -o lrc_window lrc_window.cu
// Run:   ./lrc_window configs.csv [domain [0,2,4]]   (writes the launch list; run it under ncu,
//        see the .py)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "sm_clock.cuh"

namespace {

constexpr int kThreads = 128;
constexpr int kSteps = 256;                     // 32 sectors a step: 256 KiB in all
constexpr long long kPaceNs = 500;              // a step every 500 ns
constexpr std::size_t kProbeWords = kSteps * 32 * 8;  // 32-byte sectors, 4-byte words
constexpr std::size_t kDramWords = (1ull << 30) / 4;
constexpr std::size_t kL2Words = (32ull << 20) / 4;
constexpr std::size_t kFlushWords = (512ull << 20) / 4;
constexpr int kSmemBytes = 120 * 1024;          // one CTA an SM

__device__ __forceinline__ unsigned load_cg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// load: 0 none, 1 dram (bg of kDramWords), 2 l2 (bg of kL2Words), 3 and 4 l2 from every other
// and every fourth background CTA (the rest wait)
__global__ void lrc_pair(const unsigned* probe, const unsigned* bg, unsigned* sink, int leader, int follower,
                         long long delay_ns, int load, unsigned* arrived, unsigned long long* start) {
  extern __shared__ unsigned char smem[];
  const unsigned sm = smid();
  const bool lead = sm == static_cast<unsigned>(leader), follow = sm == static_cast<unsigned>(follower);
  if (!lead && !follow && load == 0) return;
  // Every CTA taking part waits for the others (all 132 are resident: one an SM).
  const unsigned parties = load == 0 ? 2u : gridDim.x;
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1u);
    while (atomicAdd(arrived, 0u) < parties) {
    }
    if (lead) atomicExch(start, gtimer() + 4000);  // the pair starts 4 us from now
  }
  __syncthreads();
  volatile unsigned long long* vstart = start;
  unsigned long long t0;
  while ((t0 = *vstart) == 0) {
  }
  unsigned acc = 0;
  if (lead || follow) {
    if (threadIdx.x >= 32) return;
    const unsigned long long first = t0 + (follow ? delay_ns : 0);
    for (int i = 0; i < kSteps; ++i) {
      const unsigned long long at = first + static_cast<unsigned long long>(i) * kPaceNs;
      while (gtimer() < at) {
      }
      acc += load_cg(probe + (static_cast<std::size_t>(i) * 32 + threadIdx.x) * 8);
    }
  } else {
    // Background: this CTA's own share of bg, read until the pair is done.
    if ((load == 3 && blockIdx.x % 2 != 0) || (load == 4 && blockIdx.x % 4 != 0)) return;
    const std::size_t words = load == 1 ? kDramWords : kL2Words;
    const std::size_t share = words / gridDim.x, base = share * blockIdx.x;
    const unsigned long long end = t0 + kSteps * kPaceNs + static_cast<unsigned long long>(delay_ns) + 2000;
    std::size_t i = threadIdx.x * 8;
    while (gtimer() < end) {
      for (int u = 0; u < 8; ++u) {
        acc += load_cg(bg + base + i);
        i += kThreads * 8;
        if (i >= share) i = threadIdx.x * 8;
      }
    }
  }
  smem[threadIdx.x] = static_cast<unsigned char>(acc);
  if (acc == 0x12345678u) sink[blockIdx.x * kThreads + threadIdx.x] = acc + smem[0];
}

__global__ void read_words(const unsigned* p, std::size_t words, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) * 8; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x * 8)
    acc += load_cg(p + i);
  if (acc == 0x12345678u) sink[0] = acc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s configs.csv [domain]\n", argv[0]);
    return 2;
  }
  const bool domain = argc > 2 && std::string(argv[2]) == "domain";
  const bool fine = argc > 2 && std::string(argv[2]) == "fine";
  const bool cross = argc > 2 && std::string(argv[2]) == "cross";
  const bool fineload = argc > 2 && std::string(argv[2]) == "fineload";
  std::vector<int> leaders = {0};
  if (domain && argc > 3) {  // leaders: a comma-separated list of SMs
    leaders.clear();
    for (char* t = std::strtok(argv[3], ","); t; t = std::strtok(nullptr, ",")) leaders.push_back(std::atoi(t));
  }
  unsigned *probe, *dram_bg, *l2_bg, *flush, *sink, *arrived;
  unsigned long long* start;
  CK(cudaMalloc(&probe, kProbeWords * 4));
  CK(cudaMalloc(&dram_bg, kDramWords * 4));
  CK(cudaMalloc(&l2_bg, kL2Words * 4));
  CK(cudaMalloc(&flush, kFlushWords * 4));
  CK(cudaMalloc(&sink, 132 * kThreads * 4));
  CK(cudaMalloc(&arrived, 4));
  CK(cudaMalloc(&start, 8));
  CK(cudaMemset(probe, 1, kProbeWords * 4));
  CK(cudaMemset(dram_bg, 1, kDramWords * 4));
  CK(cudaMemset(l2_bg, 1, kL2Words * 4));
  CK(cudaMemset(flush, 1, kFlushWords * 4));
  CK(cudaFuncSetAttribute(lrc_pair, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  FILE* out = fopen(argv[1], "w");
  if (!out) {
    fprintf(stderr, "cannot write %s\n", argv[1]);
    return 2;
  }
  fprintf(out, "launch,leader_sm,follower_sm,lines,load,delay_ns\n");
  std::vector<int> followers = {1, 8, 2};
  std::vector<long long> delays = {0, 100, 200, 300, 400, 600, 800, 1200, 1600, 2400, 3200};
  int loads_run = 3, warm_runs = 2, warm_first = 0;
  std::vector<int> load_list = {0, 1, 2};
  if (domain) {  // which SMs merge with each leader at all: every follower, no delay, no load, cold
    followers.clear();
    for (int f = 0; f < sms; ++f) followers.push_back(f);
    delays = {0};
    loads_run = 1;
    warm_runs = 1;
  }
  if (fine) {  // SM 1 only, no load, delays in steps of the timer's 32 ns
    followers = {1};
    delays = {0, 16, 32, 48, 64, 80, 96, 128, 160, 200, 250, 300, 350, 400, 500};
    loads_run = 1;
  }
  if (cross) {  // the other partition's SM and a same-partition control, cold and warm lines, no load
    followers = {2, 8};
    delays = {0, 32, 64, 96, 128, 160, 200, 250, 300, 400, 500, 700, 1000};
    loads_run = 1;
  }
  if (fineload) {  // SM 1 only, warm lines, the L2's load in four steps
    followers = {1};
    delays = {0, 16, 32, 48, 64, 80, 96, 112, 128, 160, 200, 250, 300, 400, 600};
    load_list = {0, 4, 3, 2};
    warm_first = 1;
  }
  load_list.resize(static_cast<std::size_t>(fineload ? 4 : loads_run));
  const char* loads[] = {"none", "dram", "l2", "l2half", "l2quarter"};
  int launch = 0;
  for (int leader : leaders)
  for (int load : load_list)
    for (int warm = warm_first; warm < warm_runs; ++warm)
      for (int f : followers)
        for (long long d : delays) {
          if (f == leader) continue;
          read_words<<<sms * 4, 256>>>(flush, kFlushWords, sink);  // flush the L2
          if (load >= 2) read_words<<<sms * 4, 256>>>(l2_bg, kL2Words, sink);
          if (warm) read_words<<<1, 256>>>(probe, kProbeWords, sink);
          CK(cudaMemset(arrived, 0, 4));
          CK(cudaMemset(start, 0, 8));
          lrc_pair<<<sms, kThreads, kSmemBytes>>>(probe, load == 1 ? dram_bg : l2_bg, sink, leader, f, d, load,
                                                  arrived, start);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          fprintf(out, "%d,%d,%d,%s,%s,%lld\n", launch++, leader, f, warm ? "warm" : "cold", loads[load], d);
        }
  fclose(out);
  printf("%d launches of lrc_pair\n", launch);
  return 0;
}
