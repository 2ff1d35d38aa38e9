// How long each L2 partition keeps a line, by where the line is homed and who read it: the
// reuse distance (bytes read since) at which a line stops being found near, far, or at all.
//
// sides: which L2 partition each SM sits next to (SM 0's side is 0): flush, SM 0 reads 64
//   random lines, SM t times them; an SM on the other side finds about half far (sm_partition.cu).
// homes: flush, then SM 0 times its cold read of each probe line: homed next to it ~600 cycles,
//   homed in the other partition ~780 (the crossing on top of DRAM).
// runs: for fill = side 0 or both sides, two runs each: flush, then the fill's SMs read every
//   line of a buffer of kFillBytes once (each side's CTAs take 128 lines in turn: the stream is
//   in order to within 128 lines a CTA), in one of three orders: "seq", front to back; "random", a fixed
//   pseudo-random permutation of the lines (a window of the stream is a random set of lines, as
//   SDCM assumes); "columns", the buffer as rows of 8 KiB read down columns of 256 bytes (a GEMM
//   operand's tiles). Then the probe SM (SM 0, or an SM of side 1) times its first read of each
//   probe line, one load at a time (ld.global.cg). A line read at stream position i was last
//   read (lines - 1 - i) lines of the fill's stream ago. From SM 0, a line homed next to it
//   is near (~320 cycles) if its partition kept it, else from DRAM (~600); a line homed across
//   is near if SM 0's partition kept a copy, far (~500) if only its home kept it, else ~780.
//   CSV: order,fill,probe_sm,probe_side,rep,line,offset,position,home,cycles
//   (position: the line's place in the fill's stream, of kFillBytes / 128; home: partition, 0 = SM 0's)
// cyclic: the first 16-64 MiB of the buffer read once or four times over by side 0 or by both
//   sides, in order or in the random order, then SM 0 times the probe lines inside it: whether a
//   line read again and again is kept as long as one read once (a replacement policy that
//   resists a cyclic working set past its capacity keeps some of it).
//   CSV: order,fill,mib,passes,rep,line,position,stream_lines,home,cycles,last_pass_us (the last
//   pass's time between events; the fill keeps too few loads in flight for it to tell hits from
//   DRAM: l2_cyclic_ncu.py counts them under ncu instead)
// copies: the first 8 or 16 MiB read by one side and then by the other (or the same, or by
//   none), in order, then SM 0 times the probe lines inside: whether its partition keeps a copy
//   of a line homed across that its side found in the line's home (a far hit), not in DRAM.
//   CSV: first,second,mib,rep,line,home,cycles
// protect: the first 8 MiB read 1, 2 or 4 times (by side 0 or both sides), then 0-112 MiB after
//   it read once by side 0, then SM 0 times the probe lines of the first 8 MiB: whether lines
//   that were hit outlast lines read once (a policy that protects reused lines).
//   CSV: r_fill,reads,stream_mib,rep,line,home,cycles
// promote: the first 8 MiB (R) read by side 0, then `before` MiB of other lines, then R read
//   again by side 0 (hits where it was kept), then `after` MiB of fresh lines, then SM 0 times
//   the probe lines in R (reads 1: no second read, the control): whether a hit renews a line's
//   stay (LRU: R kept while `after` is short of the partition) or the line goes by the stream
//   since it came in (no renewal: while `before` + `after` is short of it). protect's reads
//   come back to back, where the two agree.
//   CSV: reads,before_mib,after_mib,rep,line,home,cycles
// Build: nvcc -O3 -arch=sm_90a -o l2_retention l2_retention.cu
// Run:   ./l2_retention l2_retention.csv l2_retention_cyclic.csv l2_retention_copies.csv \
//          l2_retention_protect.csv l2_retention_promote.csv
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "cuda_check.cuh"
#include "line_probe.cuh"
#include "sm_clock.cuh"

