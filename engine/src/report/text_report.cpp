#include "tilesight/report/text_report.h"

#include <cstdio>
#include <sstream>

#include "tilesight/report/diagnosis.h"
#include "tilesight/util/format.h"

namespace tilesight::report {

namespace {

void header(std::ostringstream& o, const Prediction& p) {
  o << "TileSight prediction: " << (p.name.empty() ? p.kernel : p.name) << " on " << p.hardware << " ("
    << hw::profile_source_name(p.profile_source) << " profile)\n\n";
  o << "Latency            " << format_us(p.latency_us) << "  (launch overhead "
    << format_us(p.launch_overhead_us) << ")\n";
  o << "Envelope           prologue " << format_us(p.prologue_us) << " | steady " << format_us(p.steady_us)
    << " | epilogue " << format_us(p.epilogue_us) << "\n";
  if (p.blocks == 0 && !p.network.empty()) {  // a standalone collective: no tile grid, no cache
    o << "\n";
    return;
  }
  o << "Blocks             " << p.blocks << " in " << p.waves << (p.waves == 1 ? " wave, " : " waves, ")
    << p.resident_blocks_per_sm << " resident per SM (limited by " << p.occupancy_limiter << ")\n";
  if (p.flops > 0) o << "Throughput         " << fmt("%.4g", p.achieved_flops_per_s / 1e12) << " TFLOP/s\n";
  o << "L2                 hit rate " << format_percent(p.l2_hit_rate) << " (" << p.cache_model
    << "), DRAM " << format_bytes(p.dram_bytes) << "\n\n";
}

void resources(std::ostringstream& o, const Prediction& p) {
  o << "Resource         Busy (us)   Util\n";
  for (Resource r : kAllResources) {
    const double busy = p.busy_us[index(r)];
    if (busy <= 0 && r != p.bottleneck) continue;
    char line[128];
    std::snprintf(line, sizeof line, "%-15s %10.4g %6s", std::string(resource_label(r)).c_str(), busy,
                  format_percent(p.utilization[index(r)]).c_str());
    o << line << (r == p.bottleneck ? "  <- bottleneck" : "") << "\n";
  }
  o << "\n";
}

// A fused body (tensor cores plus SFU or CUDA-core work):
//   steady: bottleneck tensor core; per iteration tensor core 0.97 us, SFU 0.26 us (0% hidden
//   under the tensor cores), CUDA core 0.085 us (0% hidden)
void fused_overlap(std::ostringstream& o, const LoopReport& l) {
  if (l.tc_us <= 0 || (l.sfu_us <= 0 && l.cuda_us <= 0)) return;
  o << "  steady: bottleneck " << resource_label(l.steady_bottleneck) << "; per iteration tensor core "
    << format_us(l.tc_us);
  if (l.sfu_us > 0)
    o << ", SFU " << format_us(l.sfu_us) << " (" << format_percent(l.sfu_hidden) << " hidden under the tensor cores)";
  if (l.cuda_us > 0) o << ", CUDA core " << format_us(l.cuda_us) << " (" << format_percent(l.cuda_hidden) << " hidden)";
  o << "\n";
}

void loops(std::ostringstream& o, const Prediction& p) {
  for (const auto& l : p.loops) {
    o << "Loop " << l.loop << ": " << l.iterations << " iterations per SM, depth " << l.depth << ", "
      << format_us(l.steady_us) << " per iteration (" << l.limited_by << ")\n  order: ";
    for (std::size_t i = 0; i < l.best_order.size(); ++i) o << (i ? " -> " : "") << l.best_order[i];
    o << "   (" << l.order_search << ")\n";
    fused_overlap(o, l);
  }
  if (!p.loops.empty()) o << "\n";
}

// A decode step's operations (llm_decode), per layer unless they run once.
void serve(std::ostringstream& o, const Prediction& p) {
  if (p.serve.step_us <= 0) return;
  o << "Decode step        " << format_us(p.serve.step_us) << ", " << fmt("%.5g", p.serve.tokens_per_s)
    << " tokens/s\n";
  for (const auto& [op, us] : p.serve.per_layer_us) o << "  " << op << ": " << format_us(us) << "\n";
  o << "\n";
}

// The collectives, then the busiest links (at most eight).
void network(std::ostringstream& o, const Prediction& p) {
  const NetworkReport& n = p.network;
  if (n.empty()) return;
  o << "Network on " << n.system << "\n";
  for (const auto& c : n.collectives)
    o << "  " << c.collective << " " << format_bytes(c.bytes) << " on " << c.devices << " GPUs: " << c.algorithm
      << "/" << c.protocol << ", " << c.stages << " stages, " << format_us(c.time_us) << " (algbw "
      << fmt("%.4g", c.algbw_gbps) << " GB/s, busbw " << fmt("%.4g", c.busbw_gbps) << " GB/s)"
      << (c.runs > 1 ? " x " + std::to_string(c.runs) : "") << "\n";
  if (!n.overlap.empty())
    o << "  overlap " << n.overlap << ": communication " << format_us(n.comm_us) << ", computation "
      << format_us(n.compute_us) << ", " << format_percent(n.overlap_rate) << " of the communication hidden\n";
  o << "  Link                 Type          Bytes      Busy (us)   Util\n";
  for (std::size_t i = 0; i < n.links.size() && i < 8; ++i) {
    const auto& l = n.links[i];
    char line[160];
    std::snprintf(line, sizeof line, "  %-20s %-12s %10s %10.4g %6s", l.link.c_str(), l.type.c_str(),
                  format_bytes(l.bytes).c_str(), l.busy_us, format_percent(l.utilization).c_str());
    o << line << (l.link == n.bottleneck_link ? "  <- bottleneck link" : "") << "\n";
  }
  if (n.links.size() > 8) o << "  ... " << n.links.size() - 8 << " more links\n";
  o << "\n";
}

}  // namespace

std::string to_text(const Prediction& p) {
  std::ostringstream o;
  header(o, p);
  resources(o, p);
  loops(o, p);
  serve(o, p);
  network(o, p);
  o << "Diagnosis\n";
  for (const auto& d : p.diagnosis) o << "  - " << d << "\n";
  for (const auto& w : p.warnings) o << "  ! " << w << "\n";
  return o.str();
}

}  // namespace tilesight::report
