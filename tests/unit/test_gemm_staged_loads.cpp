// GEMM operands whose rows cannot be proved 16-byte aligned: loaded element by element
// through registers, not prefetched by the software pipeline; their lda/ldb/spills inputs.
// Hand calculations on the H200-like spec of gemm_test_spec.h.
#include <algorithm>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gemm_test_spec.h"
#include "tilesight/cache/cache_model.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/model/l1_carveout.h"
#include "tilesight/model/loop_analysis.h"
#include "tilesight/model/resource_vector.h"

using namespace tilesight;
using tilesight::test::gemm;
using tilesight::test::h200_like;

TEST_CASE("an operand whose rows are not provably 16-byte aligned loads through registers", "[gemm][model]") {
  // Triton: 3000 x 5000 x 2048 with B row-major (K x N): N = 5000 is not a multiple of 16, so
  // B is staged element-wise through registers; A's rows (K = 2048) are aligned.
  auto p = gemm(3000, 5000, 2048);
  p.block_m = 128, p.block_n = 64, p.block_k = 32, p.stages = 3, p.warps = 4;
  CHECK_FALSE(kernels::gemm_a_via_registers(p));
  CHECK(kernels::gemm_b_via_registers(p));
  // Shared memory: 3 stages x A (128 x 32 x 2 B = 8192) + one B buffer (32 x 64 x 2 B = 4096)
  // = 28,672 B, what Triton recorded for this kernel.
  CHECK(kernels::gemm_smem_bytes(p) == 28672);
  // Registers: 8192 / 128 = 64 accumulators + 32 + 40 + B's 2048 elements / 128 threads = 16:
  // 152 (Triton recorded 151).
  CHECK(kernels::gemm_registers_needed(p) == 152);
  // What Triton allocates without a recorded count: the aligned fit 1.203 x 64 + 0.278 x 32
  // + 0.386 x 16 + 18.1 = 110.17 -> 110, plus 1.6 per staged element and thread (the fit over
  // triton_registers_unaligned.csv): ceil(1.6 x 16) = 26: 136 (Triton recorded 151).
  CHECK(kernels::gemm_registers_per_thread(p) == 136);
  const auto prog = kernels::lift_gemm(p);
  CHECK_FALSE(prog.actions[0].via_registers);
  CHECK(prog.actions[1].via_registers);
  // The load/store path: B's 2048 elements take 64 warp instructions each of ld.global and
  // st.shared, each touching 512 B (four 128-B wavefronts): 2 x 64 x 512 = 65,536 B at
  // 234.24 GB/s = 279.78 ns, where a vectorised copy of its 4096 B would take 17.49 ns.
  const auto hw = h200_like();
  const cache::CacheTraffic none;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  CHECK(model::resource_vector(prog.actions[1], hw, rates, none)[Resource::kSmem] ==
        Approx(279.78e-9).epsilon(1e-4));
  CHECK(model::resource_vector(prog.actions[0], hw, rates, none)[Resource::kSmem] ==
        Approx(8192 / 234.24e9));
  // With the path measured (l1_sectors.cu: 3.48 sectors and at least 3.18 cycles per warp
  // load and its st.shared, both timed as pairs): B is row-major, contiguous along N, so each
  // load touches 32 sectors (ncu on this kernel): max(3.18, 32 / 3.48 = 9.195) cycles x 64
  // instructions x 128 B = 75,326 B. Those lookups run beside the iteration's other
  // shared-memory traffic: A's copy (8192 B) and the MMA's operand reads (one 64-wide N slice:
  // A once, 8192 B; two 64-row slices: B twice, 8192 B), 24,576 B, so the load adds
  // 75,326 - 24,576 = 50,750 B at 234.24 GB/s = 216.66 ns.
  CHECK(prog.actions[1].lane_sectors == 32);
  CHECK(prog.actions[2].bytes == 16384);
  CHECK(prog.actions[1].l1_beside_bytes == 8192 + 16384);
  auto measured = hw;
  measured.l1_sectors_per_clk = 3.48, measured.lsu_instruction_cycles = 3.18;
  CHECK(model::resource_vector(prog.actions[1], measured, rates, none)[Resource::kSmem] ==
        Approx(216.66e-9).epsilon(1e-4));
  // Its 32 lanes read 32 rows, 32 cache lines; with the line rate measured (l1_rows.cu: 32
  // lines in 15.5 cycles, 2.06 per clock, the loads alone) that binds: 32 / 2.06 = 15.534 + 1
  // for the st.shared = 16.534 cycles x 64 x 128 B = 135,448 B, less the 24,576 B beside it:
  // 110,872 B at 234.24 GB/s = 473.33 ns.
  CHECK(prog.actions[1].lane_lines == 32);
  measured.l1_lines_per_clk = 2.06;
  CHECK(model::resource_vector(prog.actions[1], measured, rates, none)[Resource::kSmem] ==
        Approx(473.33e-9).epsilon(1e-4));
  // Stored contiguous along K (A row-major with K = 3001), 2.45 sectors: the 3.18-cycle floor
  // binds: 128 x 32 = 4096 elements, 128 instructions x 3.18 cycles x 128 B = 52,101 B.
  auto odd_k = p;
  odd_k.K = 3001;
  const auto prog_k = kernels::lift_gemm(odd_k);
  REQUIRE(prog_k.actions[0].via_registers);
  CHECK(prog_k.actions[0].lane_sectors == Approx(2.45));
  CHECK(prog_k.actions[0].lane_lines == Approx(1.5));  // 1.5 / 2.06 < 3.18: the floor still binds
  CHECK(model::resource_vector(prog_k.actions[0], measured, rates, none)[Resource::kSmem] ==
        Approx(52101.12 / 234.24e9).epsilon(1e-4));
  // cuBLAS's TMA kernels need only 16-byte aligned rows: 5000 x 2 B = 10,000 B is.
  auto tma = p;
  tma.warps = 12, tma.persistent = true;
  CHECK_FALSE(kernels::gemm_b_via_registers(tma));
  tma.N = 5001;
  CHECK(kernels::gemm_b_via_registers(tma));
}

