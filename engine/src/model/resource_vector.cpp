#include "tilesight/model/resource_vector.h"

#include "tilesight/hw/mma_rate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace tilesight::model {

namespace {

double per_sm_share(double device_bw, double active_sms, double per_sm_cap) {
  if (device_bw <= 0 || active_sms <= 0) return 0;
  double share = device_bw / active_sms;
  return per_sm_cap > 0 ? std::min(share, per_sm_cap) : share;
}

// y at x on a table of increasing x, interpolated on log-log axes; the end values outside it.
double log_log_at(const std::vector<std::array<double, 2>>& points, double x) {
  if (x <= points.front()[0]) return points.front()[1];
  for (std::size_t i = 1; i < points.size(); ++i)
    if (x <= points[i][0]) {
      const auto& [x0, y0] = points[i - 1];
      const auto& [x1, y1] = points[i];
      const double t = std::log(x / x0) / std::log(x1 / x0);
      return y0 * std::pow(y1 / y0, t);
    }
  return points.back()[1];
}

double seconds(double amount, double rate) { return amount > 0 && rate > 0 ? amount / rate : 0; }

// A load staged through registers moves one element per thread per instruction, but its
// layout still gives each thread a 16-byte vector of consecutive elements (the layout that
// vectorised copies would use): one warp instruction touches 32 addresses 16 bytes apart,
// 512 bytes or four 128-byte wavefronts of the SM's load/store data path, for 32 elements;
// the st.shared into the tile buffer the same. That path moves 128 bytes a wavefront at the
// profile's SMEM rate, so it is busy as if 2 x 512 bytes moved per 32 elements.
//
// Where the profile measured the path (l1_sectors.cu, l1_rows.cu) and the load names its
// lanes' sectors, each warp load instruction and its st.shared cost max(lsu_instruction_cycles,
// lane_sectors / l1_sectors_per_clk, lane_lines / l1_lines_per_clk + 1) cycles: the first two
// were measured on load + st.shared pairs, the line rate on the loads alone (l1_rows.cu: the
// pair's 16.9 cycles less the st.shared's one). A cycle of the path is 128 bytes at the SMEM
// rate.
//
// Where lanes spread over rows, the loads of a tile's other columns reuse its sectors from L1,
// and what misses can set the pace instead (hw_profiles/calibrate/staged_l1.py, checked by
// staged_l1_fit.py: past 7 misses an instruction, 2.85-3.33 cycles a missed sector, the
// profile's l1_miss_sector_cycles). An iteration misses each sector of the tile once, and
// again each one the cp.async copies of the other operand evict as they pass through L1, one
// per copied sector (3.1-10.3 misses an instruction over 37 configs with room in L1, the rule
// within 2.1% on average); where the resident tiles' windows outgrow the L1 the carve-out
// leaves, that share of the remaining reuses is lost too (31 configs with 28 KiB of L1: within
// 0.12 of the share lost, on average).
double staged_l1_misses(const plan::TileAction& a, double instructions, double l1_bytes_per_tile) {
  if (a.l1_tile_sectors <= 0) return 0;
  const double base = a.l1_tile_sectors + a.l1_displacing_sectors;
  const double touches = std::max(base, instructions * a.lane_sectors);
  const double footprint = a.l1_window_bytes > 0 ? a.l1_window_bytes : a.l1_tile_sectors * 32.0;
  const double lost = l1_bytes_per_tile > 0 ? std::max(0.0, 1.0 - l1_bytes_per_tile / footprint) : 0.0;
  return base + lost * (touches - base);
}

double register_staged_lsu_bytes(const plan::TileAction& a, const hw::HardwareSpec& hw, const SmRates& rates) {
  const double instructions = a.bytes / dtype_bytes(a.dtype) / 32.0;
  if (a.lane_sectors > 0 && hw.l1_sectors_per_clk > 0 && hw.lsu_instruction_cycles > 0) {
    double pair_cycles = std::max(hw.lsu_instruction_cycles, a.lane_sectors / hw.l1_sectors_per_clk);
    if (a.lane_lines > 0 && hw.l1_lines_per_clk > 0) pair_cycles = std::max(pair_cycles, a.lane_lines / hw.l1_lines_per_clk + 1.0);
    double cycles = instructions * pair_cycles;
    if (hw.l1_miss_sector_cycles > 0)
      cycles = std::max(cycles, staged_l1_misses(a, instructions, rates.l1_bytes_per_tile) * hw.l1_miss_sector_cycles);
    // The L1's lookups and misses run beside the shared-memory traffic of the iteration's
    // other actions (the copies of the other operand, the MMA's operand reads): the load adds
    // to the lane what its L1 work takes beyond them, and at least its own stores. ncu of
    // 3000x5000x2048 64x64x64 (ncu_staged_facts.csv): 946 us for 115k such loads an SM at 16.5
    // cycles each (960 us), where adding the copies and operand reads gave 1047.
    const double beside = a.l1_beside_bytes;
    return std::max(cycles * 128.0, instructions * 128.0 + beside) - beside;
  }
  return 2.0 * 512.0 * instructions;
}

// Line requests a load's copies make: each row's run of a line is one request, whatever its
// sectors. l2_requests.cu (h200/l2_requests.csv): with every SM copying, requests are served
// at 0.56 a clock an SM, so 64-byte runs go no faster than the bytes alone allow even where
// 8 SMs ask for the same lines at once, 32-byte runs at half that, and merged whole lines at
// 2.3 sectors a clock, not more. A merged request still counts. Loads through registers go
// through L1 first (their L2 traffic is its misses, register_staged_lsu_bytes): not counted.
double l2_requests(const plan::TileAction& a, const hw::HardwareSpec& hw, double bytes) {
  if (a.op != plan::OpKind::kLoad || a.via_registers) return 0;
  const double line = hw.l2.line_bytes;
  return bytes / (a.dram_run_bytes > 0 ? std::min(a.dram_run_bytes, line) : line);
}

std::string moved_tensor(const plan::TileAction& action) {
  return action.operands.empty() ? std::string() : action.operands.front();
}

// Share of a tensor's load requests that merge with another SM's request for the same sector
// before they reach an L2 slice (the cache model's l2_merged_bytes, ncu_pending.csv): the
// slices never serve them.
double merged_share(const cache::CacheTraffic& traffic, const std::string& tensor) {
  double requested = 0, merged = 0;
  for (const auto& a : traffic.accesses)
    if (a.tensor == tensor && !a.write) requested += a.requested_bytes, merged += a.l2_merged_bytes;
  return requested > 0 ? std::clamp(merged / requested, 0.0, 1.0) : 0.0;
}

}  // namespace

