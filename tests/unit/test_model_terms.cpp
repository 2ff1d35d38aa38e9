// Model terms that no template owns: the write-back of the dirty L2 lines the timing
// protocol's flush leaves (DRAM lane), barrier phases and spill reloads on a loop's in-order
// chain, and the DRAM queueing of a software pipeline's round trip. Hand calculations on
// specs built here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tilesight/cache/cache_model.h"
#include "tilesight/cache/cyclic_reuse.h"
#include "tilesight/hw/mma_rate.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/model/loop_analysis.h"
#include "tilesight/model/resource_vector.h"

using namespace tilesight;

TEST_CASE("a kernel timed after do_bench's flush writes back the L2's dirty lines", "[model][dram]") {
  // hw_profiles/calibrate/dirty_l2.py: the L2 keeps 32 MiB of the flush's dirty lines; here in
  // an L2 of 64 MiB, so every other line a read evicts is dirty until none is left. A
  // read-only stream of 64 MiB writes back min(32, 64 / 2) = 32 MiB more: 1 + 32/64 = 1.5x the
  // DRAM time; 128 MiB: 1.25x; 40 MiB: 20 MiB more, 1.5x. A kernel that writes 48 MiB of its
  // 64+48 leaves 32 MiB of its own lines dirty at the end instead: no extra write-back; one
  // that reads 16 MiB (8 of them evicting dirty lines) and writes 8 neither. No dirty budget,
  // no change.
  hw::HardwareSpec hw;
  const double mib = 1024.0 * 1024.0;
  hw.dirty_l2_bytes = 32 * mib;
  hw.l2.bytes = 64 * mib;
  cache::CacheTraffic read_only;
  read_only.accesses = {{.tensor = "x", .requested_bytes = 64 * mib, .dram_bytes = 64 * mib}};
  CHECK(model::dirty_writeback_bytes(hw, read_only) == Approx(32 * mib));
  CHECK(model::dirty_writeback_factor(hw, read_only) == Approx(1.5));
  read_only.accesses[0].dram_bytes = read_only.accesses[0].requested_bytes = 128 * mib;
  CHECK(model::dirty_writeback_factor(hw, read_only) == Approx(1.25));
  read_only.accesses[0].dram_bytes = read_only.accesses[0].requested_bytes = 40 * mib;
  CHECK(model::dirty_writeback_bytes(hw, read_only) == Approx(20 * mib));
  CHECK(model::dirty_writeback_factor(hw, read_only) == Approx(1.5));
  cache::CacheTraffic add;
  add.accesses = {{.tensor = "x", .requested_bytes = 64 * mib, .dram_bytes = 64 * mib},
                  {.tensor = "y", .write = true, .requested_bytes = 48 * mib, .dram_bytes = 48 * mib}};
  CHECK(model::dirty_writeback_factor(hw, add) == Approx(1.0));
  add.accesses[0].dram_bytes = 16 * mib, add.accesses[1].dram_bytes = 8 * mib;
  CHECK(model::dirty_writeback_factor(hw, add) == Approx(1.0));
  hw.dirty_l2_bytes = 0;
  CHECK(model::dirty_writeback_factor(hw, read_only) == Approx(1.0));
}

TEST_CASE("loads whose latency sets the pace wait for the flush's write-back", "[model][dram]") {
  // The 40 MiB read-only stream above writes back 20 MiB; at 4 TB/s that is 5.24 us. Tensor
  // cores busy a quarter of the time: 0.75 of it waits, 3.93 us; busy all the time: none. A
  // producer warp group with its ring of stages: none (its DRAM lane carries the write-back).
  hw::HardwareSpec hw;
  const double mib = 1024.0 * 1024.0;
  hw.dirty_l2_bytes = 32 * mib;
  hw.l2.bytes = 64 * mib;
  hw.dram_bandwidth = 4e12;
  cache::CacheTraffic read_only;
  read_only.accesses = {{.tensor = "x", .requested_bytes = 40 * mib, .dram_bytes = 40 * mib}};
  plan::TileProgram prog;
  prog.loops = {{"k", 10, 3, ""}};
  CHECK(model::dirty_writeback_wait_s(hw, read_only, prog, 0.25) == Approx(0.75 * 20 * mib / 4e12));
  CHECK(model::dirty_writeback_wait_s(hw, read_only, prog, 1.0) == 0.0);
  prog.loops[0].producer_warps = true;
  CHECK(model::dirty_writeback_wait_s(hw, read_only, prog, 0.25) == 0.0);
}

