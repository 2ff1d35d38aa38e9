// The GEMM template through the whole model, checked against hand calculations on an
// H200-like spec built here (so that recalibrating hw_profiles/h200.json moves no expected
// value in this file).
#include <algorithm>

#include <catch2/catch.hpp>

#include "tilesight/cache/cache_model.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/model/loop_analysis.h"
#include "tilesight/model/resource_vector.h"
#include "tilesight/plan/plan_json.h"
#include "gemm_test_spec.h"

using namespace tilesight;
using tilesight::test::gemm;
using tilesight::test::h200_like;


TEST_CASE("gemm template lifts to the tile program of its tile config", "[gemm]") {
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096));
  CHECK(plan::validate(prog).empty());
  REQUIRE(prog.grid.dims.size() == 2);
  CHECK(prog.grid.dims[0].extent == 32);  // 4096 / 128
  CHECK(prog.grid.dims[1].extent == 32);
  REQUIRE(prog.loops.size() == 1);
  CHECK(prog.loops[0].trip_count == 64);  // 4096 / 64
  CHECK(prog.loops[0].stages == 3);
  REQUIRE(prog.actions.size() == 4);
  CHECK(prog.actions[0].bytes == 16384);       // A tile 128 x 64 x 2 B
  CHECK(prog.actions[1].bytes == 16384);       // B tile 64 x 128 x 2 B
  CHECK(prog.actions[2].flops == 2097152);     // 2 x 128 x 128 x 64
  // Two warp groups split M, 64 rows each: m64n128k16 instructions, which read the A tile once
  // and the B tile once per 64-row block from shared memory: 16 KiB + 2 x 16 KiB.
  CHECK(prog.actions[2].mma_n == 128);
  CHECK(prog.actions[2].bytes == 49152);
  CHECK(prog.actions[3].bytes == 32768);       // C tile 128 x 128 x 2 B
  CHECK(prog.resources.smem_bytes == 98304);   // 3 stages x (16 KiB + 16 KiB)
  // Needed: 16384 accumulators / 256 threads = 64, + 32 for the epilogue's copy, + 40 = 136,
  // no spill. Allocated (Triton fit): 1.203 x 64 + 0.278 x 8192/256 + 0.386 x 8192/256 + 18.1
  // = 76.99 + 8.90 + 12.35 + 18.1 = 116.34 -> 116.
  CHECK(kernels::gemm_registers_needed(gemm(4096, 4096, 4096)) == 136);
  CHECK(prog.resources.registers_per_thread == 116);
  CHECK(kernels::gemm_spill_bytes_per_iteration(gemm(4096, 4096, 4096)) == 0);
  // 256 x 256 over 4 warps: 512 + 256 + 40 = 808 needed, 553 spill; each iteration stores and
  // reloads them: 2 x 4 B x 553 x 128 threads = 566,272 B.
  auto big = gemm(4096, 4096, 4096);
  big.block_m = 256, big.block_n = 256, big.warps = 4;
  CHECK(kernels::gemm_registers_per_thread(big) == 255);
  CHECK(kernels::gemm_spill_bytes_per_iteration(big) == 566272);
  // cuBLAS-style 128 x 320 with 12 warps: a producer warp group of 4 warps at 40 registers,
  // 8 consumer warps holding 40960 / 256 = 160 accumulators + 40 = 200 registers each:
  // (200 x 8 + 40 x 4) / 12 = 146.7 -> 147 per thread on average, no spill.
  auto cublas = gemm(8192, 8192, 8192);
  cublas.block_n = 320, cublas.warps = 12, cublas.stages = 2;
  CHECK(kernels::gemm_registers_needed(cublas) == 200);
  CHECK(kernels::gemm_registers_per_thread(cublas) == 147);
  CHECK(kernels::gemm_spill_bytes_per_iteration(cublas) == 0);
  // Masked edges: 3000 / 128 -> 24 tiles, 5000 / 256 -> 20.
  auto p = gemm(3000, 5000, 2048);
  p.block_n = 256;
  const auto edge = kernels::lift_gemm(p);
  CHECK(edge.grid.tiles() == 24 * 20);
}

