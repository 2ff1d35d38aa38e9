// ag_gemm and gemm_rs (DESIGN.md): the local GEMM predicted by the single-GPU engine, the
// collective by the network model, composed shard by shard through the overlap schedule
// (model/overlap.h):
//   none    the collective, then the GEMM (two launches, nothing hidden);
//   stream  NCCL steps on one stream, cuBLAS pieces of M/devices rows on another: each
//           piece is its own launch; whether they run at once is occupancy's question
//           (model/stream_share.h): a persistent GEMM that holds every SM lets a step in
//           only in its last round of tiles, and a piece launched while the step still runs
//           gets the SMs NCCL leaves; a GEMM of many waves shares SMs as its blocks retire.
//           Either way the GEMM loses the SMs NCCL takes and the HBM bandwidth its shards
//           move while a step runs;
//   fused   one kernel interleaving tiles of both: one launch, the GEMM's tiles cut into
//           `devices` equal pieces, no SMs lost to a second kernel.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <optional>

#include "cross_device.h"
#include "tilesight/model/comm_contention.h"
#include "tilesight/model/distributed.h"
#include "tilesight/model/overlap.h"
#include "tilesight/model/stream_share.h"
#include "tilesight/net/network_report.h"
#include "tilesight/net/remote_access.h"
#include "tilesight/report/diagnosis.h"
#include "tilesight/util/format.h"

