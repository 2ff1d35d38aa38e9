// Fused attention beyond the basic template: FlashAttention-4's TMEM traffic on Blackwell
// (§3.2) and the makespan of unequal causal tiles (tile_imbalance.h), against hand
// calculations.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/cache/cache_model.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/attention.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/model/loop_analysis.h"
#include "tilesight/model/resource_vector.h"
#include "tilesight/model/tile_imbalance.h"
#include "tilesight/plan/plan_json.h"

using namespace tilesight;
using nlohmann::json;

namespace {

const plan::TileAction& action(const plan::TileProgram& prog, const std::string& name) {
  auto it = std::find_if(prog.actions.begin(), prog.actions.end(), [&](const auto& a) { return a.name == name; });
  REQUIRE(it != prog.actions.end());
  return *it;
}

// The steady iteration of a program's first loop with `resident` tiles on each of 132 SMs.
double loop_steady(const plan::TileProgram& prog, const hw::HardwareSpec& hw, std::int64_t resident) {
  const auto rates = model::sm_rates(hw, 132, 1.0);
  const cache::CacheTraffic traffic;
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = rates, .resident = resident};
  return model::analyze_loop(prog.loops[0], resident, ctx).envelope.steady;
}

}  // namespace

TEST_CASE("fa4 charges the softmax and correction TMEM traffic of §3.2", "[attention][fa4]") {
  auto parsed = kernels::parse_attention_params(
      json{{"batch", 1}, {"heads", 16}, {"seq_q", 8192}, {"seq_kv", 8192}, {"head_dim", 128}, {"variant", "fa4"}});
  REQUIRE(parsed);
  const auto& p = *parsed;
  CHECK(p.mma == MmaInstruction::kTcgen05);
  CHECK(p.block_m == 256);  // two 128-row Q tiles
  CHECK(p.block_n == 128);
  CHECK(p.warps == 16);
  const auto prog = kernels::lift_attention(p);
  CHECK(prog.grid.tiles() == 16 * 8192 / 256);
  CHECK(prog.find_loop("kv")->trip_count == 8192 / 128);
  CHECK(prog.schedule.persistent);
  // Per key block: S (256 x 128 fp32) loaded from TMEM, P (bf16) stored over it, O (256 x 128
  // fp32) loaded and stored by the correction warp group.
  CHECK(action(prog, "rowmax").bytes == 256 * 128 * 4);
  CHECK(action(prog, "exp").bytes == 256 * 128 * 2);
  CHECK(action(prog, "rescale").bytes == 2 * 256 * 128 * 4);
  for (const char* a : {"rowmax", "exp", "rescale"}) CHECK(action(prog, a).result_level == plan::Placement::kTmem);
  CHECK(action(prog, "gemm_qk").flops == 2.0 * 256 * 128 * 128);
  CHECK(action(prog, "gemm_qk").mma == MmaInstruction::kTcgen05);
  CHECK(action(prog, "gemm_qk").bytes == 256 * 128 * 2 + 2 * 128 * 128 * 2);  // Q + K per Q tile
  CHECK(action(prog, "gemm_pv").deps == std::vector<std::size_t>{3, 2});  // ping-pong
  CHECK(prog.resources.smem_bytes == (256 * 128 + 2 * 2 * 128 * 128) * 2);
  // setmaxnreg: 2 softmax warp groups x (128 + 64) + correction 80 + MMA/TMA 48, over 4 groups.
  CHECK(prog.resources.registers_per_thread == (2 * 192 + 80 + 48) / 4);

  // On the B200 profile: TMEM 1.00608e12 B/s per SM, SFU 4.5e12 / 148 per SM, tensor cores
  // 2185e12 / 148 per SM.
  auto hw = hw::load_profile("b200");
  REQUIRE(hw);
  const auto rates = model::sm_rates(*hw, 148, 1.0);
  const cache::CacheTraffic none;
  auto u = [&](const char* name) { return model::resource_vector(action(prog, name), *hw, rates, none); };
  CHECK(u("rowmax")[Resource::kTmem] == Approx(131072 / 1.00608e12));             // 130.3 ns
  CHECK(u("exp")[Resource::kTmem] == Approx(65536 / 1.00608e12));                 // 65.1 ns
  CHECK(u("exp")[Resource::kSfu] == Approx(32768 / (4.5e12 / 148)));              // 1077.7 ns
  CHECK(u("rescale")[Resource::kTmem] == Approx(262144 / 1.00608e12));            // 260.6 ns
  CHECK(u("gemm_qk")[Resource::kTC] == Approx(2.0 * 256 * 128 * 128 / (2185e12 / 148)));  // 568.4 ns
  CHECK(u("gemm_qk")[Resource::kTmem] == 0);  // the MMA's own accumulator writes are not charged
}

