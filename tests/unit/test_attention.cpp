// The `attention` and memory-bound templates: the lifted tile programs against hand
// calculations (paper §3.1, Table 2), parameter errors, causal halving, GQA reuse and the
// decode split.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/kernels/attention.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/plan/plan_json.h"

using namespace tilesight;
using nlohmann::json;

namespace {

kernels::AttentionParams parse(const json& params) {
  auto p = kernels::parse_attention_params(params);
  REQUIRE(p);
  return *p;
}

const plan::TileAction& action(const plan::TileProgram& prog, const std::string& name) {
  auto it = std::find_if(prog.actions.begin(), prog.actions.end(),
                         [&](const auto& a) { return a.name == name; });
  REQUIRE(it != prog.actions.end());
  return *it;
}

const plan::TensorAccess& access(const plan::TileProgram& prog, const std::string& tensor) {
  auto it = std::find_if(prog.accesses.begin(), prog.accesses.end(),
                         [&](const auto& a) { return a.tensor == tensor; });
  REQUIRE(it != prog.accesses.end());
  return *it;
}

std::string errors_of(const json& params) {
  auto r = kernels::read_plan(json{{"kernel", "attention"}, {"params", params}});
  REQUIRE_FALSE(r);
  return r.error_text("; ");
}

const json kFa2 = {
    {"batch", 4}, {"heads", 32}, {"seq_q", 4096}, {"seq_kv", 4096}, {"head_dim", 128}};

}  // namespace

TEST_CASE("FA2 hd128 lifts to the hand-written example's tile program", "[attention]") {
  const auto p = parse(kFa2);
  CHECK(p.block_m == 128);  // FA2 library traits for d 128: 128 x 64, 4 warps
  CHECK(p.block_n == 64);
  CHECK(p.warps == 4);
  CHECK(p.mma == MmaInstruction::kMmaSync);
  const auto prog = kernels::lift_attention(p);
  CHECK(prog.grid.tiles() == 4 * 32 * 32);
  CHECK(prog.find_loop("kv")->trip_count == 64);
  CHECK(action(prog, "load_q").bytes == 128 * 128 * 2);
  CHECK(action(prog, "load_k").bytes == 64 * 128 * 2);
  CHECK(action(prog, "load_v").bytes == 64 * 128 * 2);
  CHECK(action(prog, "gemm_qk").flops == 2.0 * 128 * 64 * 128);
  CHECK(action(prog, "gemm_pv").flops == 2.0 * 128 * 64 * 128);
  CHECK(action(prog, "exp").sfu_ops == 128 * 64);
  CHECK(action(prog, "rescale").flops == 128 * 64 + 128 * 128);
  CHECK(action(prog, "store_o").bytes == 128 * 128 * 2);
  CHECK(prog.resources.smem_bytes == 65536);  // Q + one K and one V tile (the library's buffers)
  // Whole grid: 4 b h s^2 d tensor-core flops; K and V read once per query block.
  double mma_flops = 0;
  for (const auto& a : prog.actions)
    if (a.op == plan::OpKind::kMmaTc) mma_flops += a.flops;
  const double kv_iters = static_cast<double>(prog.grid.tiles() * prog.find_loop("kv")->trip_count);
  CHECK(mma_flops * kv_iters == Approx(4.0 * 4 * 32 * 4096.0 * 4096.0 * 128));
  CHECK(action(prog, "gemm_pv").deps.size() == 3);  // fa2: PV waits for exp and rescale
}