TEST_CASE("barrier phases add half a block reduction each to the chain, shared by resident tiles", "[model]") {
  // One CUDA-core action of 100 ns with 2 barrier phases; the profile's block reduction takes
  // 232 ns (block_reduce.csv), so the chain is 100 + 2 x 116 = 332 ns. Two resident tiles whose
  // chains take turns (overlap_resident false) still overlap their waits: 100 + 232 / 2 = 216 ns
  // per tile iteration.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.cuda_fp32_flops_per_s = 67e12;  // any rate: the action's flops are 100 ns of it
  hw.block_reduce_ns = 232;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.loops = {{"k", 10, 1, ""}};
  prog.loops[0].overlap_resident = false;
  prog.actions = {{.name = "reduce", .op = plan::OpKind::kReduce, .flops = 100e-9 * rates.cuda_flops,
                   .barriers = 2, .loop = "k", .dtype = DType::kFP32}};
  const cache::CacheTraffic traffic;
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = rates};
  const auto one = model::analyze_loop(prog.loops[0], 1, ctx);
  CHECK(one.chain == Approx(332e-9).epsilon(1e-6));
  CHECK(one.envelope.steady == Approx(332e-9).epsilon(1e-6));
  const auto two = model::analyze_loop(prog.loops[0], 2, ctx);
  CHECK(two.envelope.steady == Approx(216e-9).epsilon(1e-6));
  hw.block_reduce_ns = 0;  // not measured: no barrier cost
  const auto none = model::analyze_loop(prog.loops[0], 1, ctx);
  CHECK(none.envelope.steady == Approx(100e-9).epsilon(1e-6));
}

TEST_CASE("spill reloads wait one L2 round trip each on the loop's chain", "[model]") {
  // A 100 ns CUDA-core action that reloads 10 spilled registers one after another, L2 latency
  // 200 ns: 100 + 10 x 200 = 2100 ns per iteration; none reloaded, 100 ns.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.cuda_fp32_flops_per_s = 67e12;
  hw.l2.latency_ns = 200;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.loops = {{"k", 10, 1, ""}};
  prog.actions = {{.name = "fma", .op = plan::OpKind::kMmaCuda, .flops = 100e-9 * rates.cuda_flops,
                   .local_reloads = 10, .loop = "k", .dtype = DType::kFP32}};
  const cache::CacheTraffic traffic;
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = rates};
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(2100e-9).epsilon(1e-6));
  prog.actions[0].local_reloads = 0;
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(100e-9).epsilon(1e-6));
}

TEST_CASE("a load chained to loads before it waits an L2 round trip for each", "[model]") {
  // A load of a tensor the cache model has no traffic for comes from DRAM (600 ns); walking 6
  // more loads of data just written adds 6 L2 round trips: 600 + 6 x 200 = 1800 ns.
  hw::HardwareSpec hw;
  hw.l2.latency_ns = 200;
  hw.dram_latency_ns = 600;
  const cache::CacheTraffic traffic;
  plan::TileAction a{.name = "combine", .op = plan::OpKind::kLoad, .operands = {"P"}, .bytes = 1024,
                     .chained_l2_loads = 6};
  CHECK(model::load_latency_s(a, hw, traffic) == Approx(1800e-9));
  a.chained_l2_loads = 0;
  CHECK(model::load_latency_s(a, hw, traffic) == Approx(600e-9));
}

TEST_CASE("a loop whose loads wait apart keeps half the loads in flight of a 2-stage pipeline", "[model]") {
  // FlashAttention-2's loop waits for V before PV and for the next K before the next QK^T: one
  // of its two tiles in flight. One tile an SM, 2 stages, a 1 us load: the latency floor is the
  // load's latency over the loads in flight, 1 us pipelined, 2 us waited apart.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.l2.latency_ns = 1000;
  hw.dram_latency_ns = 1000;
  hw.cuda_fp32_flops_per_s = 132e12;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.loops = {{"kv", 10, 2, ""}};
  prog.actions = {{.name = "load", .op = plan::OpKind::kLoad, .operands = {"K"}, .bytes = 64,
                   .result_level = plan::Placement::kSmem, .loop = "kv", .dtype = DType::kBF16},
                  {.name = "use", .op = plan::OpKind::kMmaCuda, .flops = 1, .deps = {0}, .loop = "kv",
                   .dtype = DType::kFP32}};
  const cache::CacheTraffic traffic;
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = rates};
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).latency_floor == Approx(1e-6));
  prog.loops[0].loads_wait_apart = true;
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).latency_floor == Approx(2e-6));
}