TEST_CASE("a 128x128x64 bf16 MMA on H200 tensor cores", "[gemm][model]") {
  // Per-SM tensor-core rate: 928e12 / 132 = 7.0303e12 FLOP/s.
  // 2 x 128 x 128 x 64 = 2,097,152 FLOP -> 2097152 / 7.0303e12 = 298.30 ns.
  // Operands from SMEM, as its m64n128k16 instructions read them (A once, B once per 64-row
  // block): (16384 + 2 x 16384) B / 234.24e9 B/s = 209.84 ns.
  const auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096));
  const cache::CacheTraffic none;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  const auto u = model::resource_vector(prog.actions[2], hw, rates, none);
  CHECK(u[Resource::kTC] == Approx(298.30e-9).epsilon(1e-4));
  CHECK(u[Resource::kSmem] == Approx(209.84e-9).epsilon(1e-4));
  CHECK(u[Resource::kL2] == 0);
  // With mma.sync: 0.67 of the rate -> 298.30 / 0.67 = 445.22 ns.
  auto sync = prog.actions[2];
  sync.mma = MmaInstruction::kMmaSync;
  CHECK(model::resource_vector(sync, hw, rates, none)[Resource::kTC] == Approx(445.22e-9).epsilon(1e-4));
}

TEST_CASE("a tile load splits between L2 and DRAM by the cache model", "[gemm][model]") {
  // 132 active SMs share 9.2 TB/s of L2: 69.70 GB/s each (under the 117 GB/s per-SM cap).
  // 16384 B / 69.697e9 = 235.08 ns on L2. First-touch model for A of a 4096^3 GEMM with 32
  // N-tiles: 1/32 of the bytes come from DRAM: 512 B / (4.2e12 / 132 = 31.818e9) = 16.09 ns.
  const auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096));
  const auto traffic = cache::FirstTouchCacheModel().analyze(prog, hw);
  CHECK(traffic.dram_fraction("A") == Approx(1.0 / 32));
  const auto u = model::resource_vector(prog.actions[0], hw, model::sm_rates(hw, 132, 1.0), traffic);
  CHECK(u[Resource::kL2] == Approx(235.08e-9).epsilon(1e-4));
  CHECK(u[Resource::kDram] == Approx(16.09e-9).epsilon(1e-3));
  CHECK(u[Resource::kSmem] == Approx(16384 / 234.24e9));
  // A tail wave on 10 SMs: 9.2e12 / 10 = 920 GB/s each, capped at 117.12 GB/s per SM.
  const auto tail = model::resource_vector(prog.actions[0], hw, model::sm_rates(hw, 10, 1.0), traffic);
  CHECK(tail[Resource::kL2] == Approx(16384 / 117.12e9));
  // Requests merged before L2 take no slice bandwidth: if a quarter of A's requested bytes
  // merge, its load keeps 3/4 of the L2 time, 176.31 ns; DRAM and SMEM are unchanged.
  auto merged = traffic;
  for (auto& a : merged.accesses)
    if (a.tensor == "A") a.l2_merged_bytes = a.requested_bytes / 4;
  const auto m = model::resource_vector(prog.actions[0], hw, model::sm_rates(hw, 132, 1.0), merged);
  CHECK(m[Resource::kL2] == Approx(176.31e-9).epsilon(1e-4));
  CHECK(m[Resource::kDram] == Approx(u[Resource::kDram]));
  CHECK(m[Resource::kSmem] == Approx(u[Resource::kSmem]));
  // Where a merge saves only part of a request's path time (l2.merge_saving, the H200's 0.75:
  // l2_share_lookups.csv), the quarter merged saves 0.75 x 1/4 of it: 235.08 x (1 - 0.1875)
  // = 191.00 ns.
  auto partly = hw;
  partly.l2.merge_saving = 0.75;
  const auto p = model::resource_vector(prog.actions[0], partly, model::sm_rates(partly, 132, 1.0), merged);
  CHECK(p[Resource::kL2] == Approx(191.00e-9).epsilon(1e-4));
}