TEST_CASE("list scheduling of unequal tiles", "[imbalance]") {
  // Two slots, tiles 4,1,1,1,1: a plain launch hands each next tile to the first free slot
  // (4 | 1+1+1+1 -> 4); a persistent kernel walks tiles 0,2,4 and 1,3 (4+1+1 = 6 | 2).
  CHECK(model::list_schedule_makespan({4, 1, 1, 1, 1}, 2, false) == 4);
  CHECK(model::list_schedule_makespan({4, 1, 1, 1, 1}, 2, true) == 6);
  CHECK(model::list_schedule_makespan({3, 3}, 8, false) == 3);
}

TEST_CASE("a causal grid that fits one wave lasts as long as its longest tile", "[imbalance]") {
  // FA2 1 x 32 heads x 1024, d 128 causal: 8 query blocks of 128 walk 2, 4, ..., 16 key blocks
  // of 64 (mean 9); 256 tiles on 132 SMs x 2 resident = 264 slots run at once, so the grid takes
  // 16 key blocks where the mean says 9.
  auto p = kernels::parse_attention_params(
      json{{"batch", 1}, {"heads", 32}, {"seq_q", 1024}, {"seq_kv", 1024}, {"head_dim", 128}, {"causal", true}});
  REQUIRE(p);
  const auto prog = kernels::lift_attention(*p);
  CHECK(prog.find_loop("kv")->trip_count == 9);
  CHECK(model::tile_imbalance(prog, 264) == Approx(16.0 / 9.0));
  // Many waves average it out: 64 heads x 8 blocks on 16 slots is within a few percent.
  CHECK(model::tile_imbalance(prog, 16) < 1.1);
}

TEST_CASE("Triton's 64-row tile on 8 warps computes S in both warp groups", "[attention]") {
  // ncu_attention_split_ptx.csv: each warp group of a 64-row tile on 8 warps computes the whole
  // of S (12 m64n32k16 a group per key block at block_n 64, d 64) and half of O's columns, with
  // P from its own registers. d 128: Q and K are 64 x 128 bf16 = 16 KiB each; QK^T's FLOP and
  // its reads of Q and K count twice, PV's once; nothing is exchanged between the groups.
  auto p = kernels::parse_attention_params(json{{"batch", 4}, {"heads", 32}, {"seq_q", 2048}, {"seq_kv", 2048},
                                                {"head_dim", 128}, {"mma", "wgmma"}, {"block_m", 64},
                                                {"block_n", 64}, {"warps", 8}, {"stages", 3}});
  REQUIRE(p);
  const auto prog = kernels::lift_attention(*p);
  CHECK(action(prog, "gemm_qk").bytes == 2 * (16384 + 16384));
  CHECK(action(prog, "gemm_qk").flops == 2 * 2.0 * 64 * 64 * 128);
  CHECK(action(prog, "gemm_pv").flops == 2.0 * 64 * 64 * 128);
  CHECK(action(prog, "gemm_pv").bytes == 16384);
  CHECK(std::none_of(prog.actions.begin(), prog.actions.end(), [](const auto& a) { return a.barriers > 0; }));
  CHECK_FALSE(prog.find_loop("kv")->overlap_resident);  // fa2 structure: chains take turns
  CHECK(prog.find_loop("kv")->copies_after_chain);      // Triton issues K/V copies after the chain
  const json j = plan::to_json(prog);
  CHECK(j["loops"][0]["copies_after_chain"] == true);
  auto back = plan::parse_tile_program(j);
  REQUIRE(back);
  CHECK(back->loops[0].copies_after_chain);
  // 128 rows on 4 warps: one warp group walks two row slices, reading K once per slice.
  auto q = *p;
  q.block_m = 128, q.warps = 4;
  const auto rows = kernels::lift_attention(q);
  CHECK(action(rows, "gemm_qk").bytes == 32768 + 2 * 16384);
  CHECK(action(rows, "gemm_qk").flops == 2.0 * 128 * 64 * 128);
  CHECK(action(rows, "gemm_pv").bytes == 2 * 16384);
  // FlashAttention-2's own kernel (mma.sync) keeps its copies ahead of its chain.
  auto lib = *p;
  lib.mma = MmaInstruction::kMmaSync;
  CHECK_FALSE(kernels::lift_attention(lib).find_loop("kv")->copies_after_chain);
}