SmRates sm_rates(const hw::HardwareSpec& hw, double active_sms, double clock_factor) {
  const double sms = hw.sm_count > 0 ? hw.sm_count : 1;
  SmRates r;
  r.cuda_flops = hw.cuda_fp32_flops_per_s / sms * clock_factor;
  r.sfu_ops = hw.sfu_ops_per_s / sms * clock_factor;
  r.smem_bytes = hw.smem_bandwidth_per_sm * clock_factor;
  r.tmem_bytes = hw.tmem_bandwidth_per_sm * clock_factor;
  r.l15_bytes = per_sm_share(hw.l15.bandwidth, active_sms, hw.l15.per_sm_bandwidth);
  r.l2_bytes = per_sm_share(hw.l2.bandwidth, active_sms, hw.l2.per_sm_bandwidth);
  // Copies into shared memory move more than loads into registers (l2_requests.csv: 69.8 GB/s
  // an SM with every SM copying, where bw_sweep.py's loads plateau at 8.7 TB/s, 65.9): their
  // share of the device's async rate, held to what one SM's path carries with that many SMs
  // copying (l2_requests_active.csv: 131 GB/s with 16, 105 with 64, 69 with 132). Without it, the
  // load rate's share and cap scaled by the two rates.
  if (!hw.l2.async_per_sm.empty() && hw.l2.async_bandwidth > 0 && active_sms > 0)
    r.l2_async_bytes = std::min(hw.l2.async_bandwidth / active_sms, log_log_at(hw.l2.async_per_sm, active_sms));
  else
    r.l2_async_bytes = hw.l2.async_bandwidth > 0 && hw.l2.bandwidth > 0 ? r.l2_bytes * hw.l2.async_bandwidth / hw.l2.bandwidth
                                                                        : r.l2_bytes;
  r.l2_requests = per_sm_share(hw.l2.requests_per_s, active_sms, 0);
  r.dram_bytes = per_sm_share(hw.dram_bandwidth, active_sms, 0);
  r.tc_flops = clock_factor;  // scaled per dtype in resource_vector
  return r;
}