TEST_CASE("first-touch cache model of a 4096^3 GEMM", "[gemm][cache]") {
  // A: 32 x 32 tiles x 64 k-steps x 16384 B = 1,073,741,824 B requested; 4096 x 4096 x 2 B =
  // 33,554,432 B unique (first touch); the same for B. C: 1024 tiles x 32768 B = 33,554,432 B
  // written, counted as L2 hits (write-back).
  // Load hit rate: 1 - 2 x 33554432 / (2 x 1073741824) = 0.96875.
  // All lookups: (2 x 1040187392 + 33554432) / (2 x 1073741824 + 33554432) = 0.969231.
  const auto hw = h200_like();
  const auto traffic = cache::FirstTouchCacheModel().analyze(kernels::lift_gemm(gemm(4096, 4096, 4096)), hw);
  REQUIRE(traffic.accesses.size() == 3);
  CHECK(traffic.accesses[0].requested_bytes == Approx(1073741824.0));
  CHECK(traffic.accesses[0].dram_bytes == Approx(33554432.0));
  CHECK(traffic.l2_load_hit_rate() == Approx(0.96875));
  CHECK(traffic.l2_hit_rate() == Approx(0.969231).epsilon(1e-5));
  CHECK(traffic.dram_read_bytes() == Approx(67108864.0));
  CHECK(traffic.dram_write_bytes() == Approx(33554432.0));
}

TEST_CASE("K-loop envelope of a GEMM wave by hand", "[gemm][model]") {
  // One SM of a full wave, 2 resident blocks (98304 + 1024 B of SMEM each: floor(233472 /
  // 99328) = 2), 3 stages: N = 64 x 2 = 128 iterations, d = 3 x 2 - 1 = 5 (eq. 3).
  // Per iteration (one block's): TC 298.30 ns; SMEM 2 x 69.94 (loads) + 139.89 (mma) =
  // 279.78 ns; L2 2 x 235.08 = 470.16 ns; DRAM 16.09 + 16.09 = 32.18 ns.
  // Throughput (eq. 4) = 470.16 ns (L2). Latency floor: loads wait 550/32 + 260 x 31/32 =
  // 269.06 ns, with 2 x (3 - 1) = 4 iterations of loads in flight: 67.27 ns. Memory side:
  // sqrt(470.16^2 + 67.27^2) = 474.94 ns > TC 298.30 ns -> T_steady = 474.94 ns.
  // T_pro = 269.06 + 470.16 + (5 - 1) x 474.94 = 2638.96 ns; T_epi = one MMA = 298.30 ns;
  // T = 2638.96 + (128 - 5) x 474.94 + 298.30 = 61354.5 ns (eq. 2).
  const auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096));
  const auto traffic = cache::FirstTouchCacheModel().analyze(prog, hw);
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = model::sm_rates(hw, 132, 1.0)};
  const auto la = model::analyze_loop(prog.loops[0], 2, ctx);
  CHECK(la.envelope.iterations == 128);
  CHECK(la.envelope.depth == 5);
  CHECK(la.throughput == Approx(470.16e-9).epsilon(1e-4));
  CHECK(la.latency_floor == Approx(67.27e-9).epsilon(1e-3));
  CHECK(la.limited_by == "throughput");
  CHECK(la.envelope.steady == Approx(474.94e-9).epsilon(1e-4));
  CHECK(la.envelope.prologue == Approx(2638.96e-9).epsilon(1e-4));
  CHECK(la.envelope.epilogue == Approx(298.30e-9).epsilon(1e-4));
  CHECK(la.envelope.total() == Approx(61354.5e-9).epsilon(1e-4));
}