TEST_CASE("one warp per scheduler runs a softmax's CUDA-core and SFU work in turn", "[attention][model]") {
  // An exp action of 300 ns on the SFU and 200 ns on the CUDA cores. With warp_serial_sfu, a
  // 4-warp tile alone on its SM (one warp per scheduler) waits the sum, 500 ns; two resident
  // 4-warp tiles, or one 8-warp tile, give each scheduler a second warp: the max, 300 ns (the
  // resident tiles' chains still take turns). Without the flag: 300 ns throughout.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.cuda_fp32_flops_per_s = 64e12;
  hw.sfu_ops_per_s = 4e12;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.loops = {{"kv", 10, 1, ""}};
  prog.loops[0].overlap_resident = false;
  prog.loops[0].warp_serial_sfu = true;
  prog.actions = {{.name = "exp", .op = plan::OpKind::kExp, .flops = 200e-9 * rates.cuda_flops,
                   .sfu_ops = 300e-9 * rates.sfu_ops, .loop = "kv", .dtype = DType::kFP32}};
  prog.resources.warps = 4;
  auto steady = [&](std::int64_t resident) { return loop_steady(prog, hw, resident); };
  CHECK(steady(1) == Approx(500e-9).epsilon(1e-6));
  CHECK(steady(2) == Approx(300e-9).epsilon(1e-6));
  prog.resources.warps = 8;
  CHECK(steady(1) == Approx(300e-9).epsilon(1e-6));
  prog.resources.warps = 4;
  prog.loops[0].warp_serial_sfu = false;
  CHECK(steady(1) == Approx(300e-9).epsilon(1e-6));
}

TEST_CASE("a 2-stage loop that issues its copies after its chain waits for them", "[attention][model]") {
  // A chain of one 300 ns exp action (SFU only) that takes turns with the resident tiles'. With
  // copies_after_chain at 2 stages each tile waits after its chain for the copies' round trip
  // (pipeline_late_copy_wait_ns, 957 ns) less the chain's last action, which runs while they
  // fly (here the exp: 657 ns), while the other resident tiles' chains run: the SM's iteration
  // is max(300, (300 + 657) / R), 957 ns with one, 478.5 with two, 319 with three, the chain's
  // 300 with four; at 3 stages a whole iteration covers the copies (300 ns), and without the
  // flag nothing waits.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.sfu_ops_per_s = 4e12;
  hw.pipeline_late_copy_wait_ns = 957;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.loops = {{"kv", 10, 2, ""}};
  prog.loops[0].overlap_resident = false;
  prog.loops[0].copies_after_chain = true;
  prog.actions = {{.name = "exp", .op = plan::OpKind::kExp, .sfu_ops = 300e-9 * rates.sfu_ops, .loop = "kv",
                   .dtype = DType::kFP32}};
  prog.resources.warps = 4;
  auto steady = [&](std::int64_t resident) { return loop_steady(prog, hw, resident); };
  CHECK(steady(1) == Approx(957e-9).epsilon(1e-6));
  CHECK(steady(2) == Approx(478.5e-9).epsilon(1e-6));
  CHECK(steady(3) == Approx(319e-9).epsilon(1e-6));
  CHECK(steady(4) == Approx(300e-9).epsilon(1e-6));
  prog.loops[0].stages = 3;
  CHECK(steady(1) == Approx(300e-9).epsilon(1e-6));
  prog.loops[0].stages = 2;
  prog.loops[0].copies_after_chain = false;
  CHECK(steady(1) == Approx(300e-9).epsilon(1e-6));
}