TEST_CASE("attention parameter errors name their field", "[attention]") {
  json bad = kFa2;
  bad["kv_heads"] = 7;
  CHECK_THAT(errors_of(bad), Catch::Contains("params.heads"));
  bad = kFa2;
  bad["seq_kv"] = 0;
  CHECK_THAT(errors_of(bad), Catch::Contains("params.seq_kv"));
  bad = kFa2;
  bad["head_dim"] = 100;
  CHECK_THAT(errors_of(bad), Catch::Contains("params.head_dim"));
  bad["head_dim"] = 512;
  CHECK_THAT(errors_of(bad), Catch::Contains("params.head_dim"));
  bad = kFa2;
  bad["variant"] = "fa5";
  CHECK_THAT(errors_of(bad), Catch::Contains("params.variant"));
  bad = kFa2;
  bad["variant"] = "fa4";
  bad["head_dim"] = 256;
  CHECK_THAT(errors_of(bad), Catch::Contains("params.head_dim: fa4 runs head dims"));
  bad["head_dim"] = 128;
  bad["mma"] = "wgmma";
  CHECK_THAT(errors_of(bad), Catch::Contains("params.mma"));
  bad = kFa2;
  bad["mma"] = "tcgen05";
  CHECK_THAT(errors_of(bad), Catch::Contains("params.mma"));
  bad = kFa2;
  bad["block_m"] = 100;  // not a whole number of 16-row tensor-core tiles
  CHECK_THAT(errors_of(bad), Catch::Contains("params.block_m: must be a multiple of 16"));
  bad = kFa2;
  bad["block_n"] = 40;
  CHECK_THAT(errors_of(bad), Catch::Contains("params.block_n: must be a multiple of 16"));
  bad = kFa2;
  bad["variant"] = "fa3";
  bad["head_dim"] = 72;  // a multiple of 8 that fa2 runs, fa3 has no kernel for
  CHECK_THAT(errors_of(bad), Catch::Contains("params.head_dim: fa3 runs head dims"));
  bad["head_dim"] = 96;
  CHECK(kernels::read_plan(json{{"kernel", "attention"}, {"params", bad}}));
}

TEST_CASE("causal attention walks about half the key blocks", "[attention]") {
  json causal = kFa2;
  causal["causal"] = 1;
  const auto p = parse(causal);
  // Query block i sees 2(i+1) key blocks of 64: the average over 32 blocks is 33 of 64.
  CHECK(kernels::attention_kv_blocks(p) == 33);
  const auto prog = kernels::lift_attention(p);
  CHECK(prog.find_loop("kv")->trip_count == 33);
  // The per-block counts go with it for the wave model's makespan: 2, 4, ..., 64.
  CHECK(prog.find_loop("kv")->trips_dim == "q_block");
  REQUIRE(prog.find_loop("kv")->trips.size() == 32);
  CHECK(prog.find_loop("kv")->trips.front() == 2);
  CHECK(prog.find_loop("kv")->trips.back() == 64);
  causal["causal"] = true;
  CHECK(kernels::attention_kv_blocks(parse(causal)) == 33);
}

TEST_CASE("GQA heads of a group reuse the K/V tiles", "[attention]") {
  json gqa = kFa2;
  gqa["kv_heads"] = 8;
  const auto prog = kernels::lift_attention(parse(gqa));
  REQUIRE(prog.grid.dim_index("group"));
  CHECK(prog.grid.dims[*prog.grid.dim_index("group")].extent == 4);
  CHECK(prog.grid.tiles() == 4 * 32 * 32);
  const auto& k = access(prog, "K");
  CHECK(k.reuse_dims == std::vector<std::string>{"q_block", "group"});
  CHECK(prog.find_tensor("K")->shape == std::vector<std::int64_t>{4, 8, 4096, 128});
}

TEST_CASE("decode folds the GQA group and splits the key loop", "[attention]") {
  const auto p = parse({{"batch", 1},
                        {"heads", 32},
                        {"kv_heads", 8},
                        {"seq_q", 1},
                        {"seq_kv", 8192},
                        {"head_dim", 128},
                        {"split_kv", 4}});
  CHECK(kernels::attention_rows_per_tile(p) == 4);
  const auto prog = kernels::lift_attention(p);
  CHECK(prog.launches == 2);
  CHECK(prog.grid.tiles() == 4 * 8);  // splits x kv heads, one query block
  CHECK(prog.find_loop("kv")->trip_count == 8192 / 128 / 4);  // the split kernel's 128-key blocks
  CHECK(action(prog, "load_q").bytes == 4 * 128 * 2);
  CHECK(action(prog, "store_partial").bytes == 4 * 128 * 4 + 4 * 4);
  CHECK(action(prog, "store_o").bytes == 4 * 128 * 2 / 4.0);
  const auto whole = kernels::lift_attention(parse({{"batch", 1},
                                                    {"heads", 32},
                                                    {"kv_heads", 8},
                                                    {"seq_q", 1},
                                                    {"seq_kv", 8192},
                                                    {"head_dim", 128}}));
  CHECK(whole.launches == 1);
  CHECK(whole.find_loop("kv")->trip_count == 128);
  // The 4-way split's combine walks its partials one split after another: 3 more L2 round trips.
  CHECK(action(prog, "combine_partials").chained_l2_loads == 3);
  CHECK(action(whole, "store_o").chained_l2_loads == 0);
}