namespace {

// 132 SMs, 1 TFLOP/s of bf16 tensor cores and an L2 path of 20 GB/s each, SMEM out of the way.
hw::HardwareSpec spill_test_gpu() {
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.tensor_core.flops_per_s = {{DType::kBF16, 132 * 1e12}};
  hw.l2.bandwidth = 132 * 20e9;
  hw.dram_bandwidth = 132 * 20e9;
  hw.smem_bandwidth_per_sm = 1e15;
  return hw;
}

// 100 ns of tensor-core work on that GPU whose spilled accumulators move 4 KiB an iteration.
plan::TileAction spilling_mma() {
  return {.name = "mma", .op = plan::OpKind::kMmaTc, .flops = 100e-9 * 1e12, .local_bytes = 4096,
          .accumulator_spills = true, .loop = "k", .dtype = DType::kBF16};
}

}  // namespace

TEST_CASE("spilled accumulators: the MMA waits for the tile's traffic on the SM's path, warp groups take turns", "[model]") {
  // One tile's iteration by hand: an MMA of 100 ns of tensor-core time with 4 KiB of spill
  // traffic, and a 2 KiB load, at an L2 path of 20 GB/s per SM (132 SMs, 2.64 TB/s): 204.8 ns
  // and 102.4 ns. Spilled accumulators: the MMA lasts 100 + 204.8 + 102.4 =
  // 407.2 ns; without the flag its L2 lane (204.8) and the load (102.4) overlap the MMA:
  // 307.2 ns (the path busy for both). Eight warps are two warp groups taking turns: 203.6
  // ns for the MMA, below the path's 307.2.
  hw::HardwareSpec hw = spill_test_gpu();
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.tensors = {{"A", {1 << 20}, DType::kBF16}};
  prog.loops = {{"k", 100, 1, ""}};
  prog.actions = {{.name = "load", .op = plan::OpKind::kLoad, .operands = {"A"}, .bytes = 2048,
                   .result_level = plan::Placement::kRegister, .loop = "k"},
                  spilling_mma()};
  const cache::CacheTraffic traffic;
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = rates};
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(407.2e-9).epsilon(1e-3));
  prog.resources.warps = 8;
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(307.2e-9).epsilon(1e-3));
  prog.resources.warps = 4;
  prog.actions[1].accumulator_spills = false;
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(307.2e-9).epsilon(1e-3));
}

TEST_CASE("spill traffic past the L2's cyclic capacity waits for DRAM", "[model][cache]") {
  // An MMA of 100 ns of tensor-core time with spilled accumulators and 4 KiB of spill traffic
  // an iteration (2 KiB of slots stored, then reloaded), at an L2 path of 20 GB/s per SM:
  // 204.8 ns, so it lasts 304.8 ns. One tile per SM of 132: a pass over every tile's slots is
  // 132 x 2048 = 270336 B. With an L2 of 270336 / 1.15 B and a measured cyclic curve through
  // (1, 1) and (1.3, 0.4), 70% of it hits; L2 latency 200 ns, DRAM 400 ns plus 200 ns of
  // queueing: an access takes 0.7 + 0.3 x 600 / 200 = 1.6 L2 latencies, so the spill traffic
  // holds the path 327.68 ns and the MMA lasts 427.68 ns. An L2 that holds the pass: 304.8.
  hw::HardwareSpec hw = spill_test_gpu();
  hw.l2.latency_ns = 200;
  hw.dram_latency_ns = 400;
  hw.dram_queue_ns = 200;
  hw.l2.cyclic_hit = {{1.0, 1.0}, {1.3, 0.4}};
  hw.l2.bytes = 270336 / 1.15;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.loops = {{"k", 100, 1, ""}};
  prog.actions = {spilling_mma()};
  const cache::CacheTraffic traffic;
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = rates};
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(427.68e-9).epsilon(1e-3));
  hw.l2.bytes = 270336;
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(304.8e-9).epsilon(1e-3));
}