namespace tilesight::model {

namespace {

constexpr double kUs = 1e6;

// How much slower the GEMM runs while a collective step runs beside it (stream mode): the
// larger of the SM share NCCL takes and its HBM share: the shards cross HBM twice (read to
// send, write on receipt), taken from a GEMM that needs DRAM in proportion to its DRAM
// utilisation.
double stream_slowdown(const StreamShare& share, const hw::HardwareSpec& gpu, double hbm_rate,
                       double gemm_dram_utilization) {
  const double left = std::max(gpu.dram_bandwidth - hbm_rate, 0.05 * gpu.dram_bandwidth);
  const double mem_factor = 1.0 + gemm_dram_utilization * (gpu.dram_bandwidth / left - 1.0);
  return std::max(share.sm_slowdown, mem_factor);
}


}  // namespace

Result<report::Prediction> evaluate_fused_comm(const kernels::FusedCommParams& p, const net::SystemSpec& system,
                                               const EvaluateOptions& options) {
  if (auto bad = devices_error(p.devices, system)) return *bad;
  const auto n = static_cast<std::size_t>(p.devices);
  // 1. Remote accesses from placement (net/remote_access.h): A's row shards live on their
  //    devices and every device reads all of A (an all-gather); or every device holds a
  //    partial of all of C and keeps one row shard of the sum (a reduce-scatter).
  const bool gather = p.kernel == "ag_gemm";
  std::vector<std::size_t> group(n);
  std::iota(group.begin(), group.end(), std::size_t{0});
  const auto m = p.gemm.M, cols = gather ? p.gemm.K : p.gemm.N;
  const net::TensorShape placed{.name = gather ? "A" : "C", .dims = {m, cols},
                                .element_bytes = kernels::collective_bytes(p) / (static_cast<double>(m) * static_cast<double>(cols))};
  auto access = gather ? net::infer_remote_access(placed, net::Placement::sharded(0, group), net::Placement::replicated(group))
                       : net::infer_remote_access(placed, net::Placement::partial(group), net::Placement::sharded(0, group));
  if (!access) return access.errors();
  if (!access->collective) return Error{"params.M", "the shards do not form a collective (" + access->pattern + ")"};
  const net::CollectiveRequest request = *access->collective;
  auto comm = net::tune_collective(system.network, request, {.algorithm = p.algorithm});
  if (!comm) return comm.errors();

  // 2. The local GEMM on one device, whole and (stream) as one of its row pieces.
  auto whole = evaluate(kernels::lift_gemm(kernels::local_gemm(p)), system.device, options);
  if (!whole) return whole.errors();
  report::Prediction pred = std::move(whole).value();
  const double launch = pred.launch_overhead_us / kUs;
  const double gemm_s = kernel_seconds(pred);

  // 3. The shard loop: n-1 collective steps against n compute pieces.
  const double steps_s = comm->total_s - comm->base_s;
  OverlapInput in{.comm_first = gather};
  StreamShare share;
  std::int64_t ctas = nccl_ctas(p, *comm);
  double total = 0;
  std::vector<report::OverlapSpan> spans;  // the schedule for the report
  if (p.overlap == kernels::Overlap::kNone) {
    const double gemm = pred.latency_us / kUs;
    total = comm->total_s + gemm;
    // One after the other: the all-gather before the GEMM, the reduce-scatter after it.
    const double comm_from = gather ? 0.0 : gemm, gemm_from = gather ? comm->total_s : 0.0;
    spans = report_spans({.comm = {{comm_from, comm_from + comm->total_s}}, .compute = {{gemm_from, gemm_from + gemm}}},
                         0.0);
  } else {
    const bool stream = p.overlap == kernels::Overlap::kStream;
    double piece_s = gemm_s / static_cast<double>(n);
    // gemm_rs, stream with chunks: each chunk's own reduce-scatter, after it
    double dram_share = 0, l2_share = 0;  // the piece's, for the collective beside it
    std::optional<net::CollectiveCost> chunk;
    net::CollectiveRequest part = request;
    if (stream && p.chunks > 0) {
      part.bytes = request.bytes / static_cast<double>(p.chunks);
      auto c = net::tune_collective(system.network, part, {.algorithm = p.algorithm});
      if (!c) return c.errors();
      chunk = std::move(c).value();
    }
    if (stream) {
      ctas = nccl_ctas(p, chunk ? *chunk : *comm);
      auto piece = stream_piece(kernels::lift_gemm(kernels::piece_gemm(p)), system, ctas);
      if (!piece) return piece.errors();
      piece_s = piece->seconds;
      share = piece->share;
      dram_share = piece->dram_share;
      l2_share = piece->l2_share;
    }
    double step = steps_s / static_cast<double>(n - 1) + (stream ? comm->base_s : 0.0);
    double step_bytes = request.bytes / static_cast<double>(n);  // a ring step's shard
    in.comm.assign(n - 1, step);
    in.compute.assign(n, piece_s);
    if (chunk) {
      step = chunk->total_s;
      step_bytes = part.bytes * static_cast<double>(n - 1) / static_cast<double>(n);
      in.comm.assign(static_cast<std::size_t>(p.chunks), step);
      in.compute.assign(static_cast<std::size_t>(p.chunks), piece_s);
    }
    if (!stream) in.comm.front() += comm->base_s;
    const double hbm_rate = 2.0 * step_bytes / std::max(step, 1e-12);
    in.compute_slowdown =
        stream ? stream_slowdown(share, system.device, hbm_rate, pred.utilization[index(Resource::kDram)]) : 1.0;
    // The collective beside the GEMM shares its DRAM and L2 (model/comm_contention.h).
    if (stream) in.comm_slowdown = comm_memory_slowdown(chunk ? part.bytes : request.bytes, dram_share, l2_share);
    // A persistent GEMM lets each step in only in its last round of tiles (model/stream_share.h).
    if (stream && share.sharing == SmSharing::kTail)
      in.tail.assign(in.compute.size(), piece_s * share.tail_fraction * share.tail_share);
    const OverlapSchedule schedule = schedule_overlap(in);
    total = launch + schedule.total;
    spans = report_spans(schedule, launch);
  }

  // 4. The report: the GEMM's pipelines and the network's links over the fused latency.
  const double comm_s = p.overlap == kernels::Overlap::kNone ? comm->total_s
                                                              : std::accumulate(in.comm.begin(), in.comm.end(), 0.0);
  const double compute_s = p.overlap == kernels::Overlap::kNone ? pred.latency_us / kUs
                                                                 : std::accumulate(in.compute.begin(), in.compute.end(), 0.0);
  const double comm_start = gather ? 0.0
                            : p.overlap == kernels::Overlap::kNone ? pred.latency_us / kUs  // after the GEMM
                                                                   : launch + in.compute.front();
  pred.kernel = p.kernel;
  pred.name = p.kernel + " M=" + std::to_string(p.gemm.M) + " N=" + std::to_string(p.gemm.N) + " K=" +
              std::to_string(p.gemm.K) + " on " + std::to_string(p.devices) + " GPUs, overlap " +
              kernels::overlap_name(p.overlap);
  pred.hardware = system.name;
  pred.latency_us = total * kUs;
  pred.steady_us = pred.latency_us - pred.prologue_us - pred.epilogue_us;
  pred.network = net::network_report(system, {{*comm, comm_start}}, total);
  pred.network.overlap = kernels::overlap_name(p.overlap);
  pred.network.comm_sms = ctas;
  pred.network.schedule = std::move(spans);
  pred.network.comm_us = comm_s * kUs;
  pred.network.compute_us = compute_s * kUs;
  pred.network.overlap_rate = comm_s > 0 ? std::clamp((comm_s + compute_s - (total - (p.overlap == kernels::Overlap::kNone ? 0 : launch))) / comm_s, 0.0, 1.0) : 0;
  pred.busy_us[index(Resource::kNet)] = pred.network.links.empty() ? 0 : pred.network.links.front().busy_us;
  report::rate_resources(pred);
  pred.diagnosis.insert(
      pred.diagnosis.begin(),
      std::string(gather ? "all_gather" : "reduce_scatter") + " of " + report::format_bytes(request.bytes) + " (" +
          comm->algorithm + "/" + std::string(net::protocol_name(comm->protocol)) + ", " + fmt("%.4g", comm_s * kUs) +
          " us) against the local GEMM (" + fmt("%.4g", compute_s * kUs) + " us), overlap " +
          kernels::overlap_name(p.overlap) + ": " + fmt("%.0f", 100 * pred.network.overlap_rate) +
          "% of the communication hidden" +
          (p.overlap == kernels::Overlap::kStream ? "; on two streams " + share.why : "") +
          (p.overlap == kernels::Overlap::kStream && in.compute_slowdown > 1
               ? " (the GEMM runs " + fmt("%.2f", in.compute_slowdown) + "x slower beside NCCL)"
               : "") +
          ".");
  return pred;
}

}  // namespace tilesight::model
