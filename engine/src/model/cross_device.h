// Pieces the cross-device evaluators (evaluate_collective, _fused_comm, _ulysses) share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tilesight/kernels/fused_comm.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/net/collective_cost.h"
#include "tilesight/net/remote_access.h"
#include "tilesight/model/stream_share.h"
#include "tilesight/net/system_profile.h"
#include "tilesight/report/prediction.h"
#include "tilesight/util/result.h"

namespace tilesight::model {

// `params.devices` must name GPUs the system profile has.
inline std::optional<Error> devices_error(std::int64_t devices, const net::SystemSpec& system) {
  if (devices <= static_cast<std::int64_t>(system.devices())) return std::nullopt;
  return Error{"params.devices", "must be at most " + std::to_string(system.devices()) + " (the GPUs of " +
                                     system.name + "), got " + std::to_string(devices)};
}

// A single-GPU prediction's kernel time without its launch overhead, in seconds.
inline double kernel_seconds(const report::Prediction& p) { return (p.latency_us - p.launch_overhead_us) * 1e-6; }

// Devices 0..n-1 of the system: the group a template's `devices` names.
inline std::vector<std::size_t> first_devices(std::int64_t n) {
  std::vector<std::size_t> g(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = i;
  return g;
}

// The collective that moving `t` from where its producer leaves it to where its consumer
// reads it forms (net/remote_access.h: remote accesses inferred from placement, never
// declared); an error naming `path` when the exchanges form none.
inline Result<net::CollectiveRequest> placed_collective(const net::TensorShape& t, const net::Placement& produced,
                                                        const net::Placement& consumed, const std::string& path) {
  auto access = net::infer_remote_access(t, produced, consumed);
  if (!access) return access.errors();
  if (!access->collective)
    return Error{path, t.name + ": the shards do not form a collective (" + access->pattern + ")"};
  return *access->collective;
}

// NCCL's CTAs beside the compute in stream mode (one per channel): the plan's `comm_sms`
// where it names one, else the channels NCCL runs for this collective where the system
// profile measures them (net/nccl_channels.h: 24 for a ring of 2 MiB+ on two H200s, 32 for
// all-to-all), else the CommFields default.
inline std::int64_t nccl_ctas(const kernels::CommFields& f, const net::CollectiveCost& c) {
  if (f.comm_sms_given || c.channels <= 0) return f.comm_sms;
  return c.channels;
}

// Stream overlap (DESIGN.md): one compute piece launched beside NCCL's kernels — its time
// with the launch of a kernel queued behind another, and the SMs it leaves the collective.
struct StreamPiece {
  double seconds = 0;
  StreamShare share;
  double dram_share = 0, l2_share = 0;  // the piece's DRAM and L2 utilisation (busy / its time)
};
inline Result<StreamPiece> stream_piece(const plan::TileProgram& prog, const net::SystemSpec& system,
                                        std::int64_t comm_sms) {
  auto piece = evaluate(prog, system.device, {.timeline = false});
  if (!piece) return piece.errors();
  return StreamPiece{
      .seconds = kernel_seconds(*piece) + system.device.dependent_launch_us * 1e-6,
      .share = share_sms({.blocks = piece->blocks, .resident_per_sm = piece->resident_blocks_per_sm,
                          .persistent = prog.schedule.persistent, .block = prog.resources},
                         comm_sms, system.device),
      .dram_share = piece->utilization[index(Resource::kDram)],
      .l2_share = piece->utilization[index(Resource::kL2)]};
}

}  // namespace tilesight::model