TEST_CASE("with two stages and one block the K loop is bound by memory latency", "[gemm][model]") {
  // 256x256x64 tiles, 2 stages, 8 warps: SMEM 2 x (16384 + 16384) x 2 B = 131072 B -> 1
  // resident block. Loads in flight: 1 x (2 - 1) = 1, so each iteration waits a whole DRAM/L2
  // latency: 550/16 + 260 x 15/16 = 278.125 ns (B is reused by 16 M-tiles, A by 16 N-tiles).
  // Throughput: L2 carries 65536 B / 69.697e9 = 940.3 ns > 278 ns, so throughput still binds;
  // at 64x64x32 tiles, L2 moves 8192 B = 117.5 ns and TC 262144 / 7.0303e12 = 37.3 ns: the
  // latency floor (from 4096/64 = 64 tiles each way: 550/64 + 260 x 63/64 = 264.53 ns) binds:
  // steady = sqrt(117.54^2 + 264.53^2) = 289.47 ns.
  const auto hw = h200_like();
  auto p = gemm(4096, 4096, 4096);
  p.block_m = 64, p.block_n = 64, p.block_k = 32, p.stages = 2, p.warps = 4;
  const auto prog = kernels::lift_gemm(p);
  const auto traffic = cache::FirstTouchCacheModel().analyze(prog, hw);
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = model::sm_rates(hw, 132, 1.0)};
  const auto la = model::analyze_loop(prog.loops[0], 1, ctx);
  CHECK(la.latency_floor == Approx(264.53e-9).epsilon(1e-4));
  CHECK(la.limited_by == "memory latency");
  CHECK(la.envelope.steady == Approx(289.47e-9).epsilon(1e-4));
}

TEST_CASE("a compiler-pipelined K loop pays the measured round trip per stage plus the fill", "[gemm][model]") {
  // hw_profiles/calibrate/pipeline_iteration.py: T = round_trip / (stages - 1) + resident x
  // stage bytes / fill rate. 64x64x32, 1 block, 2 stages: the loads wait 550/64 + 260 x 63/64 =
  // 264.53 ns, 4.53 ns more than an L2 hit, so the round trip is 654 + 4.53 = 658.53 ns;
  // the stage moves (64x32 + 32x64) x 2 = 8192 B, 41.37 ns at 198 GB/s. Steady = 658.53 +
  // 41.37 = 699.90 ns (the L2 lane's 117.54 ns and TC's 37.3 ns are below it).
  auto hw = h200_like();
  hw.pipeline_round_trip_ns = 654;
  hw.smem_fill_bandwidth_per_sm = 198e9;
  auto p = gemm(4096, 4096, 4096);
  p.block_m = 64, p.block_n = 64, p.block_k = 32, p.stages = 2, p.warps = 4;
  const auto prog = kernels::lift_gemm(p);
  const auto traffic = cache::FirstTouchCacheModel().analyze(prog, hw);
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = model::sm_rates(hw, 132, 1.0)};
  const auto one = model::analyze_loop(prog.loops[0], 1, ctx);
  CHECK(one.latency_floor == Approx(658.53e-9).epsilon(1e-4));
  CHECK(one.envelope.steady == Approx(699.90e-9).epsilon(1e-4));
  CHECK(one.limited_by == "memory latency");
  // 3 stages, 2 resident blocks: 2 x (3 - 1) = 4 stages in flight share the round trip,
  // 658.53 / 4 = 164.63 ns, and the SM fills each block's 8192 B: 164.63 + 41.37 = 206.0 ns
  // per block iteration (the microbenchmark: 0.386 us per block iteration = 0.193 per SM's).
  p.stages = 3;
  const auto prog3 = kernels::lift_gemm(p);
  model::LoopContext ctx3{.program = prog3, .hw = hw, .traffic = traffic, .rates = model::sm_rates(hw, 132, 1.0)};
  const auto two = model::analyze_loop(prog3.loops[0], 2, ctx3);
  CHECK(two.latency_floor == Approx(164.63e-9).epsilon(1e-3));
  CHECK(two.envelope.steady == Approx(206.0e-9).epsilon(1e-3));
}