namespace {

constexpr int kLines = 8192;
constexpr int kLineBits = 20;  // the fill buffer: 2^20 lines of 128 B, 128 MiB
constexpr std::size_t kFillBytes = 128ull << kLineBits;
constexpr std::size_t kFlushBytes = 512ull << 20;
constexpr int kThreads = 1024;
constexpr std::uint32_t kStepLines = kThreads / 8;  // 8 threads a line, 16 B each
constexpr std::uint32_t kPitchLines = 64, kColumnLines = 2;  // "columns": 8 KiB rows, 256-byte columns

enum Order { kSeq = 0, kRandom = 1, kColumns = 2 };

// The line read at stream position i (a bijection on kLineBits bits).
__host__ __device__ inline std::uint32_t line_at(std::uint32_t i, int order) {
  constexpr std::uint32_t mask = (1u << kLineBits) - 1;
  if (order == kRandom) {
    std::uint32_t x = i;
    for (int r = 0; r < 3; ++r) {  // xor-shift and odd multiply, each invertible mod 2^20
      x ^= x >> 11;
      x = (x * 0x9E3B5u) & mask;
      x ^= x >> 7;
      x = (x * 0x5BD1Du) & mask;
    }
    return x;
  }
  if (order == kColumns) {
    constexpr std::uint32_t rows = (1u << kLineBits) / kPitchLines;
    const std::uint32_t column = i / (rows * kColumnLines), row = (i / kColumnLines) % rows;
    return row * kPitchLines + column * kColumnLines + i % kColumnLines;
  }
  return i;
}

// One CTA an SM (shared memory allows no more). CTAs on an SM whose side is in `mask` (bit s:
// side s reads) take a ticket on their side and read steps ticket, ticket + n_s, ... (128 lines each) of the
// buffer's stream of lines, n_s the side's SM count: each side reads the whole buffer in order.
__global__ void fill(const uint4* buf, int order, std::uint32_t limit, const int* side_of, int mask,
                     const int* side_count, int* tickets, uint4* sink, std::uint32_t first = 0) {
  extern __shared__ int s_ticket[];
  const int side = side_of[smid()];
  if (!((mask >> side) & 1)) return;
  if (threadIdx.x == 0) s_ticket[0] = atomicAdd(tickets + side, 1);
  __syncthreads();
  const int n = side_count[side];
  uint4 acc = {0, 0, 0, 0};
  constexpr std::uint32_t steps = (1u << kLineBits) / kStepLines;
  for (std::uint32_t c = static_cast<std::uint32_t>(s_ticket[0]); c < steps; c += static_cast<std::uint32_t>(n)) {
    const std::uint32_t line = line_at(c * kStepLines + threadIdx.x / 8, order);
    if (line >= limit || line < first) continue;  // part of the buffer: its lines in the same order
    const uint4 v = __ldcg(buf + static_cast<std::size_t>(line) * 8 + threadIdx.x % 8);
    acc.x ^= v.x;
    acc.y ^= v.y;
  }
  if (acc.x == 0x12345678u) sink[0] = acc;
}

// The CTA on SM `target` times its read of each line (offsets in uint32 elements), one load at
// a time; the CTA on SM `filler` (if >= 0) first reads each line once.
__global__ void probe(const uint32_t* buf, const uint32_t* offs, int lines, int filler, int target, uint32_t* lat,
                      unsigned long long pause_ns) {
  extern __shared__ uint32_t s_lat[];  // lines latencies, lines offsets, lines values
  uint32_t* s_offs = s_lat + lines;
  uint32_t* s_val = s_offs + lines;
  if (threadIdx.x != 0) return;
  const unsigned sm = smid();
  if (static_cast<int>(sm) != target && static_cast<int>(sm) != filler) return;
  for (int i = 0; i < lines; ++i) s_offs[i] = offs[i];
  const unsigned long long t0 = gtimer();
  if (static_cast<int>(sm) == filler) {
    uint32_t v = 0;
    for (int i = 0; i < lines; ++i) v += __ldcg(buf + s_offs[i] + (v & 1u));
    s_val[0] = v;
  }
  while (gtimer() - t0 < pause_ns) {
  }
  if (static_cast<int>(sm) != target) return;
  time_first_reads(buf, s_offs, lines, s_lat, s_val);
  for (int i = 0; i < lines; ++i) lat[i] = s_lat[i] + (s_val[i] & 0x80000000u);  // values are 0
}

struct Gpu {
  int sms = 0, smem = 0;
  uint4 *flush_buf = nullptr, *sink = nullptr;
  uint32_t *buf = nullptr, *offs = nullptr, *lat = nullptr;
  void flush_l2() const {
    flush<<<sms * 4, 512>>>(flush_buf, kFlushBytes / sizeof(uint4), sink);
    CK(cudaGetLastError());
  }
  std::vector<uint32_t> time_lines(int lines, int filler, int target) const {
    probe<<<sms, 32, smem>>>(buf, offs, lines, filler, target, lat, filler >= 0 ? 400000 : 0);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<uint32_t> out(static_cast<std::size_t>(lines));
    CK(cudaMemcpy(out.data(), lat, sizeof(uint32_t) * out.size(), cudaMemcpyDeviceToHost));
    return out;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const char* csv = argc > 1 ? argv[1] : "l2_retention.csv";
  const char* cyclic_csv = argc > 2 ? argv[2] : "l2_retention_cyclic.csv";
  const char* copies_csv = argc > 3 ? argv[3] : "l2_retention_copies.csv";
  const char* protect_csv = argc > 4 ? argv[4] : "l2_retention_protect.csv";
  const char* promote_csv = argc > 5 ? argv[5] : "l2_retention_promote.csv";
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  Gpu g;
  g.sms = prop.multiProcessorCount;
  g.smem = static_cast<int>(prop.sharedMemPerBlockOptin);
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, g.smem));
  CK(cudaFuncSetAttribute(fill, cudaFuncAttributeMaxDynamicSharedMemorySize, g.smem));
  CK(cudaMalloc(&g.flush_buf, kFlushBytes));
  CK(cudaMemset(g.flush_buf, 1, kFlushBytes));
  CK(cudaMalloc(&g.sink, sizeof(uint4)));
  CK(cudaMalloc(&g.buf, kFillBytes));
  CK(cudaMemset(g.buf, 0, kFillBytes));
  CK(cudaMalloc(&g.offs, sizeof(uint32_t) * kLines));
  CK(cudaMalloc(&g.lat, sizeof(uint32_t) * kLines));

