// Communication overlapped with computation, shard by shard (§3.6: the Net entry enters the
// same envelope as compute). Two lanes, Net and SM: the collective's steps run one after
// another on Net, the compute pieces on the SMs, each piece waiting for the step that
// brings its shard (all-gather first) or each step for the piece that produced it (compute
// first, reduce-scatter). In steady state a step costs max(u_Net, u_compute): the envelope
// with depth 1 over the shard loop.
//
//   Net  |  step1  |  step2  |  step3  |
//   SM   | piece0  | piece1  | piece2  | piece3 |        (all-gather then GEMM)
//
// While Net is busy the compute runs `compute_slowdown` times slower (stream mode: NCCL's
// kernels hold SMs and memory bandwidth), and while compute runs a step `comm_slowdown`
// times slower (the compute's memory traffic).
#pragma once

#include <vector>

#include "tilesight/report/prediction.h"

namespace tilesight::model {

struct Span {
  double start = 0, end = 0;
};

struct OverlapInput {
  std::vector<double> comm;     // step times, seconds (n-1 of them)
  std::vector<double> compute;  // piece times alone, seconds (n of them)
  bool comm_first = true;       // all-gather: piece k needs step k-1; else step k needs piece k
  double compute_slowdown = 1;  // >= 1, while a step runs
  // >= 1: a step runs this much slower while compute runs beside it (stream: the compute's
  // DRAM and L2 traffic, model/comm_contention.h): beside the pieces placed before it is
  // posted and, compute first, the later pieces, which run back to back (comm first they wait
  // for it).
  double comm_slowdown = 1;
  // Stream beside a grid that holds every SM (model/stream_share.h, tail): a step gets SMs
  // only as the piece running when it is ready retires its CTAs, tail[k] seconds before piece
  // k ends (a piece and a step ready together: the piece's CTAs take the SMs first), or when
  // no piece runs. Empty: a step runs as soon as it is ready.
  std::vector<double> tail;
};

struct OverlapSchedule {
  std::vector<Span> comm;
  std::vector<Span> compute;
  double total = 0;
  double comm_alone = 0;     // Σ steps
  double compute_alone = 0;  // Σ pieces
  // Share of the communication hidden under computation: (comm + compute − total) / comm.
  double overlap_rate() const;
};

OverlapSchedule schedule_overlap(const OverlapInput& in);

// Communication on both sides of the compute (Ulysses: all-to-all in, attention, all-to-all
// out), piece by piece: the Net lane runs every in-step first, then each out-step once its
// piece is done; piece k waits for in-step k. The slowdown applies under the in-steps (the
// out-steps overlap the last pieces only).
struct AroundInput {
  std::vector<double> comm_in;   // per piece, seconds
  std::vector<double> compute;   // per piece, seconds alone
  std::vector<double> comm_out;  // per piece, seconds
  double compute_slowdown = 1;
};

OverlapSchedule schedule_around(const AroundInput& in);

// The schedule as the report gives it: steps then pieces, µs from the kernel's start, the
// schedule's time 0 at `offset` seconds (the launch).
std::vector<report::OverlapSpan> report_spans(const OverlapSchedule& schedule, double offset);

// When a piece of `work` seconds at full rate, started at `start`, ends if it runs
// `slowdown` times slower inside `busy` spans.
double finish_time(double start, double work, const std::vector<Span>& busy, double slowdown);

}  // namespace tilesight::model