TEST_CASE("a row shorter than the tile is asked for again, filled at half the rate", "[gemm][model]") {
  // N = 16 under BLOCK_N 64: each 32-byte row of B comes back four times in the tile (Triton
  // wraps its columns), each copy a run of 32 bytes; rows of 16 or more columns of a tile no
  // wider than the tensor are long runs.
  auto p = gemm(4096, 16, 4096);
  p.block_m = 64, p.block_n = 64, p.block_k = 32, p.stages = 2, p.warps = 4;
  auto prog = kernels::lift_gemm(p);
  CHECK(prog.actions[1].dram_run_bytes == 32);
  auto narrow = p;
  narrow.block_n = 16;
  CHECK(kernels::lift_gemm(narrow).actions[1].dram_run_bytes == 0);
  // Runs under half a line copy at half the rate (l2_requests.csv: 33-37 GB/s an SM against
  // 65-76): the stage's 4096 bytes of B fill as 8192, 4096 / 198 GB/s = 20.69 ns more an
  // iteration than the same loop with long runs.
  auto hw = h200_like();
  hw.pipeline_round_trip_ns = 654;
  hw.smem_fill_bandwidth_per_sm = 198e9;
  const auto traffic = cache::FirstTouchCacheModel().analyze(prog, hw);
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = model::sm_rates(hw, 132, 1.0)};
  const auto wrapped = model::analyze_loop(prog.loops[0], 1, ctx);
  auto long_runs = prog;
  long_runs.actions[1].dram_run_bytes = 0;
  model::LoopContext ctx_long{.program = long_runs, .hw = hw, .traffic = traffic, .rates = model::sm_rates(hw, 132, 1.0)};
  const auto plain = model::analyze_loop(long_runs.loops[0], 1, ctx_long);
  CHECK(wrapped.envelope.steady - plain.envelope.steady == Approx(20.69e-9).epsilon(1e-3));
}

TEST_CASE("a K-contiguous operand read 64 bytes a row takes longer of the DRAM", "[gemm][model]") {
  // Row-major A (M x K) with BLOCK_K 32 bf16: each row gives 64 contiguous bytes an iteration,
  // half an L2 line; B row-major (K x N) is N-contiguous: the tiles side by side cover its
  // rows (long runs). Stored transposed, A is M-contiguous and B K-contiguous.
  auto p = gemm(8192, 64, 4096);
  p.block_m = 64, p.block_n = 64, p.block_k = 32;
  auto prog = kernels::lift_gemm(p);
  CHECK(prog.actions[0].dram_run_bytes == 64);
  CHECK(prog.actions[1].dram_run_bytes == 0);
  p.layout = "tt";
  prog = kernels::lift_gemm(p);
  CHECK(prog.actions[0].dram_run_bytes == 0);
  CHECK(prog.actions[1].dram_run_bytes == 64);
  // A 4096-byte load all from DRAM at the SM's share of 132 x 33 GB/s: 124.1 ns; in 64-byte
  // runs at an efficiency of 0.687: 180.7 ns; in 128-byte runs (BLOCK_K 64) unchanged.
  auto hw = h200_like();
  hw.dram_bandwidth = 132 * 33e9;
  hw.dram_half_line_efficiency = 0.687;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  cache::CacheTraffic traffic;
  traffic.accesses = {{.tensor = "A", .requested_bytes = 4096, .dram_bytes = 4096}};
  plan::TileAction load{.name = "load_a", .op = plan::OpKind::kLoad, .operands = {"A"}, .bytes = 4096,
                        .dram_run_bytes = 64, .result_level = plan::Placement::kSmem};
  CHECK(model::resource_vector(load, hw, rates, traffic)[Resource::kDram] == Approx(180.66e-9).epsilon(1e-3));
  load.dram_run_bytes = 128;
  CHECK(model::resource_vector(load, hw, rates, traffic)[Resource::kDram] == Approx(124.12e-9).epsilon(1e-3));
}