  // sides: 64 random lines; SM t on the other side finds about half of them far.
  std::mt19937 rng(11);
  const uint32_t buf_lines = kFillBytes / 128;
  std::vector<uint32_t> offs;
  std::vector<bool> used(buf_lines, false);
  while (offs.size() < static_cast<std::size_t>(kLines)) {
    const uint32_t l = rng() % buf_lines;
    if (used[l]) continue;
    used[l] = true;
    offs.push_back(l * 32);
  }
  CK(cudaMemcpy(g.offs, offs.data(), sizeof(uint32_t) * kLines, cudaMemcpyHostToDevice));
  std::vector<int> side(static_cast<std::size_t>(g.sms), 0);
  int side_count[2] = {0, 0};
  for (int t = 0; t < g.sms; ++t) {
    g.flush_l2();
    const auto lat = g.time_lines(64, 0, t);
    int far = 0;
    for (const uint32_t c : lat) far += c > 420;
    side[static_cast<std::size_t>(t)] = far > 16 ? 1 : 0;
    ++side_count[side[static_cast<std::size_t>(t)]];
  }
  printf("side of SM:");
  for (const int s : side) printf("%d", s);
  printf("\nSMs a side: %d %d\n", side_count[0], side_count[1]);
  int probe1 = -1;  // the first SM of side 1
  for (int t = 0; t < g.sms && probe1 < 0; ++t)
    if (side[static_cast<std::size_t>(t)] == 1) probe1 = t;
  int *d_side = nullptr, *d_count = nullptr, *d_tickets = nullptr;
  CK(cudaMalloc(&d_side, sizeof(int) * g.sms));
  CK(cudaMemcpy(d_side, side.data(), sizeof(int) * g.sms, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&d_count, sizeof(int) * 2));
  CK(cudaMemcpy(d_count, side_count, sizeof(int) * 2, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&d_tickets, sizeof(int) * 2));

  // homes: SM 0's cold read of every probe line, twice (the slower class: homed across).
  std::vector<int> home(kLines, 0);
  {
    g.flush_l2();
    const auto a = g.time_lines(kLines, -1, 0);
    g.flush_l2();
    const auto b = g.time_lines(kLines, -1, 0);
    int across = 0;
    for (int i = 0; i < kLines; ++i) across += home[static_cast<std::size_t>(i)] = std::min(a[i], b[i]) > 690;
    printf("probe lines homed across: %d of %d\n", across, kLines);
  }

