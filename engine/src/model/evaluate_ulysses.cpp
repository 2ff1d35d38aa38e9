// ulysses_attention: two all-to-alls around the local attention (DeepSpeed-Ulysses),
// composed piece by piece (model/overlap.h, schedule_around): a device's KV head groups are
// the pieces; none runs the three phases back to back; stream runs NCCL all-to-alls per piece
// beside per-piece attention launches (sharing SMs as occupancy allows, model/stream_share.h);
// fused is one kernel.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>

#include "cross_device.h"
#include "tilesight/kernels/memory_bound.h"
#include "tilesight/kernels/ulysses.h"
#include "tilesight/model/distributed.h"
#include "tilesight/model/overlap.h"
#include "tilesight/model/stream_share.h"
#include "tilesight/net/network_report.h"
#include "tilesight/report/diagnosis.h"
#include "tilesight/util/format.h"

namespace tilesight::model {

namespace {

constexpr double kUs = 1e6;

// One of PyTorch's copies (kernels/memory_bound.h, `copy`) of `elements`, queued behind the
// previous kernel of a CUDA graph: its kernel time plus the dependent launch.
Result<double> torch_copy_seconds(double elements, std::int64_t dims, DType dtype, const hw::HardwareSpec& gpu) {
  const auto n = static_cast<std::int64_t>(elements);
  auto copy = evaluate(kernels::lift_memory_bound({.kernel = "copy", .rows = 1, .cols = n, .dtype = dtype, .dims = dims}),
                       gpu, {.timeline = false});
  if (!copy) return copy.errors();
  return kernel_seconds(*copy) + gpu.dependent_launch_us * 1e-6;
}

// The copies torch's Ulysses code (collectives.py, ulysses_timeline.csv) runs around the
// all-to-alls, in seconds per device: Q/K/V permuted into per-destination order before the
// all-to-all in (3 dimensions once merged); the received [devices, 3, seq/n, heads/n, d]
// permuted to [3, heads/n, seq, d] for SDPA (5); SDPA's [heads/n, seq, d] output transposed
// into the send buffer (3); the received output permuted back to [seq/n, heads, d] (3) and
// copied contiguously into place (1). The first and the last two count with the all-to-alls
// (they are in the corpus's `comm` rows), the middle two with the attention (`compute`).
struct TorchCopies {
  double in_s = 0, compute_s = 0, out_s = 0;
};
Result<TorchCopies> torch_copies(double in_elements, double out_elements, DType dtype, const hw::HardwareSpec& gpu) {
  TorchCopies c;
  const struct {
    double elements;
    std::int64_t dims;
    double* lane;
  } copies[] = {{in_elements, 3, &c.in_s},
                {in_elements, 5, &c.compute_s},
                {out_elements, 3, &c.compute_s},
                {out_elements, 3, &c.out_s},
                {out_elements, 1, &c.out_s}};
  for (const auto& k : copies) {
    auto t = torch_copy_seconds(k.elements, k.dims, dtype, gpu);
    if (!t) return t.errors();
    *k.lane += *t;
  }
  return c;
}

}  // namespace

Result<report::Prediction> evaluate_ulysses(const kernels::UlyssesParams& p, const net::SystemSpec& system,
                                            const EvaluateOptions& options) {
  if (auto bad = devices_error(p.devices, system)) return *bad;
  const std::int64_t pieces = p.overlap == kernels::Overlap::kNone ? 1 : kernels::ulysses_pieces(p);
  const double np = static_cast<double>(pieces);
  // 1. Remote accesses from placement (net/remote_access.h): Q, K and V ([batch, seq, heads,
  //    head_dim]) as the previous layer leaves them, sharded by sequence (dim 1), and as local
  //    attention reads them, sharded by head (dim 2); the output O the other way round. Each
  //    forms an all-to-all; Q, K and V go in one NCCL call on their concatenated buffer (as
  //    DeepSpeed-Ulysses and collectives.py do), so its size is the sum. A piece of the
  //    stream/fused loop moves its share (1/pieces) of every tensor's heads.
  const kernels::AttentionParams& at = p.attention;
  const auto group = first_devices(p.devices);
  const auto by_seq = net::Placement::sharded(1, group), by_head = net::Placement::sharded(2, group);
  const double e = dtype_bytes(at.dtype);
  double in_bytes = 0, out_bytes = 0;
  std::optional<net::CollectiveRequest> in_req, out_req;
  for (const net::TensorShape& t : {net::TensorShape{"Q", {at.batch, at.seq_q, at.heads, at.head_dim}, e},
                                    net::TensorShape{"K", {at.batch, at.seq_kv, at.kv_heads, at.head_dim}, e},
                                    net::TensorShape{"V", {at.batch, at.seq_kv, at.kv_heads, at.head_dim}, e}}) {
    auto r = placed_collective(t, by_seq, by_head, "params.heads");
    if (!r) return r.errors();
    in_bytes += r->bytes;
    in_req = *r;
  }
  {
    auto r = placed_collective({"O", {at.batch, at.seq_q, at.heads, at.head_dim}, e}, by_head, by_seq, "params.heads");
    if (!r) return r.errors();
    out_bytes = r->bytes;
    out_req = *r;
  }
  auto a2a = [&](net::CollectiveRequest r, double bytes) {
    r.bytes = bytes;
    return net::tune_collective(system.network, r, {.algorithm = p.algorithm});
  };
  auto in = a2a(*in_req, in_bytes), out = a2a(*out_req, out_bytes);
  if (!in) return in.errors();
  if (!out) return out.errors();
  auto in_piece = a2a(*in_req, in_bytes / np), out_piece = a2a(*out_req, out_bytes / np);
  if (!in_piece || !out_piece) return in_piece ? out_piece.errors() : in_piece.errors();

  // 2. The local attention on one device's heads.
  auto whole = evaluate(kernels::lift_attention(kernels::ulysses_local(p)), system.device, options);
  if (!whole) return whole.errors();
  report::Prediction pred = std::move(whole).value();
  const double launch = pred.launch_overhead_us / kUs;

  // 3. torch's copies around the all-to-alls (none and stream are torch code; a fused kernel
  //    reads and writes in place), a piece's share in stream.
  TorchCopies copies;
  if (p.overlap != kernels::Overlap::kFused) {
    auto c = torch_copies(in_bytes / e / np, out_bytes / e / np, at.dtype, system.device);
    if (!c) return c.errors();
    copies = *c;
  }

  // 4. The piece loop.
  AroundInput around;
  StreamShare share;
  double total = 0;
  if (p.overlap == kernels::Overlap::kNone) {
    around = {.comm_in = {copies.in_s + in->total_s},
              .compute = {copies.compute_s + pred.latency_us / kUs},
              .comm_out = {out->total_s + copies.out_s}};
    total = around.comm_in[0] + around.compute[0] + around.comm_out[0];
  } else {
    const bool stream = p.overlap == kernels::Overlap::kStream;
    double piece_s = kernel_seconds(pred) / np;
    if (stream) {
      auto piece = stream_piece(kernels::lift_attention(kernels::ulysses_piece(p, pieces)), system,
                                nccl_ctas(p, *in_piece));
      if (!piece) return piece.errors();
      piece_s = piece->seconds;
      share = piece->share;
    }
    const auto count = static_cast<std::size_t>(pieces);
    // Stream: each piece's all-to-all is its own NCCL launch; fused: one launch each way.
    const double in_s = in_piece->total_s - (stream ? 0.0 : in_piece->base_s);
    const double out_s = out_piece->total_s - (stream ? 0.0 : out_piece->base_s);
    around.comm_in.assign(count, copies.in_s + in_s);
    around.comm_out.assign(count, out_s + copies.out_s);
    around.compute.assign(count, copies.compute_s + piece_s);
    if (!stream) {
      around.comm_in.front() += in_piece->base_s;
      around.comm_out.front() += out_piece->base_s;
    }
    // Occupancy decides (model/stream_share.h): beside, shared (SMs taken) or serial.
    // A one-wave attention grid (tail) is taken as serial: schedule_around admits no step
    // in a kernel's last round.
    around.compute_slowdown =
        !stream ? 1.0 : share.sharing == SmSharing::kTail ? std::numeric_limits<double>::infinity() : share.sm_slowdown;
    total = launch + schedule_around(around).total;
  }
  const OverlapSchedule s = schedule_around(around);

  // 5. The report.
  const double compute_alone = s.compute_alone;
  pred.kernel = "ulysses_attention";
  pred.name = "ulysses_attention seq " + std::to_string(p.attention.seq_q) + " heads " +
              std::to_string(p.attention.heads) + " on " + std::to_string(p.devices) + " GPUs, overlap " +
              kernels::overlap_name(p.overlap);
  pred.hardware = system.name;
  pred.latency_us = total * kUs;
  pred.steady_us = pred.latency_us - pred.prologue_us - pred.epilogue_us;
  const double out_start = s.comm.size() > around.comm_in.size() ? s.comm[around.comm_in.size()].start : 0;
  pred.network = net::network_report(system, {{*in, 0.0}, {*out, out_start + (p.overlap == kernels::Overlap::kNone ? 0 : launch)}}, total);
  pred.network.overlap = kernels::overlap_name(p.overlap);
  pred.network.comm_sms = nccl_ctas(p, *in_piece);
  pred.network.schedule = report_spans(s, p.overlap == kernels::Overlap::kNone ? 0.0 : launch);
  pred.network.comm_us = s.comm_alone * kUs;
  pred.network.compute_us = compute_alone * kUs;
  const double t_body = p.overlap == kernels::Overlap::kNone ? total : total - launch;
  pred.network.overlap_rate =
      s.comm_alone > 0 ? std::clamp((s.comm_alone + compute_alone - t_body) / s.comm_alone, 0.0, 1.0) : 0;
  pred.busy_us[index(Resource::kNet)] = pred.network.links.empty() ? 0 : pred.network.links.front().busy_us;
  report::rate_resources(pred);
  pred.diagnosis.insert(pred.diagnosis.begin(),
                        "all_to_all in " + report::format_bytes(in_bytes) + " and out " +
                            report::format_bytes(out_bytes) + " (inferred from placement: sequence shards <-> head shards; " +
                            in->algorithm + "/" +
                            std::string(net::protocol_name(in->protocol)) + ", " + fmt("%.4g", s.comm_alone * kUs) +
                            " us) around local attention on " + std::to_string(p.attention.heads / p.devices) +
                            " heads (" + fmt("%.4g", compute_alone * kUs) + " us), overlap " +
                            kernels::overlap_name(p.overlap) + " in " + std::to_string(pieces) +
                            (pieces == 1 ? " piece" : " pieces") + ": " +
                            fmt("%.0f", 100 * pred.network.overlap_rate) + "% of the communication hidden" +
                            (pieces == 1 && p.attention.kv_heads / p.devices <= 1 && p.overlap != kernels::Overlap::kNone
                                 ? " (pieces split a GPU's KV heads, and it has one: its attention waits for the whole all-to-all)"
                                 : "") +
                            (p.overlap == kernels::Overlap::kStream ? "; on two streams " + share.why : "") + ".");
  return pred;
}

}  // namespace tilesight::model