TEST_CASE("waves: a tail wave gets its own active-SM bandwidth share", "[gemm][model]") {
  // 3000 x 5000 with 128 x 256 tiles: 24 x 20 = 480 blocks. SMEM 2 x (128x64 + 64x256) x 2 B
  // = 98304 B would allow 2 per SM, but registers allow 1: 128 x 256 fp32 accumulators over
  // 256 threads = 128 + 40 = 168 per thread -> 168 x 32 = 5376 per warp x 8 warps = 43008;
  // 65536 / 43008 = 1. So 132 blocks per wave: 3 full waves (396) + a tail of 84 blocks on 84
  // SMs, one each.
  const auto hw = h200_like();
  auto p = gemm(3000, 5000, 2048);
  p.block_n = 256, p.stages = 2;
  const auto pred = model::evaluate(kernels::lift_gemm(p), hw);
  REQUIRE(pred.ok());
  CHECK(pred->blocks == 480);
  CHECK(pred->waves == 4);
  CHECK(pred->resident_blocks_per_sm == 1);
  CHECK(pred->occupancy_limiter == "registers");
  REQUIRE(pred->wave_reports.size() == 2);
  CHECK(pred->wave_reports[0].count == 3);
  CHECK(pred->wave_reports[1].kind == "tail");
  CHECK(pred->wave_reports[1].active_sms == 84);
  CHECK(pred->wave_reports[1].resident == 1);
  // The tail's 84 SMs each get 9.2e12 / 84 = 109.5 GB/s of L2 against 69.7 GB/s in a full
  // wave, so a tail block runs faster than a full-wave block.
  CHECK(pred->wave_reports[1].time_us < pred->wave_reports[0].time_us);
  // latency = launch + 3 full waves + the tail.
  CHECK(pred->latency_us == Approx(4.8 + 3 * pred->wave_reports[0].time_us + pred->wave_reports[1].time_us));
  for (double u : pred->utilization) CHECK((u >= 0 && u <= 1));
}

TEST_CASE("the power-limited clock slows long tensor-core-bound kernels", "[gemm][model]") {
  auto hw = h200_like();
  auto p = gemm(8192, 8192, 8192);
  p.block_n = 256, p.warps = 8;
  const auto prog = kernels::lift_gemm(p);
  const auto fast = model::evaluate(prog, hw);
  hw.power = {.short_kernel_us = 50, .long_kernel_us = 2000, .sustained_fraction = 0.84};
  const auto slow = model::evaluate(prog, hw);
  REQUIRE(fast.ok());
  REQUIRE(slow.ok());
  CHECK(fast->clock_factor == 1.0);
  CHECK(slow->clock_factor < 1.0);
  CHECK(slow->latency_us > fast->latency_us);
}

TEST_CASE("evaluate rejects a block that cannot fit, naming every limit", "[gemm][model]") {
  auto p = gemm(4096, 4096, 4096);
  p.block_m = 256, p.block_n = 256, p.block_k = 128, p.stages = 5, p.warps = 40;
  const auto pred = model::evaluate(kernels::lift_gemm(p), h200_like());
  REQUIRE_FALSE(pred.ok());
  CHECK(pred.errors().size() == 3);  // shared memory, registers, threads
}