double dirty_writeback_bytes(const hw::HardwareSpec& hw, const cache::CacheTraffic& traffic) {
  if (hw.dirty_l2_bytes <= 0 || hw.l2.bytes <= 0) return 0;
  const double read = traffic.dram_read_bytes(), written = traffic.dram_write_bytes();
  // hw_profiles/calibrate/h200/dirty_loops.csv: Triton loops streaming 4-14 MB from DRAM
  // after the flush take 0.4-2.0 us longer, 18 MB 3.1-3.5 us, 53 MB and more 9-11 us: the
  // dirty share of the lines evicted, 32 of 56 MB, gives 2.6, 8, 10 and 32 MB written back.
  // The kernel's own last writes stay dirty in the L2 when it ends, in place of the flush's:
  // those are not written back during the kernel (a streaming add or norm, 2/3 or 1/2 of its
  // traffic written, shows no flush penalty in norms.csv; a read-only stream pays it all).
  const double evicted = std::min(hw.dirty_l2_bytes, read * std::min(1.0, hw.dirty_l2_bytes / hw.l2.bytes));
  return std::max(0.0, evicted - std::min(hw.dirty_l2_bytes, written));
}

double dirty_writeback_factor(const hw::HardwareSpec& hw, const cache::CacheTraffic& traffic) {
  const double moved = traffic.dram_read_bytes() + traffic.dram_write_bytes();
  return moved > 0 ? 1.0 + dirty_writeback_bytes(hw, traffic) / moved : 1.0;
}

double dirty_writeback_wait_s(const hw::HardwareSpec& hw, const cache::CacheTraffic& traffic,
                              const plan::TileProgram& program, double tc_share) {
  if (hw.dram_bandwidth <= 0) return 0;
  for (const auto& loop : program.loops)
    if (loop.producer_warps) return 0;
  // dirty_loops.csv: loops whose tensor cores are busy 6-40% of the time pay it all (7-11 us
  // for 32 MB), 63% about all (5.6 us for 20 MB), 94-96% 0.3-0.8 us.
  return dirty_writeback_bytes(hw, traffic) / hw.dram_bandwidth * std::clamp(1.0 - tc_share, 0.0, 1.0);
}

