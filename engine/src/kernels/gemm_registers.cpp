// What the compiler allocates for a gemm tile: registers per thread, the registers past 255
// that spill, and the spilled values a K iteration moves and waits for (the lift, gemm.cpp,
// puts them on its actions).
#include "gemm_registers.h"

#include <algorithm>
#include <cmath>

namespace tilesight::kernels {

namespace {
// Registers a Triton/CUTLASS GEMM needs besides its accumulators: addresses, loop state and
// the operand fragments in flight (wgmma reads operands from shared memory).
constexpr std::int64_t kBaseRegisters = 40;
constexpr std::int64_t kMaxRegisters = 255;
constexpr std::int64_t kProducerRegisters = 40;  // a TMA producer warp group's (DESIGN.md)
}  // namespace

// Registers a tile needs: the fp32 accumulators, half as many again for the epilogue's
// converted copy and addressing (none in warp-specialised consumers), a base of 40, and one
// per element of an operand loaded through registers (its value; what Triton allocates on top
// is addressing it can recompute). Past 255 the rest spills: on the 11
// spilling configs of hw_profiles/calibrate/h200/triton_registers.csv this gives 169 spilled
// registers where Triton reports 138-232 spill slots (mean 176).
namespace {
// Registers per staged element and thread: its value and part of its address. A least-squares
// fit of what Triton allocates beyond the aligned fit below, over the 123 unspilled configs of
// hw_profiles/calibrate/h200/triton_registers_unaligned.csv (configs and shapes not in the
// corpus: B, or A and B, loaded element-wise): 1.605 (median 1.70); the allocation's mean error
// there falls from 33.3 registers at 1 to 17.7.
constexpr double kRegistersPerStagedElement = 1.6;
// Registers per consumer thread that hold elements of operands loaded through registers.
std::int64_t staged_registers(const GemmParams& p, double per_element = 1.0) {
  std::int64_t staged = 0;
  if (gemm_a_via_registers(p)) staged += p.block_m * p.block_k;
  if (gemm_b_via_registers(p)) staged += p.block_k * p.block_n;
  const double per_thread = static_cast<double>(staged) / static_cast<double>(consumer_warps(p) * 32);
  return static_cast<std::int64_t>(std::ceil(per_element * per_thread));
}
}  // namespace

std::int64_t gemm_registers_needed(const GemmParams& p) {
  const std::int64_t accumulators = ceil_div(p.block_m * p.block_n, consumer_warps(p) * 32);
  return accumulators + (warp_specialised(p) ? 0 : accumulators / 2) + kBaseRegisters + staged_registers(p);
}

namespace {
// What Triton allocates when nothing spills (occupancy follows it): a least-squares fit to 96
// unspilled tile configs that are not in the validation corpus (hw_profiles/calibrate/
// triton_registers.py, Triton 3.6): 1.203 per fp32 accumulator, 0.278 per element of the A
// tile and 0.386 per element of the B tile per thread (wgmma fragments, copies), plus 18.1;
// mean error 7.5 registers there and 9.2 on the 44 unspilled corpus configs, where the need
// above is off by 21.7. An operand loaded through registers adds 1.6 per element per thread
// (kRegistersPerStagedElement; 3000x5000x2048 128x64x32 with B staged: 110 + 26 = 136; Triton
// recorded 151). Per byte, not per element: on the 42 unspilled fp8 configs of
// triton_gemm_fp8_heldout.csv the per-element fit is 27.9 registers over on average, halved
// 11.6.
std::int64_t triton_registers_allocated(const GemmParams& p) {
  const std::int64_t threads = consumer_warps(p) * 32;
  const double t = static_cast<double>(threads);
  // The operand terms count registers per element of the bf16 fit: what a register holds is
  // 4 bytes, so an element of another width takes its share of them.
  const double width = dtype_bytes(p.dtype) / 2.0;
  const double fitted = 1.203 * static_cast<double>(ceil_div(p.block_m * p.block_n, threads)) +
                        0.278 * width * static_cast<double>(p.block_m * p.block_k) / t +
                        0.386 * width * static_cast<double>(p.block_k * p.block_n) / t + 18.1;
  return static_cast<std::int64_t>(std::lround(fitted)) + staged_registers(p, kRegistersPerStagedElement);
}

// ptxas lands on an occupancy boundary when its count would pass one by a little: the counts
// Triton records pile up at the largest per-thread count that still fits n blocks (64, 72, 96,
// 128 and 168 on 4 warps; 64, 80 and 128 on 8), where a block's warps take registers from the
// SM's 64 Ki in units of 256 (every NVIDIA GPU since sm_50). Snapping the fit down to a
// boundary it passes by at most kOccupancySnap registers matches the recorded occupancy of 91
// of the 96 unspilled configs of hw_profiles/calibrate/h200/triton_registers.csv (82 without;
// 4 registers: 89, 8: 88; chosen there, outside the validation corpora).
constexpr std::int64_t kRegisterFile = 65536;
constexpr std::int64_t kWarpAllocationUnit = 256;
constexpr std::int64_t kOccupancySnap = 6;
std::int64_t snap_to_occupancy(std::int64_t registers, std::int64_t warps) {
  if (warps <= 0) return registers;
  for (std::int64_t blocks = 1; blocks * warps <= kRegisterFile / kWarpAllocationUnit; ++blocks) {
    const std::int64_t per_warp = kRegisterFile / (blocks * warps) / kWarpAllocationUnit * kWarpAllocationUnit;
    const std::int64_t boundary = std::min(kMaxRegisters, per_warp / 32);
    if (registers > boundary && registers <= boundary + kOccupancySnap) return boundary;
  }
  return registers;
}
}  // namespace

std::int64_t gemm_registers_per_thread(const GemmParams& p) {
  if (p.registers > 0) return p.registers;
  const std::int64_t need = gemm_registers_needed(p);
  if (!warp_specialised(p))
    return need > kMaxRegisters ? kMaxRegisters
                                : snap_to_occupancy(std::min(kMaxRegisters, triton_registers_allocated(p)), p.warps);
  const std::int64_t consumer = std::min(kMaxRegisters, need);
  // The block's register file is what occupancy sees: the average over its threads.
  return ceil_div(consumer * (p.warps - kProducerWarps) + kProducerRegisters * kProducerWarps, p.warps);
}

double gemm_spill_bytes_per_iteration(const GemmParams& p) {
  // Triton's count where the operands come by cp.async; with an operand staged through
  // registers its count also holds values spilled outside the K loop (the corpus's
  // 256x128x32 w8 and 256x64x32 w4 configs with 156-186 slots run 2-3x faster than reloading
  // them every iteration would), so the need estimate stands there.
  const bool staged = gemm_a_via_registers(p) || gemm_b_via_registers(p);
  const std::int64_t spilled = p.spills > 0 && !staged ? p.spills : gemm_registers_needed(p) - kMaxRegisters;
  if (spilled <= 0) return 0;
  // Each spilled 4-byte register of every thread is stored and reloaded once per iteration
  // (ncu, tests/validation/h200/ncu_spills_facts.csv: 4096^3 128x256x64 w4 with 196 slots
  // moves 203 KB of local memory per iteration; 2 x 4 x 196 x 128 threads = 201 KB).
  return 2.0 * 4.0 * static_cast<double>(spilled) * static_cast<double>(consumer_warps(p) * 32);
}

// The fp32 accumulators and the base alone do not fit in 255 registers: the compiler splits
// the tile's MMAs and spills accumulators around them (ncu_spills_facts.csv: every spilled
// slot stored and reloaded once per iteration).
bool gemm_accumulators_overflow(const GemmParams& p) {
  return ceil_div(p.block_m * p.block_n, consumer_warps(p) * 32) + kBaseRegisters > kMaxRegisters;
}

// Spilled registers a K iteration reloads one after another, in a loop that stages an operand
// through registers: what the loop itself holds (accumulators, the base, the staged elements)
// beyond 255, whose reloads sit between the global loads and the st.shared the iteration
// waits for. ncu of the corpus's unaligned kernels (tests/validation/h200/ncu_extra_facts.csv,
// ncu_spills_facts.csv) counts 40-315 local loads per warp and iteration where A and B are both
// staged (this gives 0-233) and about 2 where only a 32-deep B tile is (0). Not every reload
// waits a round trip of its own: issuing the loop bodies of 18 spilling kernels outside the
// corpus in order, each local load ready an L2 round trip later (hw_profiles/calibrate/
// spill_sass.py, h200/spill_sass.csv), gives 0-71 round trips an iteration. The compiler starts
// reloading before the loop's values fill all 255 registers and not every extra register is a
// round trip of its own: kReloadsPerRegister of them past kReloadThreshold (a least-squares fit
// to those 19 kernels' waits: within 5.0 on average, 10.5 counting each register past 255; it
// gives 256x64x32 w4 with A and B staged 18 where its SASS waits 26.7, and 255 gave none).
// Where the accumulators alone overflow, the compiler splits the tile's MMAs and keeps part of
// the accumulators live while the staged elements arrive: every register past 255 with
// kLiveAccumulatorShare of them (those 12 calibration kernels' SASS: 1.5-435 round trips,
// matched within 33.9 on average at 0.42, 54.1 counting none, 111.6 counting all; without a
// staged operand this gives none).
// A staged alone (K not a multiple of 16, B copied) is another loop: it reloads every slot the
// compiler spilled, every iteration (local loads per warp and iteration = the spill count: SASS
// of 10 spilling configs on 2048x3072x2040, hw_profiles/calibrate/h200/spill_sass_a_only.csv,
// and ncu of 3500x6000x2500, tests/validation/h200/ncu_unaligned_facts.csv: 29, 64, 96, 44 for
// 30, 66, 98, 46 spills), in groups: kAOnlyWaits + kAOnlyWaitsPerSlot waits an iteration (least
// squares over that SASS: 13-225 waits for 18-934 slots, within 5.6 on average), where the
// register rule gives 7-141. Each wait lasts kAOnlyWaitRoundTrips L2 round trips: its reloads
// queue behind the other warps' (the one constant here fitted to timings: staged_a_timing.csv,
// the A-staged calibration set, MAPE 23.7% with the register rule, 21.5% at one round trip a
// wait, 19.1% at 1.5, 19.1% at 1.6; ncu_carveout_facts.csv's 3-5-stage tiles, whose reloads
// miss L1, take 1.8 round trips a wait).
// No spills recorded by the compiler (`registers` given, `spills` 0): none.
namespace {
constexpr double kLiveAccumulatorShare = 0.42;
constexpr double kReloadThreshold = 222;
constexpr double kReloadsPerRegister = 0.7;
constexpr double kAOnlyWaits = 9.31;
constexpr double kAOnlyWaitsPerSlot = 0.227;
constexpr double kAOnlyWaitRoundTrips = 1.5;
}  // namespace
double gemm_loop_reloads(const GemmParams& p) {
  const bool staged = gemm_a_via_registers(p) || gemm_b_via_registers(p);
  if (!staged || (p.registers > 0 && p.spills == 0)) return 0;
  if (gemm_a_via_registers(p) && !gemm_b_via_registers(p) && p.spills > 0 && !gemm_accumulators_overflow(p))
    return kAOnlyWaitRoundTrips * (kAOnlyWaits + kAOnlyWaitsPerSlot * static_cast<double>(p.spills));
  const std::int64_t accumulators = ceil_div(p.block_m * p.block_n, consumer_warps(p) * 32);
  if (gemm_accumulators_overflow(p)) {
    const auto live = static_cast<std::int64_t>(kLiveAccumulatorShare * static_cast<double>(accumulators));
    return static_cast<double>(std::max<std::int64_t>(0, live + kBaseRegisters + staged_registers(p) - kMaxRegisters));
  }
  const auto live = static_cast<double>(accumulators + kBaseRegisters + staged_registers(p));
  return kReloadsPerRegister * std::max(0.0, live - kReloadThreshold);
}

}  // namespace tilesight::kernels
