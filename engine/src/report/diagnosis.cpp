#include "tilesight/report/diagnosis.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "tilesight/cache/local_traffic.h"

namespace tilesight::report {

std::string format_us(double us) {
  char buf[64];
  if (us >= 999.5e3) std::snprintf(buf, sizeof buf, "%.3g s", us / 1e6);
  else if (us >= 999.5) std::snprintf(buf, sizeof buf, "%.3g ms", us / 1000);
  else std::snprintf(buf, sizeof buf, "%.3g us", us);
  return buf;
}

namespace {

// Why the hit rate is what it is, in time: how far apart the tiles that share a block run
// (their drift within a wave, and across waves their own speeds or the waves' widening), and
// how long a miss stays open to other SMs' reads of its block (cache::StreamTiming).
std::string stream_sentence(const cache::StreamTiming& s) {
  char buf[320];
  std::snprintf(buf, sizeof buf, "Cache stream: %lld tiles in flight, %lld iterations each; within a wave a tile drifts %.2g iterations (sd), ",
                static_cast<long long>(s.tiles_in_flight), static_cast<long long>(s.steps), s.drift_sd);
  std::string text = buf;
  if (s.wave_growth > 0) std::snprintf(buf, sizeof buf, "each wave's starts widen by %.2g%% of a tile", 100 * s.wave_growth);
  else if (s.tile_rate_sd > 0) std::snprintf(buf, sizeof buf, "across waves a tile's own speed varies by %.2g%%", 100 * s.tile_rate_sd);
  else std::snprintf(buf, sizeof buf, "across waves the tiles keep pace");
  text += buf;
  if (s.own_rate_sd > 0) {  // held back by its waves at first (cache::StreamTiming::held_waves)
    // Wave numbers from 1 (the model's waves count from 0).
    if (s.held_waves >= 1000000)
      std::snprintf(buf, sizeof buf, ", held back where a laggard catches up on its partners' blocks, its wave reading %s over the loop: its waves hold together",
                    format_bytes(s.wave_footprint).c_str());
    else
      std::snprintf(buf, sizeof buf,
                    ", held back where a laggard catches up on its partners' blocks, its wave reading %s over the loop: "
                    "its waves hold together up to wave %lld and part wholly from wave %lld on",
                    format_bytes(s.wave_footprint).c_str(), static_cast<long long>(s.held_waves + 1),
                    static_cast<long long>(s.parted_wave + 1));
    text += buf;
  }
  if (s.fill_window > 0) {
    std::snprintf(buf, sizeof buf, "; a miss merges other SMs' reads of its block for %.3g iterations", s.fill_window);
    text += buf;
  }
  return text + ".";
}

}  // namespace

std::string format_percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", x * 100);
  return buf;
}

// Binary multiples with their IEC names, three significant digits: what the app shows too
// (ui/format.h), so a figure reads the same in the CLI, the diagnosis and the app.
std::string format_bytes(double b) {
  constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t u = 0;
  while (std::fabs(b) >= 1024 * 0.9995 && u + 1 < kUnits.size()) {  // 1023.9 KiB reads 1 MiB
    b /= 1024;
    ++u;
  }
  const int magnitude = b == 0 ? 0 : static_cast<int>(std::floor(std::log10(std::fabs(b))));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", std::max(0, 2 - magnitude), b);
  std::string number = buf;
  if (number.find('.') != std::string::npos) {
    number.erase(number.find_last_not_of('0') + 1);
    if (number.back() == '.') number.pop_back();
  }
  return number + " " + kUnits[u];
}