TEST_CASE("a load staged through registers waits the loop's round trip every iteration", "[gemm][model]") {
  // B is a view with row stride 4104 (not a multiple of 16 elements): Triton loads it element
  // by element through registers, single-buffered, not prefetched (loop_variants.csv's b_unal
  // rows). Its lanes stay contiguous (N = 4096 is a multiple of 16). The first-touch model
  // gives B a DRAM share of 1/32 (32 M tiles reuse it): 550/32 + 260 x 31/32 = 269.06 ns, 9.06
  // ns over an L2 hit, so the load waits 654 + 9.06 = 663.06 ns on the chain; A keeps its 3
  // prefetched stages.
  auto hw = h200_like();
  hw.pipeline_round_trip_ns = 654;
  hw.smem_fill_bandwidth_per_sm = 198e9;
  auto p = gemm(4096, 4096, 4096);
  p.block_m = 128, p.block_n = 64, p.block_k = 32, p.stages = 3, p.warps = 4;
  p.ldb = 4104;
  REQUIRE(kernels::gemm_b_via_registers(p));
  REQUIRE_FALSE(kernels::gemm_a_via_registers(p));
  CHECK(kernels::gemm_smem_bytes(p) == (3 * 128 * 32 + 32 * 64) * 2);
  const auto prog = kernels::lift_gemm(p);
  const auto traffic = cache::FirstTouchCacheModel().analyze(prog, hw);
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = model::sm_rates(hw, 132, 1.0)};
  const auto loop = model::analyze_loop(prog.loops[0], 1, ctx);
  const auto& items = loop.items;
  const auto b = std::find_if(items.begin(), items.end(), [](const auto& it) { return it.name == "load_b"; });
  REQUIRE(b != items.end());
  CHECK_FALSE(b->prefetched);
  CHECK(b->latency == Approx(663.06e-9).epsilon(1e-4));
  CHECK(loop.envelope.steady > 663.06e-9);
}

TEST_CASE("lda, ldb and spills are read and checked", "[gemm][input]") {
  auto ok = kernels::parse_gemm_params(nlohmann::json::parse(
      R"({"M": 256, "N": 256, "K": 3000, "lda": 3008, "ldb": 264, "spills": 12})"));
  REQUIRE(ok.ok());
  CHECK(kernels::gemm_lda(ok.value()) == 3008);
  CHECK_FALSE(kernels::gemm_a_via_registers(ok.value()));  // 3008 = 188 x 16
  CHECK(kernels::gemm_b_via_registers(ok.value()));        // 264 = 16.5 x 16
  auto bad = kernels::parse_gemm_params(nlohmann::json::parse(R"({"M": 64, "N": 64, "K": 64, "lda": 32, "ldb": 48})"));
  REQUIRE_FALSE(bad.ok());
  REQUIRE(bad.errors().size() == 2);
  CHECK(bad.errors()[0].path == "params.lda");
  CHECK(bad.errors()[0].message == "must be at least K (64) for layout \"nn\", got 32");
  CHECK(bad.errors()[1].path == "params.ldb");
  // The compiler's spill count sets the local traffic where the operands come by cp.async:
  // 2 x 4 bytes x 196 slots x 128 threads = 200704 bytes per iteration (ncu: 203 KB).
  auto p = gemm(4096, 4096, 4096);
  p.block_m = 128, p.block_n = 256, p.block_k = 64, p.stages = 4, p.warps = 4;
  p.spills = 196;
  CHECK(kernels::gemm_spill_bytes_per_iteration(p) == Approx(200704.0));
}

