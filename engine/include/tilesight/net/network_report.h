// From collective costs to the report's plain values (report::NetworkReport): per-link
// utilisation, the bottleneck link and the Network lanes' events (one per link and stage,
// a stage repeated back to back one event with its count).
//
//   link               stage  start_us   end_us   bytes
//   gpu0->nvswitch         0     8.40    381.3    134217728   (ring reduce-scatter step)
#pragma once

#include <vector>

#include "tilesight/net/collective_cost.h"
#include "tilesight/net/system_profile.h"
#include "tilesight/report/prediction.h"

namespace tilesight::net {

// A collective placed on the prediction's time axis.
struct ScheduledCollective {
  CollectiveCost cost;
  double start_s = 0;     // of the first run
  std::int64_t runs = 1;  // times it runs (a decode step's per-layer all-reduce: layers)
  double period_s = 0;    // runs > 1: from one run's start to the next's (a layer's time)
};

report::NetworkReport network_report(const SystemSpec& system, const std::vector<ScheduledCollective>& collectives,
                                     double latency_s);

report::CollectiveReport collective_report(const NetworkHierarchy& net, const ScheduledCollective& c);

}  // namespace tilesight::net