TEST_CASE("interleaved warp-group chains and a lone warp's softmax", "[attention][model]") {
  // A 128-row tile whose two consumer warp groups each run the chain on 64 rows: QK^T 400 ns and
  // PV 400 ns on the tensor cores, exp 300 ns on the SFU and 200 ns on the CUDA cores. With
  // chain_groups 2 the SM's iteration lasts one group's chain: (400 + exp + 400) / 2, where the
  // exp, run by one warp per scheduler (the groups' softmax sections take turns), lasts the
  // profile's lone_warp_softmax_sfu_multiple x its SFU time (2.9 x 300 = 870 ns) -> 835 ns;
  // unmeasured (0), its CUDA-core plus SFU time (500) -> 650 ns; with one chain, the tensor
  // cores' 800 ns bound a 12-warp tile (3 warps per scheduler: max(200, 300)) -> 1100 ns chain.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.cuda_fp32_flops_per_s = 64e12;
  hw.sfu_ops_per_s = 4e12;
  hw.tensor_core.flops_per_s[DType::kBF16] = 800e12;
  hw.lone_warp_softmax_sfu_multiple = 2.9;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.loops = {{"kv", 10, 1, ""}};
  prog.loops[0].warp_serial_sfu = true;
  prog.loops[0].chain_groups = 2;
  const double tc = 800e12 / 132;
  prog.actions = {{.name = "gemm_qk", .op = plan::OpKind::kMmaTc, .flops = 400e-9 * tc, .loop = "kv"},
                  {.name = "exp", .op = plan::OpKind::kExp, .flops = 200e-9 * rates.cuda_flops,
                   .sfu_ops = 300e-9 * rates.sfu_ops, .deps = {0}, .loop = "kv", .dtype = DType::kFP32},
                  {.name = "gemm_pv", .op = plan::OpKind::kMmaTc, .flops = 400e-9 * tc, .deps = {1}, .loop = "kv"}};
  prog.resources.warps = 12;
  auto steady = [&]() { return loop_steady(prog, hw, 1); };
  CHECK(steady() == Approx((400e-9 + 870e-9 + 400e-9) / 2).epsilon(1e-6));
  hw.lone_warp_softmax_sfu_multiple = 0;
  CHECK(steady() == Approx(800e-9).epsilon(1e-6));  // (400 + 500 + 400) / 2 = 650 < tensor 800
  prog.loops[0].chain_groups = 1;
  CHECK(steady() == Approx(1100e-9).epsilon(1e-6));
}