TEST_CASE("the L2's hit rate under cyclic reuse follows the measured curve", "[cache]") {
  hw::CacheLevel l2;
  l2.bytes = 100;
  l2.cyclic_hit = {{1.0, 1.0}, {1.2, 0.6}, {2.0, 0.2}};
  CHECK(cache::cyclic_hit_rate(l2, 50) == 1.0);
  CHECK(cache::cyclic_hit_rate(l2, 100) == 1.0);
  CHECK(cache::cyclic_hit_rate(l2, 110) == Approx(0.8));  // halfway to (1.2, 0.6)
  CHECK(cache::cyclic_hit_rate(l2, 160) == Approx(0.4));  // halfway from (1.2, 0.6) to (2, 0.2)
  CHECK(cache::cyclic_hit_rate(l2, 500) == Approx(0.2));  // past the last point: its rate
  l2.cyclic_hit.clear();                                  // not measured: none hit past it
  CHECK(cache::cyclic_hit_rate(l2, 100) == 1.0);
  CHECK(cache::cyclic_hit_rate(l2, 101) == 0.0);
  // A curve that falls short of the capacity (l2_cyclic_ncu.py: private working sets read and
  // written over and over start missing at 0.6 of the 56 MB): from (0, 1) to its first point.
  l2.cyclic_hit = {{0.6, 1.0}, {0.8, 0.9}, {1.0, 0.3}, {1.2, 0.0}};
  CHECK(cache::cyclic_hit_rate(l2, 50) == 1.0);
  CHECK(cache::cyclic_hit_rate(l2, 70) == Approx(0.95));  // halfway from (0.6, 1) to (0.8, 0.9)
  CHECK(cache::cyclic_hit_rate(l2, 90) == Approx(0.6));
  CHECK(cache::cyclic_hit_rate(l2, 130) == 0.0);
}

TEST_CASE("DRAM traffic lengthens a software pipeline's round trip by its queueing", "[model][dram]") {
  // A 3-stage loop (2 stages in flight) whose one load moves 8192 B, all from DRAM. Profile:
  // round trip 600 ns, fill 200 GB/s (8192 B: 40.96 ns), DRAM 132 x 40 GB/s so the SM's share
  // moves the load in 204.8 ns. Without queueing: T = 600 / 2 + 40.96 = 340.96 ns. With
  // dram_queue_ns = 300 the round trip grows by 300 x rho, rho = 204.8 / T:
  // T^2 - 340.96 T - 300 x 204.8 / 2 = 0, T = (340.96 + sqrt(340.96^2 + 4 x 30720)) / 2 = 414.99 ns.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.dram_bandwidth = 132 * 40e9;
  hw.l2.bandwidth = 132 * 1e12;
  hw.l2.latency_ns = 200;
  hw.dram_latency_ns = 400;
  hw.pipeline_round_trip_ns = 600;
  hw.smem_fill_bandwidth_per_sm = 200e9;
  hw.smem_bandwidth_per_sm = 1e15;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.tensors = {{"A", {1 << 20}, DType::kBF16}};
  prog.loops = {{"k", 100, 3, ""}};
  prog.actions = {{.name = "load", .op = plan::OpKind::kLoad, .operands = {"A"}, .bytes = 8192,
                   .result_level = plan::Placement::kSmem, .loop = "k"}};
  cache::CacheTraffic traffic;
  traffic.accesses = {{.tensor = "A", .requested_bytes = 8192, .dram_bytes = 8192}};
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = rates};
  REQUIRE(traffic.dram_fraction("A") == Approx(1.0));
  // Not measured: the pointer-chase difference (400 - 200 ns) joins the round trip instead.
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(400e-9 + 40.96e-9).epsilon(1e-4));
  hw.dram_queue_ns = 300;
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(414.99e-9).epsilon(1e-4));
}