TEST_CASE("spill reloads on the chain of a loop that stages operands through registers", "[gemm][model]") {
  // 2048 x 2040 x 2040: lda = K = 2040 and ldb = N = 2040 are not multiples of 16, so A and B
  // are both staged (Triton recorded 255 registers and 432 spill slots for 128x256x64 at 3
  // stages, 4 warps: hw_profiles/calibrate/h200/spill_sass_regs.csv).
  auto p = gemm(2048, 2040, 2040);
  p.block_m = 128, p.block_n = 256, p.block_k = 64, p.stages = 3, p.warps = 4;
  p.registers = 255, p.spills = 432;
  REQUIRE(kernels::gemm_a_via_registers(p));
  REQUIRE(kernels::gemm_b_via_registers(p));
  // 32768 / 128 = 256 accumulators: with the base of 40 past 255 on their own, so the
  // compiler splits the MMAs and 0.42 of them stay live, int(107.52) = 107; staged elements
  // (128 x 64 + 64 x 256) / 128 = 192: 107 + 40 + 192 - 255 = 84 reloads on the chain.
  CHECK(kernels::lift_gemm(p).actions[2].local_reloads == 84);
  // 128x128x64 on 8 warps: 64 accumulators (no overflow), (8192 + 8192) / 256 = 64 staged:
  // 64 + 40 + 64 = 168 registers, none past 255.
  p.block_n = 128, p.warps = 8;
  CHECK(kernels::lift_gemm(p).actions[2].local_reloads == 0);
  // 64x128x128 on 4 warps: 64 accumulators + 40 + (8192 + 16384) / 128 = 192 -> 296 registers,
  // 0.7 reloads a register past 222: 0.7 x 74 = 51.8 (its SASS, spill_sass.csv: 71.2 waits).
  p.block_m = 64, p.block_k = 128, p.warps = 4;
  CHECK(kernels::lift_gemm(p).actions[2].local_reloads == Approx(51.8));
  // 256x64x32 on 4 warps: 128 + 40 + (8192 + 2048) / 128 = 80 -> 248 registers, under 255 but
  // past 222: 0.7 x 26 = 18.2 (its SASS at 4 stages: 26.7 waits; none counted from 255).
  p.block_m = 256, p.block_n = 64, p.block_k = 32;
  CHECK(kernels::lift_gemm(p).actions[2].local_reloads == Approx(18.2));
  // Compiled without spills: none.
  p.spills = 0;
  CHECK(kernels::lift_gemm(p).actions[2].local_reloads == 0);
}

TEST_CASE("a loop that stages A alone reloads every spill slot, in the groups its SASS waits on", "[gemm][model]") {
  // 3500 x 6000 x 2500: lda = K = 2500 is not a multiple of 16, ldb = N = 6000 is, so A alone is
  // staged. 128x128x64 at 5 stages on 4 warps, 255 registers and 30 spill slots
  // (triton_gemm_unaligned_heldout.csv; ncu_unaligned_facts.csv: 29 local loads per warp and
  // iteration). Waits 9.31 + 0.227 x 30 = 16.12 (spill_sass_a_only.csv's least squares), each
  // 1.5 L2 round trips: 24.18 on the chain. The register rule gave 0.7 x (128 + 40 + 64 - 222) = 7.
  auto p = gemm(3500, 6000, 2500);
  p.block_m = 128, p.block_n = 128, p.block_k = 64, p.stages = 5, p.warps = 4;
  p.registers = 255, p.spills = 30;
  REQUIRE(kernels::gemm_a_via_registers(p));
  REQUIRE_FALSE(kernels::gemm_b_via_registers(p));
  CHECK(kernels::lift_gemm(p).actions[2].local_reloads == Approx(24.18));
  // The same tile with B staged as well (N = 5400) keeps the register rule: 128 accumulators +
  // 40 + (8192 + 8192) / 128 staged = 296, 0.7 x (296 - 222) = 51.8.
  auto both = gemm(3500, 5400, 2500);
  both.block_m = 128, both.block_n = 128, both.block_k = 64, both.stages = 5, both.warps = 4;
  both.registers = 255, both.spills = 30;
  REQUIRE(kernels::gemm_b_via_registers(both));
  CHECK(kernels::lift_gemm(both).actions[2].local_reloads == Approx(0.7 * (128 + 40 + 64 + 64 - 222)));
  // Accumulators past the registers on their own (256x128 on 4 warps: 256 a thread) keep the
  // overflow rule whatever is staged: 0.42 x 256 = 107 live + 40 + 128 staged - 255 = 20.
  p.block_m = 256, p.spills = 306;
  CHECK(kernels::lift_gemm(p).actions[2].local_reloads == 20);
}

