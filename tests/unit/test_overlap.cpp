// Communication overlapped with computation (model/overlap.h) against hand-drawn schedules,
// and the fused templates' bounds: max(compute, communication) <= T <= their sum.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "tilesight/model/distributed.h"
#include "tilesight/model/overlap.h"

using namespace tilesight::model;

TEST_CASE("all-gather first: piece k waits for step k-1", "[net][overlap]") {
  // Steps of 2, pieces of 3 (n = 4):
  //   Net | 0-2 | 2-4 | 4-6 |
  //   SM  | 0-3 | 3-6 | 6-9 | 9-12 |   -> compute-bound: T = 12 = 4 x 3
  auto s = schedule_overlap({.comm = {2, 2, 2}, .compute = {3, 3, 3, 3}, .comm_first = true});
  CHECK(s.total == Approx(12));
  CHECK(s.overlap_rate() == Approx(1.0));  // 6 + 12 - 12 = all 6 hidden
  // Steps of 5, pieces of 1: piece 3 waits for step 3 at 15, T = 16; hidden = 5+4-16 < 0 -> the
  // pieces hide under the steps instead: overlap of communication = (15 + 4 - 16) / 15 = 0.2.
  auto c = schedule_overlap({.comm = {5, 5, 5}, .compute = {1, 1, 1, 1}, .comm_first = true});
  CHECK(c.total == Approx(16));
  CHECK(c.overlap_rate() == Approx(3.0 / 15));
}

TEST_CASE("reduce-scatter after: step k waits for piece k", "[net][overlap]") {
  //   SM  | 0-3 | 3-6 | 6-9 | 9-12 |
  //   Net |     | 3-5 | 6-8 | 9-11 |  -> T = 12
  auto s = schedule_overlap({.comm = {2, 2, 2}, .compute = {3, 3, 3, 3}, .comm_first = false});
  CHECK(s.total == Approx(12));
  REQUIRE(s.comm.size() == 3);
  CHECK(s.comm[0].start == Approx(3));
  CHECK(s.comm[2].end == Approx(11));
}

TEST_CASE("tail admission: a step gets SMs only in the last round of the piece running", "[net][overlap]") {
  // Reduce-scatter after, pieces of 4, steps of 2, last rounds of 1, compute 2x slower beside a step:
  //   SM  | 0-4 | 4-8 | 8-12.5 (0.5 of work in 8-9) |
  //   Net |         7-9 (piece 1's last round) | 11.5-13.5 | 13.5-15.5 |
  auto s = schedule_overlap(
      {.comm = {2, 2, 2}, .compute = {4, 4, 4}, .comm_first = false, .compute_slowdown = 2, .tail = {1, 1, 1}});
  REQUIRE(s.comm.size() == 3);
  CHECK(s.comm[0].start == Approx(7));
  CHECK(s.compute[2].end == Approx(12.5));
  CHECK(s.comm[1].start == Approx(11.5));
  CHECK(s.comm[2].start == Approx(13.5));
  CHECK(s.total == Approx(15.5));
  // All-gather first: piece 0 takes the SMs, the step starts in its last round, piece 1 waits.
  auto g = schedule_overlap({.comm = {3}, .compute = {4, 4}, .comm_first = true, .tail = {1, 1}});
  CHECK(g.comm[0].start == Approx(3));
  CHECK(g.compute[1].start == Approx(6));
  CHECK(g.total == Approx(10));
}

TEST_CASE("a slowed piece stretches only inside the busy spans", "[net][overlap]") {
  // 4 s of work from t=0, busy 1-3 at half speed: 1 s done by t=1, 1 s more by t=3, 2 s more -> 5.
  CHECK(finish_time(0, 4, {{1, 3}}, 2.0) == Approx(5));
  CHECK(finish_time(0, 4, {}, 2.0) == Approx(4));
  CHECK(finish_time(4, 1, {{1, 3}}, 2.0) == Approx(5));
}

