// Predictions that cross devices (§3.6): standalone collectives and the fused
// compute-communication kernels, on a system profile (net/system_profile.h). The entry for
// a plan document is predict_distributed(); is_distributed_plan() says when it applies.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/kernels/collective.h"
#include "tilesight/kernels/fused_comm.h"
#include "tilesight/kernels/llm_decode.h"
#include "tilesight/kernels/ulysses.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/net/system_profile.h"
#include "tilesight/report/prediction.h"

namespace tilesight::model {

// A template instance whose kernel needs a system profile (all_reduce, ag_gemm, ...).
bool is_distributed_plan(const nlohmann::json& doc);

// Names of the distributed templates, sorted.
std::vector<std::string> distributed_template_names();

// Reads the instance, loads the system (`hardware`, or `hw_override` when not empty) and
// predicts. Errors carry JSON paths ("params.devices", "hardware").
Result<report::Prediction> predict_distributed(const nlohmann::json& doc, const std::string& hw_override,
                                               const EvaluateOptions& options = {});

// A standalone collective on the first p.devices GPUs of the system.
Result<report::Prediction> evaluate_collective(const kernels::CollectiveParams& p, const net::SystemSpec& system);

// ag_gemm / gemm_rs on the first p.devices GPUs, overlapped as p.overlap says.
Result<report::Prediction> evaluate_fused_comm(const kernels::FusedCommParams& p, const net::SystemSpec& system,
                                               const EvaluateOptions& options = {});

// ulysses_attention: all-to-all, local attention on heads/devices heads, all-to-all back.
Result<report::Prediction> evaluate_ulysses(const kernels::UlyssesParams& p, const net::SystemSpec& system,
                                            const EvaluateOptions& options = {});

// llm_decode: one decode step of a dense or MoE model with tp/ep/dp (serving, CUDA graph).
Result<report::Prediction> evaluate_llm_decode(const kernels::LlmDecodeParams& p, const net::SystemSpec& system);

}  // namespace tilesight::model