TEST_CASE("split-K lifts to split blocks, fp32 partials and a reduction", "[gemm]") {
  // 1 x 4096 x 4096 split 2 ways with 8 x 64 x 64 tiles: grid split 2 x m 1 x n 64; each
  // block walks 4096 / 64 / 2 = 32 K-steps; partial tile 8 x 64 x 4 B = 2048 B stored, read
  // back by the reduction, which writes 8 x 64 x 2 B / 2 = 512 B of C per split block.
  auto p = gemm(1, 4096, 4096);
  p.block_m = 8, p.block_n = 64, p.block_k = 64, p.split_k = 2;
  const auto prog = kernels::lift_gemm(p);
  CHECK(plan::validate(prog).empty());
  REQUIRE(prog.grid.dims.size() == 3);
  CHECK(prog.grid.dims[0].name == "split");
  CHECK(prog.grid.tiles() == 2 * 1 * 64);
  CHECK(prog.loops[0].trip_count == 32);
  CHECK(prog.launches == 2);
  REQUIRE(prog.actions.size() == 6);
  CHECK(prog.actions[3].bytes == 2048);  // store_c, fp32 partial
  CHECK(prog.actions[4].bytes == 2048);  // reduce_partials
  CHECK(prog.actions[5].bytes == 512);   // store_out
  // The reduction kernel's start-up is added to the launch overhead: 3.5 + 0.68 us.
  auto hw = h200_like();
  hw.launch_overhead_us = 3.5, hw.dependent_launch_us = 0.68;
  const auto pred = model::evaluate(prog, hw);
  REQUIRE(pred.ok());
  CHECK(pred->launch_overhead_us == Approx(4.18));
}

TEST_CASE("a cluster multicast divides a load's L2 traffic, not its SMEM fill", "[gemm][model]") {
  // cluster_n = 2: the A tile (16384 B) is fetched once for the 2 blocks along N:
  // 8192 B / 69.697e9 B/s = 117.54 ns of L2 per block; SMEM still takes all 16384 B.
  const auto hw = h200_like();
  auto p = gemm(4096, 4096, 4096);
  p.cluster_n = 2;
  const auto prog = kernels::lift_gemm(p);
  CHECK(prog.actions[0].multicast == 2);
  CHECK(prog.actions[1].multicast == 1);
  const auto traffic = cache::FirstTouchCacheModel().analyze(prog, hw);
  const auto u = model::resource_vector(prog.actions[0], hw, model::sm_rates(hw, 132, 1.0), traffic);
  CHECK(u[Resource::kL2] == Approx(117.54e-9).epsilon(1e-4));
  CHECK(u[Resource::kSmem] == Approx(16384 / 234.24e9));
}

TEST_CASE("a persistent kernel pays one fill and one drain", "[gemm][model]") {
  // 1536 x 2816 with 128 x 128 tiles: 12 x 22 = 264 tiles; 6 stages x 32 KiB = 192 KiB of
  // SMEM -> 1 block per SM -> exactly 2 full waves of 132. A plain launch pays
  // 2 x (T_pro + T_steady + T_epi); a persistent ping-pong kernel T_pro + 2 T_steady + T_epi
  // (its tile epilogues hide under the next tile's main loop): one wave's T_pro + T_epi less.
  // (First-touch cache model: the same traffic for both launch orders.)
  const auto hw = h200_like();
  const cache::FirstTouchCacheModel first_touch;
  const model::EvaluateOptions options{.cache_model = &first_touch, .timeline = false};
  auto p = gemm(1536, 2816, 4096);
  p.stages = 6;
  const auto plain = model::evaluate(kernels::lift_gemm(p), hw, options);
  p.persistent = true, p.schedule = "pingpong";
  const auto pingpong = model::evaluate(kernels::lift_gemm(p), hw, options);
  p.schedule = "cooperative";
  const auto coop = model::evaluate(kernels::lift_gemm(p), hw, options);
  REQUIRE(plain.ok());
  REQUIRE(pingpong.ok());
  REQUIRE(coop.ok());
  REQUIRE(plain->wave_reports.size() == 1);
  CHECK(plain->wave_reports[0].count == 2);
  const auto& wave = plain->wave_reports[0];
  CHECK(plain->latency_us - pingpong->latency_us == Approx(wave.prologue_us + wave.epilogue_us));
  // Cooperative consumers store each tile themselves: the first round's store stays exposed.
  CHECK(coop->latency_us > pingpong->latency_us);
  CHECK(coop->latency_us < plain->latency_us);
}