TEST_CASE("split_kv: true splits as FlashAttention-2's heuristic does, on its split kernel's tiles", "[attention]") {
  // The grids measured on the H200 (attention_README.md, llm_decode_kernels.csv): FA2's
  // num_splits_heuristic over twice the 132 SMs gives every one of them.
  auto split = [](std::int64_t batch, std::int64_t heads, std::int64_t kv, std::int64_t seq_kv, std::int64_t d) {
    return parse({{"batch", batch}, {"heads", heads}, {"kv_heads", kv}, {"seq_q", 1}, {"seq_kv", seq_kv},
                  {"head_dim", d}, {"split_kv", true}});
  };
  for (std::int64_t seq : {4096, 8192, 16384, 32768}) CHECK(split(1, 32, 32, seq, 128).split_kv == 7);
  CHECK(split(1, 32, 8, 1024, 128).split_kv == 8);
  CHECK(split(1, 32, 8, 8192, 128).split_kv == 32);
  CHECK(split(1, 32, 8, 32768, 128).split_kv == 29);
  CHECK(split(8, 32, 8, 4096, 128).split_kv == 4);
  CHECK(split(32, 32, 8, 4096, 128).split_kv == 1);  // 256 tiles fill 80% of 264 slots: no split
  CHECK(split(8, 32, 32, 4096, 128).split_kv == 1);
  CHECK(split(1, 32, 32, 32768, 64).split_kv == 7);
  // The split kernel's tiles: 64 rows, 128 keys at head dim 128, 256 at 64 (its traits).
  CHECK(split(1, 32, 32, 8192, 128).block_m == 64);
  CHECK(split(1, 32, 32, 8192, 128).block_n == 128);
  CHECK(split(1, 32, 32, 8192, 64).block_n == 256);
  // Unsplit, the plain kernel's own (128 x 64 at head dim 128).
  CHECK(split(32, 32, 8, 4096, 128).block_m == 128);
  CHECK(split(32, 32, 8, 4096, 128).block_n == 64);
  // One K and one V buffer whatever the stages: 64 x 128 x 2 B of Q + 2 x 128 x 128 x 2 B = 80 KiB.
  CHECK(kernels::attention_smem_bytes(split(1, 32, 32, 8192, 128)) == 80 * 1024);
  // Its loop waits for K and for V apart; Triton's wgmma loop (a software pipeline) does not.
  CHECK(kernels::lift_attention(split(1, 32, 32, 8192, 128)).find_loop("kv")->loads_wait_apart);
  json triton = {{"batch", 1}, {"heads", 32}, {"seq_q", 1}, {"seq_kv", 8192}, {"head_dim", 128}, {"mma", "wgmma"}};
  CHECK_FALSE(kernels::lift_attention(parse(triton)).find_loop("kv")->loads_wait_apart);
  CHECK(kernels::attention_smem_bytes(parse(triton)) == (128 * 128 + 2 * 2 * 64 * 128) * 2);
  // The plan format carries both (docs/plan-format.md).
  const auto prog = kernels::lift_attention(split(1, 32, 8, 8192, 128));
  auto back = plan::parse_tile_program(plan::to_json(prog));
  REQUIRE(back);
  CHECK(back->find_loop("kv")->loads_wait_apart);
  CHECK(action(*back, "combine_partials").chained_l2_loads == 31);
}