TEST_CASE("fused templates stay within max(compute, comm) <= T <= sum", "[net][overlap]") {
  for (const char* kernel : {"ag_gemm", "gemm_rs"}) {
    for (const char* overlap : {"none", "stream", "fused"}) {
      INFO(kernel << " " << overlap);
      const nlohmann::json doc = {{"kernel", kernel},
                                  {"hardware", "h200x8"},
                                  {"params",
                                   {{"M", 8192}, {"N", 8192}, {"K", 8192}, {"devices", 8}, {"overlap", overlap},
                                    {"block_m", 128}, {"block_n", 256}, {"block_k", 64}, {"warps", 8}}}};
      auto p = predict_distributed(doc, "", {.timeline = false});
      INFO((p.ok() ? "" : p.error_text()));
      REQUIRE(p.ok());
      const auto& n = p->network;
      CHECK(n.overlap == overlap);
      const double comm = n.comm_us, compute = n.compute_us, t = p->latency_us;
      CHECK(t >= std::max(comm, compute) - 1e-6);
      if (std::string(overlap) == "none") {
        CHECK(t == Approx(comm + compute));
        CHECK(n.overlap_rate == Approx(0).margin(1e-9));
        // One after the other: ag_gemm's all-gather, then the GEMM; gemm_rs's GEMM, then its
        // reduce-scatter, whose stages on the links start where it does.
        REQUIRE(n.schedule.size() == 2);
        const bool gather = std::string(kernel) == "ag_gemm";
        const auto& steps = n.schedule[0].compute ? n.schedule[1] : n.schedule[0];
        const auto& gemm = n.schedule[0].compute ? n.schedule[0] : n.schedule[1];
        CHECK(steps.start_us == Approx(gather ? 0 : compute).margin(1e-9));
        CHECK(steps.end_us - steps.start_us == Approx(comm));
        CHECK(gemm.start_us == Approx(gather ? comm : 0).margin(1e-9));
        CHECK(gemm.end_us - gemm.start_us == Approx(compute));
        for (const auto& e : n.events) CHECK(e.start_us >= steps.start_us - 1e-9);
      } else if (std::string(overlap) == "fused") {
        CHECK(t <= comm + compute + p->launch_overhead_us + 1e-6);
        // A pipeline of 8 shards: at most one step and one piece of fill past the longer lane.
        CHECK(t <= std::max(comm, compute) + comm / 7 + compute / 8 + p->launch_overhead_us + 1e-6);
        CHECK(n.overlap_rate > 0.3);
      } else {
        CHECK(t <= comm + 2 * compute);  // slowed beside NCCL, never past twice
        CHECK(n.overlap_rate > 0);
      }
      CHECK(p->utilization[tilesight::index(tilesight::Resource::kNet)] > 0);
    }
  }
}

TEST_CASE("Ulysses: all-to-all in, attention, all-to-all out, within the overlap bounds", "[net][overlap]") {
  // Llama-70B-like attention, 64 heads / 8 KV heads of 128, 32k tokens over 8 GPUs. Each
  // device sends its Q, K and V sequence shard: 4096 rows x (64 + 2 x 8) heads x 128 x 2 B =
  // 83.9 MB in; 4096 x 64 x 128 x 2 B = 67.1 MB out.
  for (const char* overlap : {"none", "stream", "fused"}) {
    INFO(overlap);
    const nlohmann::json doc = {{"kernel", "ulysses_attention"},
                                {"hardware", "h200x8"},
                                {"params",
                                 {{"batch", 1}, {"heads", 64}, {"kv_heads", 8}, {"seq_q", 32768}, {"seq_kv", 32768},
                                  {"head_dim", 128}, {"causal", true}, {"devices", 8}, {"overlap", overlap}}}};
    auto p = predict_distributed(doc, "", {.timeline = false});
    INFO((p.ok() ? "" : p.error_text()));
    REQUIRE(p.ok());
    const auto& n = p->network;
    REQUIRE(n.collectives.size() == 2);
    CHECK(n.collectives[0].bytes == Approx(4096.0 * 80 * 128 * 2));
    CHECK(n.collectives[1].bytes == Approx(4096.0 * 64 * 128 * 2));
    CHECK(p->latency_us >= std::max(n.comm_us, n.compute_us) - 1e-6);
    if (std::string(overlap) == "none") CHECK(p->latency_us == Approx(n.comm_us + n.compute_us));
    else CHECK(p->latency_us <= n.comm_us + 2 * n.compute_us + p->launch_overhead_us);
  }
}

TEST_CASE("what-if: doubling NVLink halves the ring's serialisation", "[net][whatif]") {
  // 1 GiB ring all-reduce on 8 GPUs: 14 steps of 3.4 us + (S/8) / (900e9 x 0.8) = 186.41 us,
  // plus the 8.4 us launch: 2665.8 us (against 5275.6 us at 450 GB/s).
  nlohmann::json doc = {{"kernel", "all_reduce"},
                        {"hardware", "h200x8"},
                        {"params", {{"bytes", 1073741824}, {"devices", 8}, {"algorithm", "ring"}, {"protocol", "Simple"}}},
                        {"what_if", {{"bandwidth_scale", {{"nvlink4", 2}}}}}};
  auto p = predict_distributed(doc, "");
  INFO((p.ok() ? "" : p.error_text()));
  REQUIRE(p.ok());
  CHECK(p->latency_us == Approx(8.4 + 14 * (3.4 + 1073741824.0 / 8 / 720e9 * 1e6)));
  CHECK(p->hardware == "h200x8 (what-if)");
  doc["what_if"]["bandwidth_scale"] = {{"nvlink9", 2}};
  auto bad = predict_distributed(doc, "");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "what_if.bandwidth_scale.nvlink9");
}