TEST_CASE("wgmma instruction width follows Triton's warp-group split", "[gemm]") {
  // hw_profiles/calibrate/h200/mma_rate.csv's SASS: 64x64 tiles of 8 warps split N (m64n32k16),
  // 128x64 ones split M (m64n64k16), 64x256 of 4 warps keep the whole tile (m64n256k16).
  auto tile = [](std::int64_t bm, std::int64_t bn, std::int64_t warps) {
    auto p = gemm(4096, 4096, 4096);
    p.block_m = bm, p.block_n = bn, p.block_k = 32, p.warps = warps;
    return kernels::lift_gemm(p).actions[2];
  };
  CHECK(tile(64, 64, 8).mma_n == 32);
  CHECK(tile(64, 64, 8).bytes == 2 * 4096 + 4096);  // A read by both N halves, B once
  CHECK(tile(128, 64, 8).mma_n == 64);
  CHECK(tile(64, 256, 4).mma_n == 256);
  CHECK(tile(64, 128, 8).mma_n == 64);
}

TEST_CASE("a pipelined loop's prologue waits for its prefetched stages; later waves hide it beside other tiles", "[gemm][model]") {
  // cta_phases.py: each tile's loop takes pipeline_prologue_ns more than the round trip and
  // its first stage, plus the stages - 1 prefetched stages of the SM's resident tiles at
  // smem_fill_bandwidth_per_sm. 128x128x64 at 3 stages: (128 + 128) x 64 x 2 = 32 KiB a stage,
  // 2 prefetched: 400 ns + 65536 / 200e9 s = 0.7277 us a resident tile.
  auto hw = test::h200_like();
  hw.pipeline_round_trip_ns = 600;
  hw.smem_fill_bandwidth_per_sm = 200e9;
  auto with = hw;
  with.pipeline_prologue_ns = 400;
  auto extra = [&](const kernels::GemmParams& p) {
    const auto prog = kernels::lift_gemm(p);
    const auto a = model::evaluate(prog, with), b = model::evaluate(prog, hw);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(a->waves == b->waves);
    return std::pair{a->latency_us - b->latency_us, *a};
  };
  const double one_tile_us = 0.4 + 65536 / 200e9 * 1e6;
  CHECK(one_tile_us == Approx(0.7277).epsilon(1e-3));
  // One tile an SM (a 200 KiB block): every wave waits, the SM has nothing else to run.
  auto big = test::gemm(4096, 4096, 4096);
  big.stages = 6;  // 6 x 32 KiB = 192 KiB
  const auto [big_extra, big_pred] = extra(big);
  REQUIRE(big_pred.resident_blocks_per_sm == 1);
  REQUIRE(big_pred.waves == 8);  // 1024 tiles over 132 SMs
  CHECK(big_extra == Approx(8 * (0.4 + 5 * 32768 / 200e9 * 1e6)).epsilon(1e-6));
  // Two tiles an SM: the first wave waits for both tiles' stages, the later ones start beside
  // a tile in its loop and hide it.
  const auto [two_extra, two_pred] = extra(test::gemm(4096, 4096, 4096));
  REQUIRE(two_pred.resident_blocks_per_sm == 2);
  REQUIRE(two_pred.waves == 4);
  CHECK(two_extra == Approx(0.4 + 2 * 65536 / 200e9 * 1e6).epsilon(1e-6));
}