  FILE* f = fopen(csv, "w");
  fprintf(f, "order,fill,probe_sm,probe_side,rep,line,offset,position,home,cycles\n");
  std::vector<std::uint32_t> position[3];  // per order: line -> stream position
  for (int o = 0; o < 3; ++o) {
    position[o].resize(buf_lines);
    for (std::uint32_t i = 0; i < buf_lines; ++i) position[o][line_at(i, o)] = i;
  }
  const char* orders[] = {"seq", "random", "columns"};
  const char* fills[] = {"side0", "side1", "both"};
  const int masks[] = {1, 2, 3};
  for (int o = 0; o < 3; ++o)
  for (const int m : {0, 2})
  for (const int target : {0, probe1})
    for (int rep = 0; rep < 2; ++rep) {
      g.flush_l2();
      CK(cudaMemset(d_tickets, 0, sizeof(int) * 2));
      fill<<<g.sms, kThreads, g.smem>>>(reinterpret_cast<const uint4*>(g.buf), o, buf_lines, d_side, masks[m],
                                         d_count, d_tickets, g.sink);
      CK(cudaGetLastError());
      const auto lat = g.time_lines(kLines, -1, target);
      for (int i = 0; i < kLines; ++i) {
        const auto k = static_cast<std::size_t>(i);
        fprintf(f, "%s,%s,%d,%d,%d,%d,%u,%u,%d,%u\n", orders[o], fills[m], target, side[static_cast<std::size_t>(target)],
                rep, i, offs[k] * 4, position[o][offs[k] / 32], home[k], lat[k]);
      }
    }
  fclose(f);
  printf("wrote %s\n", csv);

  // The probe lines below `limit` (their offsets on the device for time_lines) and their homes.
  struct Inside {
    std::vector<std::uint32_t> offs, home;
  };
  const auto probe_inside = [&](std::uint32_t limit) {
    Inside in;
    for (int i = 0; i < kLines; ++i)
      if (offs[static_cast<std::size_t>(i)] / 32 < limit) {
        in.offs.push_back(offs[static_cast<std::size_t>(i)]);
        in.home.push_back(static_cast<std::uint32_t>(home[static_cast<std::size_t>(i)]));
      }
    CK(cudaMemcpy(g.offs, in.offs.data(), sizeof(uint32_t) * in.offs.size(), cudaMemcpyHostToDevice));
    return in;
  };

  // cyclic: the first `mib` MiB of the buffer read `passes` times over (each pass the same
  // order), then SM 0 times the probe lines inside it. Position: the line's place among the
  // buffer's lines in one pass; stream_lines: the lines a pass reads.
  f = fopen(cyclic_csv, "w");
  fprintf(f, "order,fill,mib,passes,rep,line,position,stream_lines,home,cycles,last_pass_us\n");
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (const int o : {0, 1})
    for (const int m : {0, 2})
      for (const int mib : {16, 20, 24, 28, 32, 36, 40, 48, 56, 64})
        for (const int passes : {1, 4}) {
          const std::uint32_t limit = static_cast<std::uint32_t>(mib) << 13;  // 8192 lines a MiB
          std::vector<std::uint32_t> rank(buf_lines, 0);
          std::uint32_t n = 0;
          for (std::uint32_t i = 0; i < buf_lines; ++i)
            if (line_at(i, o) < limit) rank[line_at(i, o)] = n++;
          const Inside in = probe_inside(limit);
          const auto& inside = in.offs;
          const auto& inside_home = in.home;
          for (int rep = 0; rep < 2; ++rep) {
            g.flush_l2();
            float last_ms = 0;  // the last pass's time (see the CSV note above)
            for (int pass = 0; pass < passes; ++pass) {
              CK(cudaMemset(d_tickets, 0, sizeof(int) * 2));
              CK(cudaEventRecord(e0));
              fill<<<g.sms, kThreads, g.smem>>>(reinterpret_cast<const uint4*>(g.buf), o, limit, d_side, masks[m],
                                                 d_count, d_tickets, g.sink);
              CK(cudaEventRecord(e1));
              CK(cudaGetLastError());
              CK(cudaEventSynchronize(e1));
              CK(cudaEventElapsedTime(&last_ms, e0, e1));
            }
            const auto lat = g.time_lines(static_cast<int>(inside.size()), -1, 0);
            for (std::size_t i = 0; i < inside.size(); ++i)
              fprintf(f, "%s,%s,%d,%d,%d,%zu,%u,%u,%u,%u,%.1f\n", orders[o], fills[m], mib, passes, rep, i,
                      rank[inside[i] / 32], n, inside_home[i], lat[i], last_ms * 1e3);
          }
        }
  fclose(f);
  printf("wrote %s\n", cyclic_csv);

