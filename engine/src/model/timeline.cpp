#include "tilesight/model/timeline.h"

#include <algorithm>

namespace tilesight::model {

namespace {

constexpr double kUs = 1e6;

struct Emitter {
  const plan::TileProgram& program;
  std::vector<report::TimelineEvent>& out;

  void item(const BodyItem& it, double start, std::int64_t iteration, const char* phase) {
    const plan::TileAction* a =
        it.action_indices.size() == 1 ? &program.actions[it.action_indices.front()] : nullptr;
    for (Resource r : kAllResources) {
      const double d = it.u[r];
      if (d <= 0) continue;
      out.push_back({.action = it.name, .resource = r, .start_us = start * kUs,
                     .end_us = (start + d) * kUs, .iteration = iteration, .phase = phase,
                     .bytes = a ? a->bytes : 0, .flops = a ? a->flops : 0});
    }
  }

  // Items of one segment back to back on their pipelines.
  double segment(const std::vector<BodyItem>& items, double t, const char* phase) {
    double end = t;
    std::array<double, kResourceCount> free{};
    free.fill(t);
    for (const auto& it : items) {
      double start = t;
      for (std::size_t r = 0; r < kResourceCount; ++r)
        if (it.u.t[r] > 0) start = std::max(start, free[r]);
      start += it.latency;
      item(it, start, -1, phase);
      for (std::size_t r = 0; r < kResourceCount; ++r)
        if (it.u.t[r] > 0) free[r] = start + it.u.t[r];
      end = std::max(end, start + it.duration);
    }
    return end;
  }

  // Loads of iteration i are issued i steady periods after the first (back to back while the
  // pipeline fills); compute of iteration i starts when its data has arrived and the chain of
  // iteration i - 1 has advanced one steady period. Returns when the last bar drawn ends.
  double loop(const LoopAnalysis& la, double t0, int shown) {
    const auto& env = la.envelope;
    const std::int64_t n = env.iterations;
    std::vector<std::int64_t> iters;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(n, shown); ++i) iters.push_back(i);
    if (n > shown) iters.push_back(n - 1);
    const double data_ready = la.first_load_latency + la.first_loads;
    // One SM's pipelines serialise: a bar never starts before the previous one on its lane
    // ends. Loads run ahead of compute (prefetch), so each stream keeps its own lane clock.
    std::array<double, kResourceCount> load_free{}, compute_free{};
    load_free.fill(t0);
    compute_free.fill(t0);
    double end = t0;
    for (auto i : iters) {
      const double di = static_cast<double>(i);
      const double dd = static_cast<double>(env.depth);
      const char* phase = i < env.depth ? "prologue" : (i == n - 1 ? "epilogue" : "steady");
      double load_offset = 0;
      for (auto k : la.best_order) {
        const auto& it = la.items[k];
        double start;
        if (it.is_load) {
          // Fill: back to back; afterwards a slot frees each steady period.
          start = (i < env.depth ? t0 + di * la.first_loads : t0 + data_ready + (di - dd) * env.steady) +
                  load_offset;
          double mem = 0;
          for (Resource r : {Resource::kL15, Resource::kL2, Resource::kDram}) mem = std::max(mem, it.u[r]);
          load_offset += mem;
        } else {
          start = t0 + data_ready + di * env.steady + it.chain_offset;
        }
        auto& lane_free = it.is_load ? load_free : compute_free;
        for (std::size_t r = 0; r < kResourceCount; ++r)
          if (it.u.t[r] > 0) start = std::max(start, lane_free[r]);
        for (std::size_t r = 0; r < kResourceCount; ++r)
          if (it.u.t[r] > 0) lane_free[r] = start + it.u.t[r];
        item(it, start, i, phase);
        end = std::max(end, start + it.duration);
      }
    }
    return end;
  }
};

}  // namespace

std::vector<report::TimelineEvent> build_timeline(const plan::TileProgram& program,
                                                  const WaveTime& wave, int iterations) {
  std::vector<report::TimelineEvent> events;
  Emitter e{program, events};
  double t = e.segment(wave.head_items, 0.0, "prologue");
  // What follows a loop starts after its envelope and after its last iteration's bars: a
  // row walk's last iteration (Loop::register_loads) waits its loads' latency past the
  // envelope's epilogue, and the tail (the norms' block-wide combine) needs its results.
  for (const auto& la : wave.loops) t = std::max(t + la.envelope.total(), e.loop(la, t, iterations));
  e.segment(wave.tail_items, t, "epilogue");
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    return a.start_us < b.start_us;
  });
  return events;
}

}  // namespace tilesight::model
