#include "tilesight/report/json_report.h"

#include <algorithm>
#include <cmath>

namespace tilesight::report {

namespace {

// Rounded to 6 significant digits so reports are stable across compilers and readable.
double r6(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, 5 - static_cast<int>(std::floor(std::log10(std::fabs(x)))));
  return std::round(x * scale) / scale;
}

nlohmann::json per_resource(const std::array<double, kResourceCount>& v) {
  nlohmann::json j = nlohmann::json::object();
  for (Resource r : kAllResources) j[std::string(resource_key(r))] = r6(v[index(r)]);
  return j;
}

nlohmann::json loops_json(const Prediction& p) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& l : p.loops) {
    arr.push_back({{"loop", l.loop}, {"iterations", l.iterations}, {"depth", l.depth},
                   {"prologue_us", r6(l.prologue_us)}, {"steady_us", r6(l.steady_us)},
                   {"epilogue_us", r6(l.epilogue_us)}, {"total_us", r6(l.total_us)},
                   {"throughput_us", r6(l.throughput_us)}, {"chain_us", r6(l.chain_us)},
                   {"latency_floor_us", r6(l.latency_floor_us)}, {"mma_exposed_us", r6(l.mma_exposed_us)}, {"limited_by", l.limited_by},
                   {"best_order", l.best_order}, {"order_search", l.order_search},
                   {"legal_orders", l.legal_orders}, {"legal_orders_exact", l.legal_orders_exact},
                   {"steady_bottleneck", resource_key(l.steady_bottleneck)}, {"tc_us", r6(l.tc_us)},
                   {"sfu_us", r6(l.sfu_us)}, {"cuda_us", r6(l.cuda_us)}, {"sfu_hidden", r6(l.sfu_hidden)},
                   {"cuda_hidden", r6(l.cuda_hidden)}});
    if (l.serial_mma) arr.back()["serial_mma"] = true;  // absent when false, as in the plan format
  }
  return arr;
}

nlohmann::json waves_json(const Prediction& p) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& w : p.wave_reports)
    arr.push_back({{"kind", w.kind}, {"count", w.count}, {"active_sms", w.active_sms},
                   {"resident", w.resident}, {"time_us", r6(w.time_us)},
                   {"prologue_us", r6(w.prologue_us)}, {"steady_us", r6(w.steady_us)},
                   {"epilogue_us", r6(w.epilogue_us)}});
  return arr;
}

nlohmann::json tensors_json(const Prediction& p) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& t : p.tensors)
    arr.push_back({{"tensor", t.tensor}, {"requested_bytes", r6(t.requested_bytes)},
                   {"dram_bytes", r6(t.dram_bytes)}, {"l2_hit_rate", r6(t.l2_hit_rate)},
                   {"l2_merged_bytes", r6(t.l2_merged_bytes)}, {"l2_lookup_bytes", r6(t.l2_lookup_bytes)},
                   {"l2_hit_bytes", r6(t.l2_hit_bytes)}, {"l2_far_lookup_bytes", r6(t.l2_far_lookup_bytes)},
                   {"l2_far_hit_bytes", r6(t.l2_far_hit_bytes)}});
  return arr;
}

// The cache model's stream in time (cache::StreamTiming): what sets its reuse gaps and merges.
nlohmann::json stream_json(const cache::StreamTiming& s) {
  return {{"tiles_in_flight", s.tiles_in_flight}, {"steps", s.steps}, {"drift_sd", r6(s.drift_sd)},
          {"tile_rate_sd", r6(s.tile_rate_sd)}, {"own_rate_sd", r6(s.own_rate_sd)},
          {"wave_footprint_bytes", r6(s.wave_footprint)}, {"held_waves", s.held_waves},
          {"parted_wave", s.parted_wave}, {"wave_growth", r6(s.wave_growth)},
          {"fill_window", r6(s.fill_window)}, {"hit_window", r6(s.hit_window)}};
}

nlohmann::json timeline_json(const Prediction& p) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& e : p.timeline)
    arr.push_back({{"action", e.action}, {"resource", std::string(resource_key(e.resource))},
                   {"start_us", r6(e.start_us)}, {"end_us", r6(e.end_us)}, {"iteration", e.iteration},
                   {"phase", e.phase}, {"bytes", r6(e.bytes)}, {"flops", r6(e.flops)}});
  return arr;
}

// The cache model's per-tile maps: one a tensor and level, rows x cols cells row-major over the
// grid's last two dims (a GEMM's block rows and columns), leading dims averaged.
nlohmann::json maps_json(const Prediction& p) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& m : p.hit_rate_maps) {
    nlohmann::json hit = nlohmann::json::array(), distance = nlohmann::json::array();
    for (const double v : m.hit_rate) hit.push_back(r6(v));
    for (const double v : m.reuse_distance) distance.push_back(r6(v));
    arr.push_back({{"tensor", m.tensor}, {"level", m.level}, {"rows", m.rows}, {"cols", m.cols},
                   {"row_dim", m.row_dim}, {"col_dim", m.col_dim}, {"hit_rate", hit}, {"reuse_distance", distance}});
  }
  return arr;
}

// The JSON lists at most this many stage loads (a ring on 32 GPUs runs 62 steps on 128
// links); the app reads every stage from the Prediction itself.
constexpr std::size_t kMaxListedStages = 2000;