TEST_CASE("llm_decode adds its kernels and collectives into a step", "[net][serve]") {
  // Llama-3-70B-like: 80 layers, hidden 8192, 64/8 heads of 128, ffn 28672, vocab 128256.
  nlohmann::json model = {{"layers", 80}, {"hidden", 8192}, {"heads", 64},   {"kv_heads", 8},
                          {"head_dim", 128}, {"ffn", 28672}, {"vocab", 128256}};
  auto run = [&](int tp) {
    nlohmann::json doc = {{"kernel", "llm_decode"},
                          {"hardware", "h200x8"},
                          {"params", {{"model", model}, {"batch", 16}, {"ctx", 4096}, {"tp", tp}}}};
    auto p = predict_distributed(doc, "");
    INFO((p.ok() ? "" : p.error_text()));
    REQUIRE(p.ok());
    return std::move(p).value();
  };
  const auto one = run(1), eight = run(8);
  CHECK(one.network.empty());  // tp 1: no collective
  REQUIRE(eight.network.collectives.size() == 2);
  // 2 all-reduces of batch x hidden x 2 B = 256 KiB per layer.
  CHECK(eight.network.collectives[0].bytes == Approx(16.0 * 8192 * 2));
  // The step reads every weight once: 70B params x 2 B = ~141 GB on one GPU at 4.8 TB/s is at
  // least 29 ms; tp 8 splits the weights 8 ways but adds 160 all-reduces, and leaves the 160
  // norms of 16 x 8192 whole (PyTorch's row walk, about 10 us each: norm_rows.csv).
  CHECK(one.serve.step_us > 25000);
  CHECK(eight.serve.step_us < one.serve.step_us / 3.5);
  CHECK(eight.serve.tokens_per_s == Approx(16 / (eight.serve.step_us * 1e-6)));
  CHECK(eight.utilization[tilesight::index(tilesight::Resource::kNet)] > 0);
  // The step's DRAM traffic is its kernels': at least every weight once. Per layer on one GPU
  // q/k/v/o 8192 x (8192 + 2 x 1024 + 8192) + gate/up/down 3 x 8192 x 28672 = 855.6M params,
  // x 80 layers + lm_head 8192 x 128256 = 69.5G params, 139 GB in bf16; tp 8 reads an eighth.
  CHECK(one.dram_read_bytes > 139.0e9);
  CHECK(eight.dram_read_bytes > 139.0e9 / 8);
  CHECK(eight.dram_read_bytes < one.dram_read_bytes / 4);
  // A model that needs more GPUs than the system has is an error on params.dp.
  nlohmann::json big = {{"kernel", "llm_decode"}, {"hardware", "h200x8"},
                        {"params", {{"model", model}, {"batch", 1}, {"ctx", 16}, {"tp", 8}, {"dp", 2}}}};
  auto bad = predict_distributed(big, "");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "params.dp");
}

TEST_CASE("llm_decode runs on one GPU's profile: its step is PyTorch's kernels back to back", "[serve]") {
  // Llama-3-8B on one H200 (tests/validation/h200/llm_decode.csv, 4.99 ms measured at batch 1).
  nlohmann::json model = {{"layers", 32},    {"hidden", 4096}, {"heads", 32},    {"kv_heads", 8},
                          {"head_dim", 128}, {"ffn", 14336},   {"vocab", 128256}};
  nlohmann::json doc = {{"kernel", "llm_decode"},
                        {"hardware", "h200"},
                        {"params", {{"model", model}, {"batch", 1}, {"ctx", 1024}}}};
  auto p = predict_distributed(doc, "");
  INFO((p.ok() ? "" : p.error_text()));
  REQUIRE(p.ok());
  CHECK(p->network.empty());
  std::map<std::string, double> op;
  for (const auto& [name, us] : p->serve.per_layer_us) op[name] = us;
  // Each layer adds its two residuals in kernels of their own, and runs F.silu(g) * u as two
  // kernels: at least two dependent launches of the graph (0.68 us each).
  CHECK(op.count("residual add (attention)") == 1);
  CHECK(op.count("residual add (mlp)") == 1);
  CHECK(op["silu_mul"] > 2 * 0.68);
  // The weights, 15 GB, stream at most at the H200's 4.4 TB/s.
  CHECK(p->serve.step_us > 15.0e9 / 4.4e12 * 1e6);
  // More than one GPU's worth of parallelism is an error on that profile.
  doc["params"]["tp"] = 2;
  auto two = predict_distributed(doc, "");
  REQUIRE_FALSE(two.ok());
  CHECK(two.errors()[0].path == "params.dp");
  // Collectives still need a system profile.
  nlohmann::json coll = {{"kernel", "all_reduce"}, {"hardware", "h200"}, {"params", {{"bytes", 1024}, {"devices", 2}}}};
  auto bad = predict_distributed(coll, "");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "hardware");
}