ResourceVector resource_vector(const plan::TileAction& a, const hw::HardwareSpec& hw,
                               const SmRates& rates, const cache::CacheTraffic& traffic) {
  using plan::OpKind;
  using plan::Placement;
  ResourceVector u;
  const double sms = hw.sm_count > 0 ? hw.sm_count : 1;
  switch (a.op) {
    case OpKind::kLoad:
    case OpKind::kStore: {
      // Every byte crosses L2; the cache model says which share also reaches DRAM. A load
      // into shared memory (TMA, cp.async) also writes SMEM; a store from registers does not.
      // A TMA multicast fetches once for the whole cluster: each CTA's share of the L2 reads
      // is bytes / multicast, while every CTA still fills its own SMEM. DRAM sees each block
      // once whatever the multicast (the cache model's share), but never more than is fetched.
      // Where an L1.5 tier serves part of the loads (§3.5.3), that share crosses L1.5, not L2.
      // Requests that merge with another SM's request for the same sector before L2 (the
      // cache model's l2_merged_bytes) take no slice bandwidth: with them counted, the L2 lane
      // held 128x128x64 Triton loops at 0.50 us per iteration where pipeline_iteration.csv
      // measures 0.34 (132 SMs sharing 23 tiles, 12.4 TB/s requested of an 8.7 TB/s L2).
      // They still take l2.merge_saving's rest of the lane's time (their data still crosses to
      // the SM).
      const double dram_share = traffic.dram_fraction(moved_tensor(a), a.revisit);
      const double fetched = a.bytes / std::max(a.multicast, 1.0);
      const double l15_share = a.op == OpKind::kLoad ? traffic.l15_fraction(moved_tensor(a)) : 0.0;
      u[Resource::kL15] = seconds(fetched * l15_share, rates.l15_bytes);
      const double merged = a.op == OpKind::kLoad ? hw.l2.merge_saving * merged_share(traffic, moved_tensor(a)) : 0.0;
      const bool async_copy = a.op == OpKind::kLoad && a.result_level == Placement::kSmem && !a.via_registers;
      const double l2_rate = async_copy ? rates.l2_async_bytes : rates.l2_bytes;
      u[Resource::kL2] = std::max(seconds(fetched * (1 - l15_share) * (1 - merged), l2_rate),
                                  seconds(l2_requests(a, hw, fetched * (1 - l15_share)), rates.l2_requests));
      u[Resource::kDram] = seconds(std::min(a.bytes * dram_share, fetched), rates.dram_bytes);
      // Half-line runs (dram_runs.csv: 64-byte runs a row apart read at 2.65-2.69 TB/s where
      // 128-256-byte runs read at 3.77-4.06) take longer of the DRAM's time.
      const double line = hw.l2.line_bytes;
      if (hw.dram_half_line_efficiency > 0 && a.dram_run_bytes >= line / 2 && a.dram_run_bytes < line)
        u[Resource::kDram] /= hw.dram_half_line_efficiency;
      if (a.op == OpKind::kLoad && a.result_level == Placement::kSmem)
        u[Resource::kSmem] = seconds(a.via_registers ? register_staged_lsu_bytes(a, hw, rates) : a.bytes, rates.smem_bytes);
      if (a.result_level == Placement::kTmem) u[Resource::kTmem] = seconds(a.bytes, rates.tmem_bytes);
      break;
    }
    case OpKind::kMmaTc: {
      double tc = hw.tensor_flops(a.dtype, a.mma) / sms * rates.tc_flops;
      if (a.mma == MmaInstruction::kWgmma) tc *= hw::wgmma_width_efficiency(hw, a.mma_n);
      u[Resource::kTC] = seconds(a.flops, tc);
      // Operands stream from shared memory (wgmma reads A and B there); TMEM holds the
      // accumulator on Blackwell.
      u[Resource::kSmem] = seconds(a.bytes, rates.smem_bytes);
      if (a.result_level == Placement::kTmem) u[Resource::kTmem] = seconds(a.bytes, rates.tmem_bytes);
      break;
    }
    case OpKind::kMmaCuda:
    case OpKind::kReduce:
    case OpKind::kRescale:
    case OpKind::kFused:
    case OpKind::kExp: {
      u[Resource::kCuda] = seconds(a.flops, rates.cuda_flops);
      u[Resource::kSfu] = seconds(a.sfu_ops, rates.sfu_ops);
      const double scratch = a.bytes;
      if (a.result_level == Placement::kSmem) u[Resource::kSmem] = seconds(scratch, rates.smem_bytes);
      if (a.result_level == Placement::kTmem) u[Resource::kTmem] = seconds(scratch, rates.tmem_bytes);
      break;
    }
    case OpKind::kRemote:
      // Filled from the routed collective stage cost once the cross-device model exists.
      break;
  }
  // Register spills: local memory lives in L1, which a kernel using most of the SM's shared
  // memory has little of, so spilled values make the round trip to L2.
  u[Resource::kL2] += seconds(a.local_bytes, rates.l2_bytes);
  return u;
}

double load_latency_s(const plan::TileAction& a, const hw::HardwareSpec& hw,
                      const cache::CacheTraffic& traffic) {
  if (a.op != plan::OpKind::kLoad) return 0;
  const double f = traffic.dram_fraction(moved_tensor(a), a.revisit);
  return (f * hw.dram_latency_ns + (1 - f) * hw.l2.latency_ns + a.chained_l2_loads * hw.l2.latency_ns) * 1e-9;
}

}  // namespace tilesight::model
