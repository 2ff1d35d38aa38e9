// Fused compute-communication templates (DESIGN.md): `ag_gemm` (the activation A, M x K
// row-sharded, is all-gathered while each device multiplies it by its K x N/devices column
// shard of B) and `gemm_rs` (A column-sharded over K, B row-sharded: each device computes a
// partial M x N that is reduce-scattered by rows). Parameters are the `gemm` ones plus
// `devices`, `overlap` (none | stream | fused, default fused), optional `algorithm` for
// the collective, `comm_sms` (NCCL's CTAs in stream mode; by default the collective's
// channels where the system profile measures them, net/nccl_channels.h) and, for
// gemm_rs, `chunks`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/kernels/gemm.h"
#include "tilesight/util/result.h"

namespace tilesight::kernels {

enum class Overlap { kNone, kStream, kFused };
const char* overlap_name(Overlap o);

// The communication fields every fused compute-communication template has.
struct CommFields {
  std::int64_t devices = 0;
  Overlap overlap = Overlap::kFused;
  std::optional<std::string> algorithm;
  // NCCL's CTAs in stream mode, one per channel: the plan's value where it names one
  // (comm_sms_given); else the collective's channel count where the system profile measures
  // NCCL's channels; else this default (systems whose NCCL channels are not measured).
  std::int64_t comm_sms = 16;
  bool comm_sms_given = false;
};

// Reads `devices`, `comm_sms`, `algorithm` and `overlap` from `params` into `out` (errors with
// their JSON paths into `errors`) and returns the remaining fields: the compute template's
// parameters, for that template's parser to read and check.
nlohmann::json read_comm_fields(const nlohmann::json& params, const std::string& path, CommFields& out,
                                Errors& errors);

struct FusedCommParams : CommFields {
  std::string kernel;  // "ag_gemm" or "gemm_rs"
  GemmParams gemm;     // the whole problem: M, N, K as the user wrote them
  // gemm_rs, stream: the GEMM in `chunks` row pieces, each reduce-scattered by its own NCCL
  // call as soon as it is done (as tests/validation/h200x2/collectives.py does with 4); 0:
  // the default decomposition, devices pieces against devices-1 ring steps.
  std::int64_t chunks = 0;
};

// The local GEMM of one device (ag_gemm: M x N/devices x K; gemm_rs: M x N x K/devices),
// and of one of its row pieces (M/devices rows, or M/chunks).
GemmParams local_gemm(const FusedCommParams& p);
GemmParams piece_gemm(const FusedCommParams& p);

// Bytes of the collective as nccl-tests "size": ag_gemm all-gathers A (M·K elements);
// gemm_rs reduce-scatters the partial C (M·N elements, output dtype).
double collective_bytes(const FusedCommParams& p);

Result<FusedCommParams> parse_fused_comm_params(const std::string& kernel, const nlohmann::json& params,
                                                const std::string& path = "params");

}  // namespace tilesight::kernels