TEST_CASE("llm_decode's collectives are inferred from where its tensors live", "[net][serve]") {
  // Mixtral-like MoE on 8 GPUs, tp 8 / ep 8: the row-parallel projections leave a partial
  // [16, 4096] on every GPU that each reads whole (an all-reduce of 16 x 4096 x 2 B); each GPU's
  // 16 x 2 routed token copies go 1/8 to each expert group and come back (all-to-alls of
  // 16 x 2 x 4096 x 2 B per GPU, nccl-tests size).
  nlohmann::json model = {{"layers", 32},   {"hidden", 4096}, {"heads", 32},  {"kv_heads", 8}, {"head_dim", 128},
                          {"ffn", 14336}, {"vocab", 32000}, {"experts", 8}, {"experts_per_token", 2}};
  nlohmann::json doc = {{"kernel", "llm_decode"},
                        {"hardware", "h200x8"},
                        {"params", {{"model", model}, {"batch", 16}, {"ctx", 4096}, {"tp", 8}, {"ep", 8}}}};
  auto p = predict_distributed(doc, "");
  INFO((p.ok() ? "" : p.error_text()));
  REQUIRE(p.ok());
  const auto& c = p->network.collectives;
  REQUIRE(c.size() == 3);
  CHECK(c[0].collective == "all_reduce");
  CHECK(c[0].bytes == Approx(16.0 * 4096 * 2));
  CHECK(c[1].collective == "all_to_all");
  CHECK(c[1].bytes == Approx(16.0 * 2 * 4096 * 2));
  CHECK(c[2].collective == "all_to_all");
  CHECK(c[2].devices == 8);
}

TEST_CASE("stream overlap: NCCL's CTAs are the collective's channels unless comm_sms names them", "[net][overlap]") {
  // A non-persistent 128x128 GEMM of many waves on two H200s: NCCL's CTAs take SMs as the
  // waves retire. A 128 MiB ring all_gather runs NCCL's 24 channels (nccl_channels_log.txt):
  // the GEMM runs 132 / (132 - 24) = 1.22x slower while a step runs; with comm_sms 8,
  // 132 / 124 = 1.065x.
  nlohmann::json doc = {{"kernel", "ag_gemm"},
                        {"hardware", "h200x2"},
                        {"params",
                         {{"M", 8192}, {"N", 8192}, {"K", 8192}, {"devices", 2}, {"overlap", "stream"},
                          {"block_m", 128}, {"block_n", 128}, {"block_k", 64}, {"stages", 4}, {"warps", 8}}}};
  auto text = [&](const nlohmann::json& d) {
    auto p = predict_distributed(d, "", {.timeline = false});
    INFO((p.ok() ? "" : p.error_text()));
    REQUIRE(p.ok());
    return p->diagnosis.front();
  };
  CHECK(text(doc).find("take 24 SMs") != std::string::npos);
  CHECK(text(doc).find("1.22x slower") != std::string::npos);
  doc["params"]["comm_sms"] = 8;
  CHECK(text(doc).find("take 8 SMs") != std::string::npos);
  CHECK(text(doc).find("1.06x slower") != std::string::npos);
}

TEST_CASE("a step beside compute runs comm_slowdown slower while the pieces run", "[net][overlap]") {
  // Reduce-scatter order, pieces of 10, one step of 12, the step 1.5x slower beside compute:
  //   SM  | 0-10 | 10-20 |
  //   Net |       10 ............ 25.33 |  piece 1 runs 10-20: 10 / 1.5 = 6.67 of the step's
  //   work done beside it, the other 5.33 alone after 20.
  auto s = schedule_overlap({.comm = {12}, .compute = {10, 10}, .comm_first = false, .comm_slowdown = 1.5});
  CHECK(s.comm[0].start == Approx(10));
  CHECK(s.comm[0].end == Approx(20 + (12 - 10 / 1.5)));
  CHECK(s.total == Approx(25.3333).epsilon(1e-4));
  // All-gather order: the pieces after the step wait for it, so it runs alone (no slowdown).
  auto g = schedule_overlap({.comm = {12}, .compute = {10, 10}, .comm_first = true, .comm_slowdown = 1.5});
  CHECK(g.comm[0].end == Approx(12));
}