TEST_CASE("a grid past kScheduledTiles schedules its first tiles and spreads the rest", "[imbalance]") {
  // Causal FA2, 2000 x 32 heads x 8192 tokens, 64 query blocks a head: 4.1 M tiles. The exact
  // list schedule of every tile against the first kScheduledTiles scheduled and the rest's work
  // spread over the 264 slots: the same within 0.01%, the tail being one tile among 15 k a slot.
  auto p = kernels::parse_attention_params(
      json{{"batch", 2000}, {"heads", 32}, {"seq_q", 8192}, {"seq_kv", 8192}, {"head_dim", 128}, {"causal", true}});
  REQUIRE(p);
  const auto prog = kernels::lift_attention(*p);
  const auto* loop = prog.find_loop("kv");
  REQUIRE(loop != nullptr);
  REQUIRE(prog.grid.tiles() > 4 * model::kScheduledTiles);
  const auto dim = prog.grid.dim_index(loop->trips_dim);
  REQUIRE(dim);
  std::int64_t stride = 1;
  for (std::size_t k = *dim + 1; k < prog.grid.dims.size(); ++k) stride *= prog.grid.dims[k].extent;
  std::vector<double> real, mean;
  for (std::int64_t t = 0; t < prog.grid.tiles(); ++t) {
    const auto q = static_cast<std::size_t>((t / stride) % prog.grid.dims[*dim].extent);
    real.push_back(static_cast<double>(loop->trips[q]));
    mean.push_back(static_cast<double>(loop->trip_count));
  }
  const double exact = model::list_schedule_makespan(real, 264, false) / model::list_schedule_makespan(mean, 264, false);
  CHECK(model::tile_imbalance(prog, 264) == Approx(exact).epsilon(1e-4));
}

TEST_CASE("a persistent grid fed by a tile counter is list-scheduled", "[imbalance]") {
  // Two slots, tiles of 4, 1, 1, 1, 1 key blocks: round-robin over the slots gives 4+1+1 = 6,
  // a counter hands each next tile to the first free block, 4 (as a plain launch).
  plan::TileProgram prog;
  prog.grid.dims = {{"q_block", 5}};
  prog.loops = {{"kv", 2, 1, ""}};
  prog.loops[0].trips_dim = "q_block";
  prog.loops[0].trips = {4, 1, 1, 1, 1};
  prog.schedule.persistent = true;
  const double mean = model::list_schedule_makespan({2, 2, 2, 2, 2}, 2, true);  // 6
  CHECK(model::tile_imbalance(prog, 2) == Approx(6.0 / mean));
  prog.schedule.dynamic = true;
  CHECK(model::tile_imbalance(prog, 2) == Approx(4.0 / model::list_schedule_makespan({2, 2, 2, 2, 2}, 2, false)));
}

TEST_CASE("a persistent kernel that reloads its tile's head waits for it every round", "[attention][model]") {
  // cuDNN's consumers release Q's buffer only after a tile's loop (TileSchedule::head_per_tile):
  // 33 heads x 4 query blocks of 128 at 512 tokens are 132 tiles per batch element, one round
  // of the 132 persistent blocks each. The first round's Q load is the prologue's; every
  // further round waits one stage round trip (560 ns) plus Q's 32 KiB at the SM's fill rate
  // (198 GB/s: 165.5 ns) again, and the tile index's handoff from the counter (a block
  // reduction, 232 ns). No power limit here: one clock for all runs.
  auto loaded = hw::load_profile("h200");
  REQUIRE(loaded);
  hw::HardwareSpec hw = *loaded;
  hw.power.sustained_fraction = 1.0;
  auto extra = [&](std::int64_t batch) {
    auto p = kernels::parse_attention_params(json{{"batch", batch}, {"heads", 33}, {"seq_q", 512}, {"seq_kv", 512},
                                                  {"head_dim", 128}, {"variant", "fa3"}});
    REQUIRE(p);
    auto prog = kernels::lift_attention(*p);
    REQUIRE(prog.schedule.head_per_tile);
    const auto with = model::evaluate(prog, hw);
    prog.schedule.head_per_tile = false;
    const auto without = model::evaluate(prog, hw);
    REQUIRE(with);
    REQUIRE(without);
    return with->latency_us - without->latency_us;
  };
  const double refill_us = 0.56 + 32768 / 198e9 * 1e6 + 0.232;
  CHECK(extra(1) == Approx(0).margin(1e-9));
  CHECK(extra(2) == Approx(refill_us).epsilon(1e-6));
  CHECK(extra(3) == Approx(2 * refill_us).epsilon(1e-6));
}

