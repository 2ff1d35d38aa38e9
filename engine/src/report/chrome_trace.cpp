#include "tilesight/report/chrome_trace.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tilesight::report {

namespace {

constexpr int kSlotsPerLane = 100;  // tid = lane * 100 + slot

// The first slot of the lane free at `start` (its last bar ended), else a new one.
int slot_for(std::vector<double>& slot_end, double start, double end) {
  constexpr double kTouch = 1e-9;  // bars that only touch share a slot
  for (std::size_t s = 0; s < slot_end.size(); ++s)
    if (slot_end[s] <= start + kTouch) {
      slot_end[s] = end;
      return static_cast<int>(s);
    }
  slot_end.push_back(end);
  return static_cast<int>(slot_end.size() - 1);
}

nlohmann::json thread_meta(const char* what, int tid, const nlohmann::json& args) {
  return {{"ph", "M"}, {"name", what}, {"pid", 0}, {"tid", tid}, {"args", args}};
}

}  // namespace

nlohmann::json to_chrome_trace(const Prediction& p) {
  nlohmann::json events = nlohmann::json::array();
  const std::string kernel = p.name.empty() ? p.kernel : p.name;
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 0},
                    {"args", {{"name", kernel + " on " + p.hardware}}}});
  std::vector<std::vector<double>> slot_end(kResourceCount);
  std::vector<int> named;  // tids given a name
  auto thread = [&](Resource r, int slot, const std::string& suffix) {
    const int tid = static_cast<int>(index(r)) * kSlotsPerLane + slot;
    if (std::find(named.begin(), named.end(), tid) == named.end()) {
      named.push_back(tid);
      std::string name(resource_lane(r));
      if (slot > 0) name += " #" + std::to_string(slot + 1);
      events.push_back(thread_meta("thread_name", tid, {{"name", name + suffix}}));
      events.push_back(thread_meta("thread_sort_index", tid, {{"sort_index", tid}}));
    }
    return tid;
  };
  // Overlap none: the kernel starts where its compute span does (after ag_gemm's all-gather,
  // Ulysses' first all-to-all), on the collectives' clock; overlapped, both start together.
  double sm_start = 0;
  if (p.network.overlap == "none")
    for (const auto& s : p.network.schedule)
      if (s.compute) sm_start = s.start_us;
  for (const auto& e : p.timeline) {  // sorted by start: greedy slots are enough
    const int slot = slot_for(slot_end[index(e.resource)], e.start_us, e.end_us);
    events.push_back({{"ph", "X"}, {"name", e.action}, {"cat", e.phase}, {"pid", 0},
                      {"tid", thread(e.resource, slot, "")}, {"ts", sm_start + e.start_us}, {"dur", e.end_us - e.start_us},
                      {"args", {{"iteration", e.iteration}, {"bytes", e.bytes}, {"flops", e.flops}}}});
  }
  // The busiest link's collective stages (a fused kernel's Net lane, as the app draws it;
  // a collective's or a decode step's busiest link), every repeat and every run.
  if (!p.network.links.empty()) {
    const std::string& link = p.network.links.front().link;
    struct Stage {
      double start, end;
      std::string name;
      double bytes;
    };
    std::vector<Stage> stages;
    for (const auto& s : p.network.events)
      if (s.link == link)
        for_each_stage_run(s, [&](std::int64_t stage, double start, double end) {
          stages.push_back({start, end, s.collective + " " + s.label + " " + std::to_string(stage), s.bytes});
        });
    std::stable_sort(stages.begin(), stages.end(), [](const Stage& a, const Stage& b) { return a.start < b.start; });
    std::vector<double> net_slots;
    for (const auto& s : stages) {
      const int slot = slot_for(net_slots, s.start, s.end);
      events.push_back({{"ph", "X"}, {"name", s.name}, {"cat", "network"}, {"pid", 0},
                        {"tid", thread(Resource::kNet, slot, " (" + link + ")")}, {"ts", s.start},
                        {"dur", s.end - s.start}, {"args", {{"link", link}, {"bytes", s.bytes}}}});
    }
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
}

}  // namespace tilesight::report