TEST_CASE("a staged tile's L1 misses set its pace once the resident tiles outgrow L1", "[gemm][model]") {
  // ncu_staged_facts.csv, case 1: 3000 x 5000 x 2048, 64 x 64 x 128 tiles, 5 stages, 8 warps,
  // two CTAs an SM; B's element-wise loads hit L1 65% of the time and the kernel takes 1.8 ms
  // where 2 stages (87%) take 1.05 ms.
  auto p = gemm(3000, 5000, 2048);
  p.block_m = 64, p.block_n = 64, p.block_k = 128, p.stages = 5, p.warps = 8;
  const auto prog = kernels::lift_gemm(p);
  const auto& b = prog.actions[1];
  REQUIRE(b.via_registers);
  // B's 128 rows each hold a run of 64 x 2 = 128 B, 4 sectors, and a row stride of 10,000 B
  // (16 mod 32) starts every other run mid-sector: 128 x 4.5 = 576 sectors. While one sector's
  // 16 column loads run, each row holds 160 B: 20,480 B. A's cp.async copy passes 64 x 128 x
  // 2 / 32 = 512 sectors through L1.
  CHECK(b.l1_tile_sectors == Approx(576));
  CHECK(b.l1_window_bytes == Approx(20480));
  CHECK(b.l1_displacing_sectors == Approx(512));
  // Beside the lookups: A's copy, 16,384 B, and the MMA's reads (8 warps: one 64-row slice,
  // two 32-wide N slices: A twice, 32,768 B; B once, 16,384 B).
  CHECK(b.l1_beside_bytes == Approx(16384 + 49152));
  // Shared memory: 5 x 16,384 (A) + 16,384 (B) = 98,304 B, over the 48 KiB a block gets without
  // opting in, so the driver takes the largest carve-out, 228 KiB: 256 - 228 = 28 KiB of L1,
  // 14,336 B per tile at two an SM.
  auto hw = h200_like();
  hw.limits.l1_smem_bytes_per_sm = 262144;
  CHECK(kernels::gemm_smem_bytes(p) == 98304);
  CHECK(model::l1_bytes_beside_smem(hw, 98304, 2) == 28672);
  // A block of 32 KiB, four an SM: 4 x 33 KiB = 132 KiB, the 132 KiB carve-out (ncu: 135,168
  // B), 124 KiB of L1.
  CHECK(model::l1_bytes_beside_smem(hw, 32768, 4) == 262144 - 135168);
  // A profile that does not know the unified size says nothing of L1 (no reuse is lost).
  CHECK(model::l1_bytes_beside_smem(h200_like(), 98304, 2) == 0);
  hw.l1_sectors_per_clk = 3.48, hw.lsu_instruction_cycles = 3.18, hw.l1_lines_per_clk = 2.06;
  hw.l1_miss_sector_cycles = 2.95;
  auto rates = model::sm_rates(hw, 132, 1.0);
  rates.l1_bytes_per_tile = 14336;
  // 256 instructions touch 256 x 32 = 8192 sectors; 576 + 512 = 1088 miss at least; the
  // windows outgrow L1 by 1 - 14,336 / 20,480 = 0.3 of the rest: 1088 + 0.3 x 7104 = 3219.2
  // misses (12.6 an instruction; ncu: 11.9), x 2.95 = 9496.6 cycles, past the lookups'
  // 256 x 16.534 = 4232.7. Less the 65,536 B beside: 9496.6 x 128 - 65,536 = 1,150,034 B at
  // 234.24 GB/s = 4.9097 us.
  const cache::CacheTraffic none;
  CHECK(model::resource_vector(b, hw, rates, none)[Resource::kSmem] == Approx(4.9097e-6).epsilon(1e-4));
  // At 2 stages (48 KiB a block: 156 KiB of L1, 78 KiB a tile) the window fits: 1088 misses,
  // 3209.6 cycles, under the lookups, which bind: 4232.7 x 128 - 65,536 = 476,250 B = 2.0332 us.
  rates.l1_bytes_per_tile = 78 * 1024;
  CHECK(model::resource_vector(b, hw, rates, none)[Resource::kSmem] == Approx(2.0332e-6).epsilon(1e-4));
}