TEST_CASE("Triton's attention loop charges the CUDA-core work ncu counts", "[attention]") {
  // ncu_attention_issue.csv: per 32 scores, 4.04 + 1.29 d/block_n + 0.11 * 32/block_n +
  // 0.80 d/block_m FMA/ALU warp instructions, 64 FLOP each. 128 x 64 tile, d 128, 4 warps:
  // 2 x (4.04 x 8192 + 1.29 x 16384 + 0.11 x 32 x 128 + 0.80 x 64 x 128) = 122470.4 FLOP over
  // rowmax, exp and rescale (8192 + 8192 + 16384 of it nominal, the rest in exp).
  auto p = kernels::parse_attention_params(json{{"batch", 4}, {"heads", 32}, {"seq_q", 2048}, {"seq_kv", 2048},
                                                {"head_dim", 128}, {"mma", "wgmma"}, {"block_m", 128},
                                                {"block_n", 64}, {"warps", 4}, {"stages", 3}});
  REQUIRE(p);
  const auto prog = kernels::lift_attention(*p);
  CHECK(action(prog, "exp").flops + action(prog, "rowmax").flops + action(prog, "rescale").flops ==
        Approx(122470.4));
  CHECK(action(prog, "exp").flops == Approx(122470.4 - 8192 - 8192 - 16384));
  CHECK(action(prog, "exp").sfu_ops == 8192);
  CHECK(prog.find_loop("kv")->warp_serial_sfu);
  const json j = plan::to_json(prog);
  CHECK(j["loops"][0]["warp_serial_sfu"] == true);
  auto back = plan::parse_tile_program(j);
  REQUIRE(back);
  CHECK(back->loops[0].warp_serial_sfu);
  auto lib = *p;
  lib.mma = MmaInstruction::kMmaSync;
  const auto fa2 = kernels::lift_attention(lib);
  CHECK(action(fa2, "exp").flops == 8192);
  CHECK_FALSE(fa2.find_loop("kv")->warp_serial_sfu);
  // 64 rows on 8 warps: both column groups compute every exp (XU 2.13 per score, not 1.07).
  auto split = *p;
  split.block_m = 64, split.warps = 8;
  const auto cols = kernels::lift_attention(split);
  CHECK(action(cols, "exp").sfu_ops == 2 * 64 * 64);
  CHECK(action(cols, "exp").flops + action(cols, "rowmax").flops + action(cols, "rescale").flops ==
        Approx(2 * (2 * 4.04 * 4096 + 1.29 * 8192 + 0.11 * 32 * 64 + 0.80 * 64 * 128)));
}

TEST_CASE("the fused report: SFU and CUDA-core time hidden under the tensor cores", "[report]") {
  // Per iteration: tensor cores 1.0, SFU 0.3, CUDA cores 0.1 (10 iterations of busy time).
  model::LoopAnalysis la;
  la.envelope.iterations = 10;
  la.busy[Resource::kTC] = 10.0;
  la.busy[Resource::kSfu] = 3.0;
  la.busy[Resource::kCuda] = 1.0;
  la.envelope.steady = 1.0;  // overlapped: the tensor cores never wait
  auto o = model::tc_overlap(la);
  CHECK(o.bottleneck == Resource::kTC);
  CHECK(o.tc == Approx(1.0));
  CHECK(o.sfu_hidden == Approx(1.0));
  CHECK(o.cuda_hidden == Approx(1.0));
  la.envelope.steady = 1.4;  // in sequence (FA2): idle 0.4 >= both
  o = model::tc_overlap(la);
  CHECK(o.sfu_hidden == Approx(0.0));
  CHECK(o.cuda_hidden == Approx(0.0));
  la.envelope.steady = 1.2;  // idle 0.2: a third of the SFU time ran under the tensor cores
  o = model::tc_overlap(la);
  CHECK(o.sfu_hidden == Approx(1.0 / 3.0));
  CHECK(o.cuda_hidden == Approx(0.0));
}