TEST_CASE("fa3 runs the chain per consumer warp group, two interleaved, and defaults to wgmma", "[attention]") {
  // cuDNN's sm90 kernel (cudnn_sdpa_sass_d64.csv): each 64-row warp group waits on its QK^T,
  // runs its softmax (the two groups' ex2 sections take turns at named barriers) and waits on
  // its PV; its blocks take their next tile from a counter (one ATOMG.ADD per tile).
  json fa3 = kFa2;
  fa3["variant"] = "fa3";
  const auto p = parse(fa3);
  CHECK(p.mma == MmaInstruction::kWgmma);
  CHECK(p.warps == 12);
  CHECK(p.block_m == 128);
  const auto prog = kernels::lift_attention(p);
  CHECK(action(prog, "gemm_pv").deps == std::vector<std::size_t>{5, 6, 2});
  CHECK(prog.find_loop("kv")->chain_groups == 2);
  CHECK(prog.find_loop("kv")->warp_serial_sfu);
  CHECK(prog.schedule.persistent);
  CHECK(prog.schedule.dynamic);
  CHECK(prog.schedule.head_per_tile);
  const json j = plan::to_json(prog);
  CHECK(j["loops"][0]["chain_groups"] == 2);
  CHECK(j["schedule"]["dynamic"] == true);
  auto back = plan::parse_tile_program(j);
  REQUIRE(back);
  CHECK(back->loops[0].chain_groups == 2);
  CHECK(back->schedule.dynamic);
  CHECK(back->schedule.head_per_tile);
  // One warp group's rows: one chain.
  auto one = p;
  one.block_m = 64;
  CHECK(kernels::lift_attention(one).find_loop("kv")->chain_groups == 1);
}

TEST_CASE("attention takes the compiler's registers for occupancy", "[attention]") {
  // Triton FA, d = 128, 128x32 tiles, 4 warps: the estimate is 128 x (128 + 32) / 128 + 40 =
  // 200 registers; the compiled kernel reports 221 (attention_triton.csv), which replaces it.
  auto p = kernels::parse_attention_params(json{{"batch", 1}, {"heads", 8}, {"seq_q", 1024}, {"seq_kv", 1024},
                                                {"head_dim", 128}, {"block_m", 128}, {"block_n", 32}, {"warps", 4}});
  REQUIRE(p);
  CHECK(kernels::attention_registers_per_thread(*p) == 200);
  auto q = kernels::parse_attention_params(json{{"batch", 1}, {"heads", 8}, {"seq_q", 1024}, {"seq_kv", 1024},
                                                {"head_dim", 128}, {"block_m", 128}, {"block_n", 32}, {"warps", 4},
                                                {"registers", 221}});
  REQUIRE(q);
  CHECK(kernels::attention_registers_per_thread(*q) == 221);
  CHECK(kernels::lift_attention(*q).resources.registers_per_thread == 221);
  auto bad = kernels::parse_attention_params(json{{"batch", 1}, {"heads", 8}, {"seq_q", 64}, {"seq_kv", 64},
                                                  {"head_dim", 64}, {"registers", 0}});
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error_text(), Catch::Contains("params.registers"));
}

TEST_CASE("attention takes the compiler's spill count for its local traffic", "[attention]") {
  // Triton FA 128x128 d128 on 4 warps reports 140 spill slots (attention_triton.csv): each
  // K/V block stores and reloads them, 2 x 4 B x 140 x 128 threads = 143360 bytes.
  auto p = tilesight::kernels::parse_attention_params(nlohmann::json::parse(
      R"({"batch": 4, "heads": 32, "seq_q": 2048, "seq_kv": 2048, "head_dim": 128, "block_m": 128, "block_n": 128,
          "warps": 4, "stages": 2, "registers": 255, "spills": 140})"));
  REQUIRE(p.ok());
  CHECK(tilesight::kernels::attention_spill_bytes_per_iteration(p.value()) == Approx(143360.0));
  auto bad = tilesight::kernels::parse_attention_params(nlohmann::json::parse(
      R"({"batch": 1, "heads": 1, "seq_q": 128, "seq_kv": 128, "head_dim": 64, "spills": -3})"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "params.spills");
}