TEST_CASE("narrow wgmma instructions are bound by their operand reads from shared memory", "[model]") {
  // 128 bytes per clock of shared memory (253.44 GB/s at 1.98 GHz). m64nNk16 needs 64 + 4096 / N
  // bytes per peak clock: N = 32, 192 -> 2/3 of the rate (mma_rate.csv: 640-650 TFLOP/s
  // against 880-1020); N = 64, 128 -> all of it; N = 16, 320 -> 0.4. Unknown width: full rate.
  hw::HardwareSpec hw;
  hw.clock_ghz = 1.98;
  hw.smem_bandwidth_per_sm = 128 * 1.98e9;
  CHECK(hw::wgmma_width_efficiency(hw, 32) == Approx(2.0 / 3.0));
  CHECK(hw::wgmma_width_efficiency(hw, 64) == Approx(1.0));
  CHECK(hw::wgmma_width_efficiency(hw, 256) == Approx(1.0));
  CHECK(hw::wgmma_width_efficiency(hw, 16) == Approx(0.4));
  CHECK(hw::wgmma_width_efficiency(hw, 0) == Approx(1.0));
  // The MMA's tensor-core time: 100 ns of work at full rate takes 150 ns as m64n32k16.
  hw.sm_count = 132;
  hw.tensor_core.flops_per_s = {{DType::kBF16, 132 * 1e12}};
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileAction mma{.name = "mma", .op = plan::OpKind::kMmaTc, .flops = 100e-9 * 1e12, .loop = "k",
                       .dtype = DType::kBF16};
  const cache::CacheTraffic traffic;
  CHECK(model::resource_vector(mma, hw, rates, traffic)[Resource::kTC] == Approx(100e-9));
  mma.mma_n = 32;
  CHECK(model::resource_vector(mma, hw, rates, traffic)[Resource::kTC] == Approx(150e-9));
}

TEST_CASE("loads whose rows are narrower than a line are held to the L2's request rate", "[model][cache]") {
  // l2_requests.csv: 0.556 line requests a clock an SM with all 132 copying, 1.45e11 a second
  // for the device; the bytes alone go at 65.9 GB/s an SM. An 8 KiB tile copied in runs of:
  //  - whole lines: 64 requests, 0.0583 us at 1.0985e9 a second an SM; the bytes take
  //    0.1243 us, and set the lane;
  //  - 64 bytes (BLOCK_K 32 of bf16): 128 requests, 0.1165 us, still under the bytes;
  //  - 32 bytes: 256 requests, 0.2330 us, over the bytes: the requests set the lane.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.l2.bytes = 56e6;
  hw.l2.bandwidth = 132 * 65.9e9;
  hw.l2.requests_per_s = 1.45e11;
  hw.dram_bandwidth = 4.4e12;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  const cache::CacheTraffic traffic;  // no access: every byte hits in L2
  plan::TileAction load{.name = "load_a", .op = plan::OpKind::kLoad, .operands = {"A"}, .bytes = 8192,
                        .result_level = plan::Placement::kSmem, .loop = "k"};
  const double bytes_s = 8192 / 65.9e9, request_s = 132 / 1.45e11;
  CHECK(model::resource_vector(load, hw, rates, traffic)[Resource::kL2] == Approx(bytes_s));
  load.dram_run_bytes = 64;
  CHECK(model::resource_vector(load, hw, rates, traffic)[Resource::kL2] == Approx(bytes_s));
  CHECK(128 * request_s < bytes_s);
  load.dram_run_bytes = 32;
  CHECK(model::resource_vector(load, hw, rates, traffic)[Resource::kL2] == Approx(256 * request_s));
  CHECK(256 * request_s == Approx(0.2330e-6).epsilon(1e-3));
  // Through registers, the loads go through L1 first: only their bytes count here.
  load.via_registers = true;
  CHECK(model::resource_vector(load, hw, rates, traffic)[Resource::kL2] == Approx(bytes_s));
  // A profile without the rate: the bytes alone.
  hw.l2.requests_per_s = 0;
  load.via_registers = false;
  CHECK(model::resource_vector(load, hw, model::sm_rates(hw, 132, 1.0), traffic)[Resource::kL2] == Approx(bytes_s));
}

