// The Chrome trace of a timeline: named process and threads, lanes in order, and slices that
// nest on every thread (two bars overlapping on one pipeline take two slots), by hand.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "tilesight/report/chrome_trace.h"

using namespace tilesight;

namespace {

report::TimelineEvent bar(const char* action, Resource r, double start, double end) {
  return {.action = action, .resource = r, .start_us = start, .end_us = end, .iteration = 0, .phase = "steady"};
}

std::map<int, std::string> thread_names(const nlohmann::json& trace) {
  std::map<int, std::string> names;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") names[e["tid"].get<int>()] = e["args"]["name"];
  return names;
}

}  // namespace

TEST_CASE("a Chrome trace gives overlapping bars of one pipeline their own slots") {
  report::Prediction p;
  p.name = "gemm 4096^3";
  p.hardware = "h200";
  // Two loads in flight together on L2 (0-2 and 1-3 overlap), a third after the first:
  // slots L2 (0-2, 2-4) and L2 #2 (1-3). The MMA alone on TC.
  p.timeline = {bar("load_a", Resource::kL2, 0, 2), bar("load_b", Resource::kL2, 1, 3),
                bar("load_a", Resource::kL2, 2, 4), bar("mma", Resource::kTC, 3, 5)};
  const auto trace = report::to_chrome_trace(p);
  bool process_named = false;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") process_named = e["args"]["name"] == "gemm 4096^3 on h200";
  CHECK(process_named);
  const auto names = thread_names(trace);
  const int l2 = static_cast<int>(index(Resource::kL2)) * 100;
  CHECK(names == std::map<int, std::string>{{0, "TC"}, {l2, "L2"}, {l2 + 1, "L2 #2"}});
  std::map<int, std::vector<std::pair<double, double>>> slices;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X") slices[e["tid"].get<int>()].emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
  CHECK(slices[l2] == std::vector<std::pair<double, double>>{{0, 2}, {2, 4}});
  CHECK(slices[l2 + 1] == std::vector<std::pair<double, double>>{{1, 3}});
  CHECK(slices[0] == std::vector<std::pair<double, double>>{{3, 5}});
}

TEST_CASE("a Chrome trace carries the busiest link's stages, every run") {
  report::Prediction p;
  p.kernel = "llm_decode";
  p.hardware = "h200x8";
  p.network.collectives.push_back({.collective = "all_reduce"});
  p.network.links = {{.link = "gpu0->nvswitch", .busy_us = 2}, {.link = "gpu1->nvswitch", .busy_us = 1}};
  p.network.events = {{.link = "gpu0->nvswitch", .collective = "all_reduce", .stage = 0, .label = "ring step",
                       .start_us = 10, .end_us = 11, .bytes = 64, .runs = 3, .period_us = 100},
                      {.link = "gpu1->nvswitch", .collective = "all_reduce", .stage = 0, .label = "ring step",
                       .start_us = 10, .end_us = 11, .bytes = 64}};
  const auto trace = report::to_chrome_trace(p);
  std::vector<double> starts;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X") {
      CHECK(e["name"] == "all_reduce ring step 0");
      CHECK(e["args"]["link"] == "gpu0->nvswitch");
      starts.push_back(e["ts"].get<double>());
    }
  CHECK(starts == std::vector<double>{10, 110, 210});
  CHECK(thread_names(trace).at(static_cast<int>(index(Resource::kNet)) * 100) == "Net (gpu0->nvswitch)");
}

TEST_CASE("a Chrome trace of overlap none puts the kernel after the collective before it") {
  // ag_gemm without overlap: the all-gather 0-300 us, then the GEMM 300-1000 us; the SM's
  // first bar (0-2 us on the kernel's clock) lands at 300 us, the link's stage stays at 0.
  report::Prediction p;
  p.kernel = "ag_gemm";
  p.timeline = {bar("load_a", Resource::kL2, 0, 2)};
  p.network.overlap = "none";
  p.network.schedule = {{.compute = false, .index = 0, .start_us = 0, .end_us = 300},
                        {.compute = true, .index = 0, .start_us = 300, .end_us = 1000}};
  p.network.links = {{.link = "gpu0->nvswitch", .busy_us = 300}};
  p.network.events = {{.link = "gpu0->nvswitch", .collective = "all_gather", .stage = 0, .label = "ring step",
                       .start_us = 0, .end_us = 300, .bytes = 64}};
  auto starts = [](const nlohmann::json& trace) {
    std::map<std::string, double> out;
    for (const auto& e : trace["traceEvents"])
      if (e["ph"] == "X") out[e["cat"].get<std::string>()] = e["ts"].get<double>();
    return out;
  };
  CHECK(starts(report::to_chrome_trace(p)) == std::map<std::string, double>{{"steady", 300}, {"network", 0}});
  p.network.overlap = "fused";  // overlapped: one clock from the launch
  CHECK(starts(report::to_chrome_trace(p)) == std::map<std::string, double>{{"steady", 0}, {"network", 0}});
}