namespace {

std::string bottleneck_sentence(const Prediction& p) {
  std::string s = std::string(resource_label(p.bottleneck)) + " " +
                  format_percent(p.utilization[index(p.bottleneck)]) + " busy: the bottleneck";
  // Name the runner-up when it is close: two pipelines near saturation overlap well.
  Resource second = p.bottleneck;
  double best = -1;
  for (Resource r : kAllResources)
    if (r != p.bottleneck && p.utilization[index(r)] > best) {
      best = p.utilization[index(r)];
      second = r;
    }
  if (best > 0.05)
    s += "; next is " + std::string(resource_label(second)) + " at " + format_percent(best);
  return s + ".";
}

std::string loop_sentence(const LoopReport& l, std::int64_t resident) {
  std::string s = "Loop " + l.loop + " (" + std::to_string(l.iterations) + " iterations per SM, depth " +
                  std::to_string(l.depth) + ") is bound by " + l.limited_by + " in the steady state: " +
                  format_us(l.steady_us) + " per iteration";
  if (l.limited_by == "memory latency") {
    s += " against " + format_us(l.throughput_us) + " of pipeline work; only " +
         std::to_string(std::max<std::int64_t>(l.depth, 1)) + " iterations of loads are in flight with " +
         std::to_string(resident) + " resident block(s), so more stages or resident blocks would hide it.";
  } else if (l.limited_by == "dependency chain") {
    s += ": the actions of one iteration wait on each other (" + format_us(l.chain_us) +
         " in order) longer than the pipelines are busy (" + format_us(l.throughput_us) + ").";
  } else if (l.mma_exposed_us > 0.02 * l.steady_us) {
    s += ": its busiest pipeline's work plus " + format_us(l.mma_exposed_us) +
         (l.serial_mma ? " while the warps copy the next stage after their MMAs: the compiler serialises this tile's "
                         "wgmma (ptxas C7515, a 256-wide tile on 8 warps with B K-major); 4 warps, a 128-wide tile "
                         "or B stored K x N keep them asynchronous."
                       : " of MMA that the next stage's load does not overlap (the same warps issue both; more stages "
                         "hide more of it).");
  } else {
    s += ", the sum of work on its busiest pipeline.";
  }
  return s;
}

}  // namespace

std::vector<std::string> diagnose(const Prediction& p) {
  std::vector<std::string> out;
  out.push_back(bottleneck_sentence(p));
  for (const auto& l : p.loops) out.push_back(loop_sentence(l, p.resident_blocks_per_sm));
  std::string w = std::to_string(p.blocks) + " blocks run in " + std::to_string(p.waves) + " wave(s), " +
                  std::to_string(p.resident_blocks_per_sm) + " resident per SM (limited by " +
                  p.occupancy_limiter + ")";
  for (const auto& wr : p.wave_reports)
    if (wr.kind == "tail")
      w += "; the tail wave keeps " + std::to_string(wr.active_sms) + " SMs busy for " + format_us(wr.time_us);
  out.push_back(w + ".");
  if (p.launch_overhead_us > 0.2 * p.latency_us)
    out.push_back("Launch overhead (" + format_us(p.launch_overhead_us) + ") is " +
                  format_percent(p.launch_overhead_us / p.latency_us) + " of the latency: the kernel is too small to fill the GPU for long.");
  if (p.clock_factor < 0.995)
    out.push_back("Tensor-core pipelines run at " + format_percent(p.clock_factor) +
                  " of their short-kernel rate: a kernel this long is held to the power-limited sustained clock.");
  // Register spills: every spilled sector is an L2 lookup (cache::local_traffic), and where a
  // kernel spills they can be most of the lookups behind the hit rate.
  double lookups = 0, spilled = 0;
  for (const auto& t : p.tensors) {
    lookups += t.l2_lookup_bytes;
    if (t.tensor == cache::kSpillStores || t.tensor == cache::kSpillLoads) spilled += t.l2_lookup_bytes;
  }
  const std::string spills = spilled > 0 && lookups > 0
      ? ", " + format_percent(spilled / lookups) + " of its lookups register spills (local memory)"
      : "";
  out.push_back("L2 hit rate " + format_percent(p.l2_hit_rate) + " (" + p.cache_model + ")" + spills +
                "; DRAM traffic " + format_bytes(p.dram_bytes) + ".");
  if (p.cache_stream) out.push_back(stream_sentence(*p.cache_stream));
  return out;
}

}  // namespace tilesight::report