  // copies: whether SM 0's partition keeps a copy of a line homed across that its side read
  // from the line's home (a far hit) rather than from DRAM. The first `mib` MiB read by one
  // side, then by the other (or twice by the same), in order; then SM 0 times the probe lines.
  f = fopen(copies_csv, "w");
  fprintf(f, "first,second,mib,rep,line,home,cycles\n");
  for (const int mib : {8, 16})
    for (const auto& [first, second] : std::vector<std::pair<int, int>>{{1, 0}, {0, 1}, {1, 1}, {0, 0}, {1, -1}, {0, -1}}) {
      const std::uint32_t limit = static_cast<std::uint32_t>(mib) << 13;
      const Inside in = probe_inside(limit);
      const auto& inside = in.offs;
      const auto& inside_home = in.home;
      for (int rep = 0; rep < 2; ++rep) {
        g.flush_l2();
        for (const int who : {first, second}) {
          if (who < 0) continue;
          CK(cudaMemset(d_tickets, 0, sizeof(int) * 2));
          fill<<<g.sms, kThreads, g.smem>>>(reinterpret_cast<const uint4*>(g.buf), 0, limit, d_side, 1 << who, d_count,
                                             d_tickets, g.sink);
          CK(cudaGetLastError());
        }
        const auto lat = g.time_lines(static_cast<int>(inside.size()), -1, 0);
        for (std::size_t i = 0; i < inside.size(); ++i)
          fprintf(f, "side%d,%s,%d,%d,%zu,%u,%u\n", first, second < 0 ? "none" : (second ? "side1" : "side0"), mib,
                  rep, i, inside_home[i], lat[i]);
      }
    }
  fclose(f);
  printf("wrote %s\n", copies_csv);

  // protect and promote share R (the first 8 MiB) and its probe lines; `read` has the SMs of
  // the sides in `mask` read lines [from, to) of the buffer once, in order.
  constexpr std::uint32_t r_lines = 8u << 13;
  const Inside r_probe = probe_inside(r_lines);
  const auto& inside = r_probe.offs;
  const auto& inside_home = r_probe.home;
  const auto read = [&](int mask, std::uint32_t from, std::uint32_t to) {
    CK(cudaMemset(d_tickets, 0, sizeof(int) * 2));
    fill<<<g.sms, kThreads, g.smem>>>(reinterpret_cast<const uint4*>(g.buf), 0, to, d_side, mask, d_count, d_tickets,
                                       g.sink, from);
    CK(cudaGetLastError());
  };
  // protect: the first 8 MiB (R) read `reads` times by side 0 or by both sides (reads after the
  // first hit), then `stream` MiB after it read once by side 0 (lines no one reads again), then
  // SM 0 times the probe lines in R: whether lines that were hit outlast lines read once.
  f = fopen(protect_csv, "w");
  fprintf(f, "r_fill,reads,stream_mib,rep,line,home,cycles\n");
  for (const int m : {0, 2})
    for (const int reads : {1, 2, 4})
      for (const int stream : {0, 8, 16, 20, 24, 28, 32, 40, 48, 64, 80, 96, 112})
        for (int rep = 0; rep < 2; ++rep) {
          g.flush_l2();
          for (int r = 0; r < reads; ++r) read(masks[m], 0, r_lines);
          if (stream > 0) read(1, r_lines, r_lines + (static_cast<std::uint32_t>(stream) << 13));
          const auto lat = g.time_lines(static_cast<int>(inside.size()), -1, 0);
          for (std::size_t i = 0; i < inside.size(); ++i)
            fprintf(f, "%s,%d,%d,%d,%zu,%u,%u\n", fills[m], reads, stream, rep, i, inside_home[i], lat[i]);
        }
  fclose(f);
  printf("wrote %s\n", protect_csv);

  // promote: R read, `before` MiB of other lines, R read again (or not: reads 1), `after` MiB
  // of fresh lines, then SM 0 times R's probe lines. All by side 0, in order.
  f = fopen(promote_csv, "w");
  fprintf(f, "reads,before_mib,after_mib,rep,line,home,cycles\n");
  for (const int reads : {2, 1})
    for (const int before : {0, 8, 16})
      for (const int after : {4, 8, 12, 16, 20, 24, 28})
        for (int rep = 0; rep < 2; ++rep) {
          const std::uint32_t b_end = r_lines + (static_cast<std::uint32_t>(before) << 13);
          g.flush_l2();
          read(1, 0, r_lines);
          if (before > 0) read(1, r_lines, b_end);
          if (reads > 1) read(1, 0, r_lines);
          read(1, b_end, b_end + (static_cast<std::uint32_t>(after) << 13));
          const auto lat = g.time_lines(static_cast<int>(inside.size()), -1, 0);
          for (std::size_t i = 0; i < inside.size(); ++i)
            fprintf(f, "%d,%d,%d,%d,%zu,%u,%u\n", reads, before, after, rep, i, inside_home[i], lat[i]);
        }
  fclose(f);
  printf("wrote %s\n", promote_csv);
  return 0;
}
