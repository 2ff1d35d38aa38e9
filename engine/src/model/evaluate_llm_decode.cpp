// llm_decode: a decode step as the sum of its kernels (each predicted by the single-GPU
// engine on one GPU of the system) and its collectives (the network model), run back to back
// from a CUDA graph as serving engines do: every kernel pays the dependent-launch start-up,
// not a full launch. Busy time per pipeline adds over the kernels, so the step's bottleneck
// and utilisation say where a decode step goes.
#include <algorithm>
#include <cstdio>
#include <numeric>

#include <nlohmann/json.hpp>

#include "tilesight/kernels/attention.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/kernels/memory_bound.h"
#include "cross_device.h"
#include "tilesight/model/distributed.h"
#include "tilesight/net/network_report.h"

namespace tilesight::model {

namespace {

constexpr double kUs = 1e6;

struct Step {
  report::Prediction total;  // accumulates busy time
  double seconds = 0;
  std::vector<std::pair<std::string, double>> per_layer;  // op -> us per layer (or once)
  std::vector<net::ScheduledCollective> collectives;
};

// A kernel inside the CUDA graph: its device time plus the dependent-launch start-up.
double graph_seconds(const report::Prediction& p, const hw::HardwareSpec& gpu) {
  return (p.latency_us - p.launch_overhead_us + gpu.dependent_launch_us) / kUs;
}

void add_kernel(Step& s, const std::string& name, const report::Prediction& p, const hw::HardwareSpec& gpu,
                double times) {
  const double t = graph_seconds(p, gpu);
  s.seconds += t * times;
  for (std::size_t r = 0; r < kResourceCount; ++r) s.total.busy_us[r] += p.busy_us[r] * times;
  s.total.flops += p.flops * times;
  s.total.dram_read_bytes += p.dram_read_bytes * times;
  s.total.dram_write_bytes += p.dram_write_bytes * times;
  s.total.dram_bytes += p.dram_bytes * times;
  s.per_layer.push_back({name, t * kUs});
}

// The fastest of a few cuBLAS-like tile configs (decode GEMMs are skinny: M = batch).
Result<report::Prediction> best_gemm(kernels::GemmParams g, const hw::HardwareSpec& gpu) {
  struct Tile {
    std::int64_t m, n, k, stages, warps, split_k;
  };
  // Skinny decode GEMMs fill the GPU by splitting K (cuBLAS's split-K kernels).
  constexpr Tile tiles[] = {{64, 128, 64, 4, 4, 1},  {128, 128, 64, 4, 8, 1}, {128, 256, 64, 3, 8, 1},
                            {64, 64, 128, 4, 4, 1},  {64, 128, 64, 4, 4, 4}, {64, 128, 64, 4, 4, 8},
                            {64, 64, 128, 4, 4, 16}};
  std::optional<report::Prediction> best;
  Errors last;
  for (const Tile& t : tiles) {
    g.block_m = t.m, g.block_n = t.n, g.block_k = t.k, g.stages = t.stages, g.warps = t.warps, g.group_m = 8;
    g.split_k = t.split_k;
    if (t.split_k > 1 && (g.K / t.k) < 4 * t.split_k) continue;  // too few K blocks to split
    auto p = evaluate(kernels::lift_gemm(g), gpu, {.timeline = false});
    if (!p) {
      last = p.errors();
      continue;
    }
    if (!best || p->latency_us < best->latency_us) best = std::move(p).value();
  }
  if (!best) return last;
  return *best;
}

// A memory-bound kernel of the step. SiLU(gate) x up is PyTorch's eager `F.silu(g) * u` on the
// two halves of the gate/up GEMM's output: two kernels, non-vectorised past one row (strided
// halves; tests/validation/h200/llm_decode_kernels.csv), not one fused kernel.
Result<report::Prediction> memory_bound(const std::string& kernel, std::int64_t rows, std::int64_t cols, DType dt,
                                        const hw::HardwareSpec& gpu) {
  nlohmann::json params{{"rows", rows}, {"cols", cols}, {"dtype", std::string(dtype_name(dt))}};
  if (kernel == "silu_mul") params["fused"] = false, params["strided"] = true;
  auto p = kernels::parse_memory_bound_params(kernel, params);
  if (!p) return p.errors();
  return evaluate(kernels::lift_memory_bound(*p), gpu, {.timeline = false});
}

}  // namespace

Result<report::Prediction> evaluate_llm_decode(const kernels::LlmDecodeParams& p, const net::SystemSpec& system) {
  const std::int64_t devices = p.replica_devices() * p.dp;
  if (devices > static_cast<std::int64_t>(system.devices()))
    return Error{"params.dp", "the model needs max(tp, ep) x dp = " + std::to_string(devices) + " GPUs; " +
                                  system.name + " has " + std::to_string(system.devices())};
  // The step's kernels follow each other in one CUDA graph: no flush leaves the L2 dirty.
  hw::HardwareSpec gpu = system.device;
  gpu.dirty_l2_bytes = 0;
  const kernels::LlmModel& m = p.model;
  const double L = static_cast<double>(m.layers), e = dtype_bytes(p.dtype);
  const std::int64_t heads = m.heads / p.tp, kv = std::max<std::int64_t>(1, m.kv_heads / p.tp), hd = m.head_dim;
  Step s;
  auto gemm = [&](const std::string& name, std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t batch,
                  double times) -> Errors {
    kernels::GemmParams g{.M = M, .N = N, .K = K, .batch = batch, .dtype = p.dtype};
    auto r = best_gemm(g, gpu);
    if (!r) return prefixed("params.model (" + name + ")", r.errors());
    add_kernel(s, name, *r, gpu, times);
    return {};
  };
  auto norm = [&](const std::string& kernel, const std::string& name, std::int64_t cols, double times,
                  std::int64_t rows = 0) -> Errors {
    auto r = memory_bound(kernel, rows > 0 ? rows : p.batch, cols, p.dtype, gpu);
    if (!r) return prefixed("params.model (" + name + ")", r.errors());
    add_kernel(s, name, *r, gpu, times);
    return {};
  };
  // A tensor moved from its producer's placement to its consumer's: the collective is
  // inferred (net/remote_access.h), never named here.
  auto comm = [&](const std::string& name, const net::TensorShape& t, const net::Placement& produced,
                  const net::Placement& consumed, double times) -> Errors {
    if (consumed.devices.size() < 2) return {};
    auto req = placed_collective(t, produced, consumed, "params");
    if (!req) return req.errors();
    auto r = net::tune_collective(system.network, *req);
    if (!r) return prefixed("params", r.errors());
    // Everything before it ran `times` (= layers) times: its first run starts a layer's share
    // of that into the step; the runs repeat every layer (period set after the layers).
    s.collectives.push_back({.cost = *r, .start_s = s.seconds / times, .runs = static_cast<std::int64_t>(times)});
    s.seconds += r->total_s * times;
    s.per_layer.push_back({name, r->total_s * kUs});
    return {};
  };
  Errors errors;
  auto run = [&](Errors found) { errors.insert(errors.end(), found.begin(), found.end()); };
  // Attention block.
  run(norm("rmsnorm", "input rmsnorm", m.hidden, L));
  run(gemm("qkv projection", p.batch, (heads + 2 * kv) * hd, m.hidden, 1, L));
  {
    auto a = kernels::parse_attention_params(nlohmann::json{{"batch", p.batch}, {"heads", heads}, {"kv_heads", kv},
                                                            {"seq_q", 1}, {"seq_kv", p.ctx}, {"head_dim", hd},
                                                            {"causal", false}, {"split_kv", true},
                                                            {"dtype", std::string(dtype_name(p.dtype))}});
    if (!a) run(prefixed("params.model (attention)", a.errors()));
    else if (auto r = evaluate(kernels::lift_attention(*a), gpu, {.timeline = false}); !r)
      run(prefixed("params.model (attention)", r.errors()));
    else add_kernel(s, "attention (decode)", *r, gpu, L);
  }
  run(gemm("o projection", p.batch, m.hidden, heads * hd, 1, L));
  // Row-parallel projections leave a partial [batch, hidden] on every tp GPU; the next
  // layer reads it whole on each (an all-reduce, inferred).
  const auto tp_group = first_devices(p.tp), ep_group = first_devices(p.ep);
  const net::TensorShape hidden_out{"hidden", {p.batch, m.hidden}, e};
  run(comm("all_reduce (attention, tp)", hidden_out, net::Placement::partial(tp_group),
           net::Placement::replicated(tp_group), L));
  run(norm("add", "residual add (attention)", m.hidden, L));
  // MLP block.
  run(norm("rmsnorm", "post-attention rmsnorm", m.hidden, L));
  if (!m.moe()) {
    run(gemm("gate_up projection", p.batch, 2 * m.ffn / p.tp, m.hidden, 1, L));
    run(norm("silu_mul", "silu_mul", m.ffn / p.tp, L));
    run(gemm("down projection", p.batch, m.hidden, m.ffn / p.tp, 1, L));
    run(comm("all_reduce (mlp, tp)", hidden_out, net::Placement::partial(tp_group), net::Placement::replicated(tp_group),
             L));
    run(norm("add", "residual add (mlp)", m.hidden, L));
  } else {
    // Uniform routing: a GPU holds experts/ep experts, and each expert sees the batch·k/experts
    // token copies of every one of the ep GPUs that dispatch to it (the all-to-all below):
    // ep·batch·k/experts rows a GEMM (tests/validation/h200x2/llm_decode_ep2.csv).
    const std::int64_t local = m.experts / p.ep;
    const std::int64_t tokens =
        std::max<std::int64_t>(1, (p.ep * p.batch * m.experts_per_token + m.experts - 1) / m.experts);
    // Routed token copies [source GPU, destination expert group, batch·k, hidden]: each GPU
    // makes its own (sharded on dim 0); under uniform routing each expert group gets 1/ep of
    // every GPU's batch·k rows (an element here is 1/ep of a row element), read where its
    // experts live (sharded on dim 1): an all-to-all of batch·k·hidden elements per GPU.
    const std::int64_t routed = p.batch * m.experts_per_token;
    const net::TensorShape routed_rows{"routed tokens", {p.ep, p.ep, routed, m.hidden}, e / static_cast<double>(p.ep)};
    const auto by_source = net::Placement::sharded(0, ep_group), by_expert = net::Placement::sharded(1, ep_group);
    run(gemm("router", p.batch, m.experts, m.hidden, 1, L));
    run(comm("all_to_all dispatch (ep)", routed_rows, by_source, by_expert, L));
    run(gemm("expert gate_up", tokens, 2 * m.expert_ffn, m.hidden, local, L));
    // One SiLU x up over all the GPU's experts' rows (the batched GEMM's output, chunked).
    run(norm("silu_mul", "expert silu_mul", m.expert_ffn, L, tokens * local));
    run(gemm("expert down", tokens, m.hidden, m.expert_ffn, local, L));
    run(comm("all_to_all combine (ep)", routed_rows, by_expert, by_source, L));
    run(norm("add", "residual add (moe)", m.hidden, L));
  }
  const double layer_s = s.seconds / L;  // one layer: what every collective run recurs with
  for (auto& c : s.collectives) c.period_s = layer_s;
  run(norm("rmsnorm", "final rmsnorm", m.hidden, 1));
  run(gemm("lm_head", p.batch, m.vocab / p.tp, m.hidden, 1, 1));
  if (!errors.empty()) return errors;

  report::Prediction pred = s.total;
  pred.kernel = "llm_decode";
  pred.name = "llm_decode " + std::to_string(m.layers) + " layers, hidden " + std::to_string(m.hidden) +
              (m.moe() ? ", " + std::to_string(m.experts) + " experts" : "") + ", batch " + std::to_string(p.batch) +
              ", ctx " + std::to_string(p.ctx) + ", tp " + std::to_string(p.tp) + " ep " + std::to_string(p.ep) +
              " dp " + std::to_string(p.dp);
  pred.hardware = system.name;
  pred.profile_source = gpu.profile_source;
  pred.latency_us = s.seconds * kUs + gpu.launch_overhead_us;  // the graph's own launch
  pred.launch_overhead_us = gpu.launch_overhead_us;
  pred.steady_us = s.seconds * kUs;
  pred.waves = 1;
  pred.occupancy_limiter = "decode step (many kernels)";
  pred.cache_model = "per kernel";
  pred.network = net::network_report(system, s.collectives, s.seconds);
  double comm_s = 0;
  for (const auto& c : s.collectives) comm_s += c.cost.total_s;
  pred.busy_us[index(Resource::kNet)] = comm_s * kUs;
  report::rate_resources(pred);
  pred.serve.step_us = pred.latency_us;
  pred.serve.tokens_per_s = static_cast<double>(p.batch * p.dp) / (pred.latency_us * 1e-6);
  pred.serve.per_layer_us = s.per_layer;
  char line[160];
  std::snprintf(line, sizeof line, "decode step %.4g us: %.4g tokens/s over %lld GPUs; communication %.0f%% of the step.",
                pred.latency_us, pred.serve.tokens_per_s, static_cast<long long>(devices), 100 * comm_s * kUs / pred.latency_us);
  pred.diagnosis.push_back(line);
  pred.diagnosis.push_back("Kernels run back to back from a CUDA graph (dependent-launch start-up each); uniform MoE routing; "
                           "each GEMM takes the fastest of seven tile configs (split-K among them).");
  return pred;
}

}  // namespace tilesight::model