TEST_CASE("copies into shared memory move at the L2's async rate, loads into registers at its load rate", "[model][cache]") {
  // l2_requests.csv: cp.async copies of every SM move 69.8 GB/s an SM (9.21 TB/s); bw_sweep.csv:
  // loads into registers 8.7 TB/s (65.9 GB/s an SM). 8 KiB: 117.4 ns against 124.3 ns. With 66
  // SMs active each gets twice the share of the device, held to the per-SM cap scaled alike.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.l2.bytes = 56e6;
  hw.l2.bandwidth = 8.7e12;
  hw.l2.per_sm_bandwidth = 8.7e12 / 132;  // 65.9 GB/s
  hw.l2.async_bandwidth = 9.21e12;
  hw.dram_bandwidth = 4.4e12;
  const cache::CacheTraffic traffic;
  plan::TileAction copy{.name = "load_a", .op = plan::OpKind::kLoad, .operands = {"A"}, .bytes = 8192,
                        .result_level = plan::Placement::kSmem, .loop = "k"};
  plan::TileAction load = copy;
  load.result_level = plan::Placement::kRegister;
  const auto all = model::sm_rates(hw, 132, 1.0);
  CHECK(model::resource_vector(copy, hw, all, traffic)[Resource::kL2] == Approx(8192 / (9.21e12 / 132)));
  CHECK(model::resource_vector(copy, hw, all, traffic)[Resource::kL2] == Approx(117.4e-9).epsilon(1e-3));
  CHECK(model::resource_vector(load, hw, all, traffic)[Resource::kL2] == Approx(8192 / (8.7e12 / 132)));
  const auto half = model::sm_rates(hw, 66, 1.0);
  CHECK(model::resource_vector(copy, hw, half, traffic)[Resource::kL2] == Approx(8192 / (9.21e12 / 132)));
  CHECK(model::resource_vector(load, hw, half, traffic)[Resource::kL2] == Approx(8192 / (8.7e12 / 132)));
  // Staged through registers: the load rate.
  copy.via_registers = true;
  CHECK(model::resource_vector(copy, hw, all, traffic)[Resource::kL2] == Approx(8192 / (8.7e12 / 132)));
}

TEST_CASE("an SM's copies into shared memory carry what l2_requests_active.csv measures with as many SMs copying", "[model][cache]") {
  // h200.json's table (GB/s an SM): 247 with 1-4 SMs, 172 with 8, 130.8 with 16, 79.3 with 96,
  // 69.3 with 132, on log-log axes between; the device's async rate (9.21 TB/s) shared by the
  // active SMs caps it.
  const auto loaded = hw::load_profile("h200");
  REQUIRE(loaded.ok());
  const hw::HardwareSpec& h200 = loaded.value();
  auto async_rate = [&](double active) { return model::sm_rates(h200, active, 1.0).l2_async_bytes; };
  CHECK(async_rate(1) == Approx(247e9));
  CHECK(async_rate(16) == Approx(130.8e9));
  // 12 SMs: log(12/8)/log(2) = 0.585 of the way from 8 to 16 on log-log axes.
  CHECK(async_rate(12) == Approx(172e9 * std::pow(130.8 / 172.0, std::log2(1.5))));
  CHECK(async_rate(12) == Approx(146.5e9).epsilon(1e-3));
  // 96 and 132 SMs: the table, below the device's share (95.9 and 69.8 GB/s).
  CHECK(async_rate(96) == Approx(79.3e9));
  CHECK(async_rate(132) == Approx(69.3e9));
  // Loads into registers keep the load rate's share and cap: 65.9 GB/s with 16 SMs.
  CHECK(model::sm_rates(h200, 16, 1.0).l2_bytes == Approx(65.9e9));
}

TEST_CASE("the H200's cyclic L2 curve is ncu's count of private working sets", "[cache][hw]") {
  // hw_profiles/calibrate/h200/l2_cyclic_ncu.csv, own_rw rows: 528 programs each reading and
  // writing back a region of their own, over and over, about 1 GB a launch (l2_cyclic_ncu.py).
  // The share of reads that did not go to DRAM, less the launch's cold first pass, is the curve
  // the profile holds (l2_cyclic_ncu.py --json): the model reads it back at each working set.
  const auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  std::ifstream in(std::string(TILESIGHT_TEST_SOURCE_DIR) + "/hw_profiles/calibrate/h200/l2_cyclic_ncu.csv");
  REQUIRE(in);
  std::string line;
  std::vector<std::string> header;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (header.empty()) {
      header = cells;
      continue;
    }
    const auto at = [&](const char* name) {
      const auto i = std::find(header.begin(), header.end(), name) - header.begin();
      return cells.at(static_cast<std::size_t>(i));
    };
    if (at("layout") != "own_rw") continue;
    const double ws = std::stod(at("working_set_bytes")), reads = std::stod(at("tex_read")) * 32;
    const double cold = ws / reads, missed = std::stod(at("dram_read_bytes")) / reads;
    const double steady = 1 - std::max(0.0, (missed - cold) / (1 - cold));
    INFO(ws / 1e6 << " MB: measured " << steady);
    CHECK(cache::cyclic_hit_rate(hw->l2, ws) == Approx(steady).margin(0.01));
    ++checked;
  }
  CHECK(checked == 17);  // 15-80 MB
}