nlohmann::json network_json(const NetworkReport& n, bool events) {
  nlohmann::json j;
  j["system"] = n.system;
  nlohmann::json cs = nlohmann::json::array();
  for (const auto& c : n.collectives)
    cs.push_back({{"collective", c.collective}, {"algorithm", c.algorithm}, {"protocol", c.protocol},
                  {"devices", c.devices}, {"bytes", std::round(c.bytes)}, {"start_us", r6(c.start_us)},
                  {"time_us", r6(c.time_us)}, {"algbw_gbps", r6(c.algbw_gbps)}, {"busbw_gbps", r6(c.busbw_gbps)},
                  {"bottleneck_link", c.bottleneck_link}, {"stages", c.stages}, {"runs", c.runs},
                  {"period_us", r6(c.period_us)}});
  j["collectives"] = cs;
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : n.links)
    links.push_back({{"link", l.link}, {"type", l.type}, {"bytes", std::round(l.bytes)}, {"busy_us", r6(l.busy_us)},
                     {"utilization", r6(l.utilization)}});
  j["links"] = links;
  j["bottleneck_link"] = n.bottleneck_link;
  if (!n.overlap.empty()) {
    j["overlap"] = n.overlap;
    j["comm_us"] = r6(n.comm_us);
    j["compute_us"] = r6(n.compute_us);
    j["overlap_rate"] = r6(n.overlap_rate);
    j["comm_sms"] = n.comm_sms;
  }
  if (events) {
    // One entry per link and stage, repeats written out in stage order (a stage's links, then
    // the next repeat's), at most kMaxListedStages: the rest are counted in stages_dropped.
    nlohmann::json ev = nlohmann::json::array();
    std::int64_t dropped = 0;
    for (std::size_t first = 0; first < n.events.size();) {
      std::size_t last = first + 1;  // [first, last): the links of one stage
      while (last < n.events.size() && n.events[last].collective == n.events[first].collective &&
             n.events[last].stage == n.events[first].stage && n.events[last].start_us == n.events[first].start_us)
        ++last;
      const auto loads = static_cast<std::int64_t>(last - first);
      const std::int64_t repeat = std::max<std::int64_t>(n.events[first].repeat, 1);
      for (std::int64_t r = 0; r < repeat; ++r) {
        if (ev.size() + (last - first) > kMaxListedStages) {
          dropped += (repeat - r) * loads;
          break;
        }
        for (std::size_t i = first; i < last; ++i) {
          const auto& e = n.events[i];
          const double shift = static_cast<double>(r) * e.step_us;
          ev.push_back({{"link", e.link}, {"collective", e.collective}, {"stage", e.stage + r}, {"label", e.label},
                        {"start_us", r6(e.start_us + shift)}, {"end_us", r6(e.end_us + shift)},
                        {"bytes", std::round(e.bytes)}});
          if (e.runs > 1) {
            ev.back()["runs"] = e.runs;
            ev.back()["period_us"] = r6(e.period_us);
          }
        }
      }
      first = last;
    }
    j["stages"] = ev;
    j["stages_dropped"] = dropped;
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const Prediction& p, const JsonOptions& options) {
  nlohmann::json j;
  j["kernel"] = p.kernel;
  j["name"] = p.name;
  j["hardware"] = p.hardware;
  j["profile_source"] = hw::profile_source_name(p.profile_source);
  j["latency_us"] = r6(p.latency_us);
  j["prologue_us"] = r6(p.prologue_us);
  j["steady_us"] = r6(p.steady_us);
  j["epilogue_us"] = r6(p.epilogue_us);
  j["launch_overhead_us"] = r6(p.launch_overhead_us);
  j["waves"] = p.waves;
  j["blocks"] = p.blocks;
  j["resident_blocks_per_sm"] = p.resident_blocks_per_sm;
  j["occupancy_limiter"] = p.occupancy_limiter;
  j["bottleneck"] = std::string(resource_key(p.bottleneck));
  j["utilization"] = per_resource(p.utilization);
  j["busy_us"] = per_resource(p.busy_us);
  j["flops"] = r6(p.flops);
  j["tflops"] = r6(p.achieved_flops_per_s / 1e12);
  j["clock_factor"] = r6(p.clock_factor);
  j["cache_model"] = p.cache_model;
  j["l2_hit_rate"] = r6(p.l2_hit_rate);
  j["l2_load_hit_rate"] = r6(p.l2_load_hit_rate);
  j["dram_bytes"] = r6(p.dram_bytes);
  j["dram_read_bytes"] = r6(p.dram_read_bytes);
  j["dram_write_bytes"] = r6(p.dram_write_bytes);
  if (p.serve.step_us > 0) {
    j["step_us"] = r6(p.serve.step_us);
    j["tokens_per_s"] = r6(p.serve.tokens_per_s);
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& [op, us] : p.serve.per_layer_us) ops.push_back({{"op", op}, {"us", r6(us)}});
    j["step_ops"] = ops;
  }
  if (!p.network.empty()) {
    j["bottleneck_link"] = p.network.bottleneck_link;
    if (!p.network.overlap.empty()) j["overlap_rate"] = r6(p.network.overlap_rate);
    j["network"] = network_json(p.network, options.detail);
  }
  if (options.detail) {
    j["loops"] = loops_json(p);
    j["wave_detail"] = waves_json(p);
    j["tensors"] = tensors_json(p);
    if (p.cache_stream) j["cache_stream"] = stream_json(*p.cache_stream);
    j["diagnosis"] = p.diagnosis;
    if (!p.warnings.empty()) j["warnings"] = p.warnings;
  }
  if (options.timeline) j["timeline"] = timeline_json(p);
  if (options.maps) j["hit_rate_maps"] = maps_json(p);
  return j;
}

}  // namespace tilesight::report
