#include "tilesight/net/network_report.h"

#include <algorithm>

namespace tilesight::net {

namespace {
constexpr double kUs = 1e6;
}

report::CollectiveReport collective_report(const NetworkHierarchy& net, const ScheduledCollective& c) {
  report::CollectiveReport r{.collective = std::string(collective_name(c.cost.collective)),
                             .algorithm = c.cost.algorithm,
                             .protocol = std::string(protocol_name(c.cost.protocol)),
                             .devices = static_cast<std::int64_t>(c.cost.ranks),
                             .bytes = c.cost.bytes,
                             .start_us = c.start_s * kUs,
                             .time_us = c.cost.total_s * kUs,
                             .algbw_gbps = c.cost.algbw() / 1e9,
                             .busbw_gbps = c.cost.busbw() / 1e9,
                             .runs = c.runs,
                             .period_us = c.runs > 1 ? c.period_s * kUs : 0};
  double worst = -1;
  for (const auto& st : c.cost.stages) {
    r.stages += st.repeat;
    if (!st.cost.loads.empty() && st.cost.serialisation_s * static_cast<double>(st.repeat) > worst) {
      worst = st.cost.serialisation_s * static_cast<double>(st.repeat);
      r.bottleneck_link = net.links()[st.cost.bottleneck_link].name;
    }
  }
  return r;
}

report::NetworkReport network_report(const SystemSpec& system, const std::vector<ScheduledCollective>& collectives,
                                     double latency_s) {
  const NetworkHierarchy& net = system.network;
  report::NetworkReport out;
  out.system = system.name;
  std::vector<double> bytes(net.links().size(), 0.0), busy(net.links().size(), 0.0);
  for (const auto& c : collectives) {
    out.collectives.push_back(collective_report(net, c));
    out.comm_us += c.cost.total_s * static_cast<double>(c.runs) * kUs;
    // Stages run one after another after the launch latency; a repeated stage (a ring step)
    // is one event per link with its repeat count, and so is every run of a recurring
    // collective: every stage is listed, in a few events however long the ring.
    double t = c.start_s + c.cost.base_s;
    std::int64_t index = 0;
    for (const auto& st : c.cost.stages) {
      for (const auto& load : st.cost.loads) {
        bytes[load.link] += load.bytes * static_cast<double>(st.repeat * c.runs);
        busy[load.link] += load.busy_s * static_cast<double>(st.repeat * c.runs);
        out.events.push_back({.link = net.links()[load.link].name,
                              .collective = std::string(collective_name(c.cost.collective)),
                              .stage = index,
                              .label = st.label,
                              .start_us = (t + st.cost.latency_s) * kUs,
                              .end_us = (t + st.cost.latency_s + load.busy_s) * kUs,
                              .bytes = load.bytes,
                              .repeat = st.repeat,
                              .step_us = st.cost.time_s() * kUs,
                              .runs = c.period_s > 0 ? c.runs : 1,
                              .period_us = c.period_s > 0 ? c.period_s * kUs : 0});
      }
      index += st.repeat;
      t += static_cast<double>(st.repeat) * st.cost.time_s();
    }
  }
  for (std::size_t l = 0; l < bytes.size(); ++l) {
    if (bytes[l] <= 0) continue;
    out.links.push_back({.link = net.links()[l].name, .type = net.type_of(l).name, .bytes = bytes[l],
                         .busy_us = busy[l] * kUs,
                         .utilization = latency_s > 0 ? std::min(1.0, busy[l] / latency_s) : 0});
  }
  std::stable_sort(out.links.begin(), out.links.end(),
                   [](const auto& a, const auto& b) { return a.busy_us > b.busy_us; });
  if (!out.links.empty()) out.bottleneck_link = out.links.front().link;
  return out;
}

}  // namespace tilesight::net
