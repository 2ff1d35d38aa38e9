// A standalone collective as a prediction: the launch latency is the prologue, the ordered
// stages the steady part (§3.6, T_c = Σ_k T_k); the Net pipeline is the only one busy.
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "cross_device.h"
#include "tilesight/model/distributed.h"
#include "tilesight/net/network_report.h"
#include "tilesight/util/format.h"

namespace tilesight::model {

namespace {

constexpr double kUs = 1e6;

std::string si_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g %s", b, units[u]);
  return buf;
}

}  // namespace

Result<report::Prediction> evaluate_collective(const kernels::CollectiveParams& p, const net::SystemSpec& system) {
  if (auto bad = devices_error(p.devices, system)) return *bad;
  net::CollectiveRequest request{.collective = p.collective, .bytes = p.bytes};
  request.group.resize(static_cast<std::size_t>(p.devices));
  std::iota(request.group.begin(), request.group.end(), std::size_t{0});
  auto cost = net::tune_collective(system.network, request, {.algorithm = p.algorithm, .protocol = p.protocol});
  if (!cost) return cost.errors();

  report::Prediction pred;
  pred.kernel = std::string(net::collective_name(p.collective));
  pred.name = pred.kernel + " " + si_bytes(p.bytes) + " on " + std::to_string(p.devices) + " GPUs";
  pred.hardware = system.name;
  pred.profile_source = system.profile_source;
  pred.latency_us = cost->total_s * kUs;
  pred.launch_overhead_us = cost->base_s * kUs;
  pred.prologue_us = pred.launch_overhead_us;
  pred.steady_us = pred.latency_us - pred.prologue_us;
  pred.waves = 1;
  pred.occupancy_limiter = "collective (no tile grid)";
  pred.cache_model = "none (collective)";
  pred.network = net::network_report(system, {{*cost, 0.0}}, cost->total_s);
  const double net_busy = pred.network.links.empty() ? 0 : pred.network.links.front().busy_us;
  pred.busy_us[index(Resource::kNet)] = net_busy;
  pred.utilization[index(Resource::kNet)] = pred.latency_us > 0 ? std::min(1.0, net_busy / pred.latency_us) : 0;
  pred.bottleneck = Resource::kNet;
  const auto& c = pred.network.collectives.front();
  pred.diagnosis.push_back(c.algorithm + " / " + c.protocol + " (chosen " +
                           std::string(p.algorithm ? "by the plan" : "by the tuner, as NCCL's") + "): " +
                           std::to_string(c.stages) + " stages; algbw " + fmt("%.4g", c.algbw_gbps) +
                           " GB/s, busbw " + fmt("%.4g", c.busbw_gbps) + " GB/s.");
  const bool channel_bound = std::any_of(cost->stages.begin(), cost->stages.end(),
                                         [](const net::StageTiming& st) { return st.cost.channel_bound(); });
  if (channel_bound)
    pred.diagnosis.push_back("NCCL's " + std::to_string(cost->channels) + " channels (one CTA each) send " +
                             fmt("%.4g", cost->send_rate / 1e9) + " GB/s per GPU, less than the links carry: "
                             "the channels, not the links, set the pace (measured, hw profile \"nccl_channels\").");
  if (!pred.network.links.empty()) {
    const auto& b = pred.network.links.front();
    pred.diagnosis.push_back("Bottleneck link " + b.link + " (" + b.type + ") busy " +
                             fmt("%.1f", 100 * b.utilization) + "% of the time; the rest is per-hop latency (" +
                             fmt("%.3g", pred.latency_us - b.busy_us) + " us).");
  }
  if (system.profile_source == hw::ProfileSource::kMeasured)
    pred.diagnosis.push_back("Link bandwidth and latencies measured on this system (the profile names each source); "
                             "protocol bandwidth shares from " + std::string(net::kProtocolSource) + ".");
  else
    pred.diagnosis.push_back("Link bandwidths and latencies are datasheet and NCCL-model figures (" +
                             std::string(net::kProtocolSource) + "), not yet measured on this system.");
  return pred;
}

}  // namespace tilesight::model
