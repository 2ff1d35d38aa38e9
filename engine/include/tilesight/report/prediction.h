// What the engine predicts for one kernel: plain values only (no callbacks, no Qt). The CLI
// prints it, the JSON writer serialises it, the GUI's adapters draw it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilesight/cache/stream_timing.h"
#include "tilesight/hw/hardware_spec.h"
#include "tilesight/hw/resource.h"

namespace tilesight::report {

// One bar of a per-pipeline timeline: an action occupying a resource on one SM.
struct TimelineEvent {
  std::string action;
  Resource resource = Resource::kTC;
  double start_us = 0;
  double end_us = 0;
  std::int64_t iteration = -1;  // loop iteration, -1 for tile-body actions
  std::string phase;            // "prologue", "steady", "epilogue"
  double bytes = 0;
  double flops = 0;
};

// The envelope of one loop of the tile body (eq. 2), for the busiest SM of a full wave.
struct LoopReport {
  std::string loop;
  std::int64_t iterations = 0;  // N, resident tiles' iterations included
  std::int64_t depth = 0;       // d = stages * resident - 1 (eq. 3)
  double prologue_us = 0;
  double steady_us = 0;         // per iteration
  double epilogue_us = 0;
  double total_us = 0;
  double throughput_us = 0;     // max_r sum u_r per iteration (eq. 4)
  double chain_us = 0;          // in-order dependency chain per iteration
  double latency_floor_us = 0;  // memory latency / loads in flight
  double mma_exposed_us = 0;    // of the steady iteration: MMA the next stage's load does not overlap
  bool serial_mma = false;      // the compiler serialises the loop's wgmma (plan::Loop::serial_mma)
  std::string limited_by;       // "throughput", "dependency chain" or "memory latency"
  std::vector<std::string> best_order;  // action names, eq. 5
  std::string order_search;             // how the order was found
  std::uint64_t legal_orders = 0;
  bool legal_orders_exact = true;
  // The steady iteration against the tensor cores (fused kernels): its busiest pipeline, the
  // tensor-core, SFU and CUDA-core busy time per iteration, and the share of the SFU and
  // CUDA-core time that runs under the tensor cores' busy time (0..1).
  Resource steady_bottleneck = Resource::kTC;
  double tc_us = 0, sfu_us = 0, cuda_us = 0;
  double sfu_hidden = 0, cuda_hidden = 0;
};

struct WaveReport {
  std::string kind;             // "full" or "tail"
  std::int64_t count = 0;       // how many waves of this kind
  std::int64_t active_sms = 0;
  std::int64_t resident = 0;    // blocks per SM in this wave
  double time_us = 0;           // one wave
  double prologue_us = 0;
  double steady_us = 0;         // all steady iterations together
  double epilogue_us = 0;
};

struct TensorTraffic {
  std::string tensor;
  double requested_bytes = 0;  // bytes the tiles ask for (all tiles, all iterations)
  double dram_bytes = 0;
  double l2_hit_rate = 0;
  double l2_merged_bytes = 0;  // of the requested: merged with another SM's request before L2
  // L2 sector lookups and their hits in bytes, both partitions (ncu's lts__t_sectors x 32), and
  // of them the second lookups in a line's home partition after a near miss (ncu's
  // lts__t_sectors_srcunit_ltcfabric; the rest are the SMs' own, srcunit_tex).
  double l2_lookup_bytes = 0, l2_hit_bytes = 0;
  double l2_far_lookup_bytes = 0, l2_far_hit_bytes = 0;
};

// Predicted hit rate per tile of the grid (the GUI's cache heatmap): rows x cols over the
// grid's first two dims (for a GEMM: M tiles x N tiles), row-major.
struct HitRateMap {
  std::string tensor;  // "" for all tensors together
  std::string level;   // "l2" or "l15"
  std::string row_dim, col_dim;
  std::int64_t rows = 0, cols = 0;
  std::vector<double> hit_rate;       // rows * cols values in 0..1
  std::vector<double> reuse_distance; // mean tile reuse distance per cell (tiles), may be empty
};

// One stage of a collective on one link (the Network lanes, eq. 11): the link is busy from
// start_us to end_us carrying `bytes` (β_l·B_{l,k} after the stage's routed hop latency).
// A stage the collective runs several times in a row (a ring's 2(n-1) identical steps) is
// one event: again every step_us after start_us, repeat times in all (stage numbers stage,
// stage + 1, ...), so a long ring is listed whole in a few events.
struct NetworkStageEvent {
  std::string link;        // directed link, "gpu0->nvswitch"
  std::string collective;  // "all_gather", ...
  std::int64_t stage = 0;  // position in the collective's ordered stages, repeats expanded
  std::string label;       // "ring step", ...
  double start_us = 0;
  double end_us = 0;
  double bytes = 0;
  std::int64_t repeat = 1;  // the stage back to back, step_us apart
  double step_us = 0;
  // The stage of every run of a collective that runs more than once (a decode step's
  // per-layer all-reduce): again every period_us after start_us, runs times in all.
  std::int64_t runs = 1;
  double period_us = 0;
};

// Every time the event's stage runs, its repeats within each run: f(stage, start_us, end_us).
template <class F>
void for_each_stage_run(const NetworkStageEvent& e, F&& f) {
  for (std::int64_t k = 0; k < std::max<std::int64_t>(e.runs, 1); ++k)
    for (std::int64_t r = 0; r < std::max<std::int64_t>(e.repeat, 1); ++r) {
      const double shift = static_cast<double>(k) * e.period_us + static_cast<double>(r) * e.step_us;
      f(e.stage + r, e.start_us + shift, e.end_us + shift);
    }
}

// One span of a fused kernel's overlap schedule (§3.6, model/overlap.h): a collective step on
// the network or a compute piece (a GEMM's row shard, a share of the attention heads) on the
// SMs, from the kernel's start. The Network view draws them as two lanes over the links.
struct OverlapSpan {
  bool compute = false;    // true: a compute piece; false: a collective step
  std::int64_t index = 0;  // the step's or the piece's number in its lane
  double start_us = 0;
  double end_us = 0;
};

struct LinkUtilization {
  std::string link;
  std::string type;        // link type of the system profile, "nvlink4"
  double bytes = 0;        // over the whole prediction
  double busy_us = 0;      // Σ β_l·B_{l,k}
  double utilization = 0;  // busy / latency, 0..1
};

struct CollectiveReport {
  std::string collective;
  std::string algorithm;  // "ring", "tree", ...
  std::string protocol;   // "LL", "LL128", "Simple"
  std::int64_t devices = 0;
  double bytes = 0;       // nccl-tests "size"
  double start_us = 0;
  double time_us = 0;
  double algbw_gbps = 0;  // nccl-tests algbw and busbw, GB/s
  double busbw_gbps = 0;
  std::string bottleneck_link;
  std::int64_t stages = 0;  // stages run, repeats counted
  std::int64_t runs = 1;    // times the collective runs (time_us is one run)
  double period_us = 0;     // runs > 1: from one run's start to the next's
};

// Cross-device traffic of a prediction (§3.6); empty for single-GPU plans.
struct NetworkReport {
  std::string system;
  std::vector<CollectiveReport> collectives;
  std::vector<LinkUtilization> links;       // links that carried bytes, busiest first
  std::string bottleneck_link;
  std::vector<NetworkStageEvent> events;    // per link and stage (repeats folded), every stage
  std::string overlap;       // fused kernels: "none", "stream" or "fused"; "" otherwise
  double comm_us = 0;        // communication alone
  double compute_us = 0;     // computation alone
  double overlap_rate = 0;   // share of comm_us hidden under computation, 0..1
  std::int64_t comm_sms = 0; // fused kernels: SMs NCCL's CTAs hold beside the compute on two
                             // streams (the plan's `comm_sms`, else NCCL's channels); 0 otherwise
  std::vector<OverlapSpan> schedule;  // fused kernels: the steps and pieces as scheduled; else empty
  bool empty() const { return collectives.empty(); }
};

// A serving step composed of many kernels and collectives (llm_decode).
struct ServeReport {
  double step_us = 0;
  double tokens_per_s = 0;
  std::vector<std::pair<std::string, double>> per_layer_us;  // op -> us (per layer, or once)
};

struct Prediction {
  std::string kernel;
  std::string name;
  std::string hardware;
  hw::ProfileSource profile_source = hw::ProfileSource::kDatasheet;

  double latency_us = 0;  // as CUDA events around one launch measure it
  double launch_overhead_us = 0;
  double prologue_us = 0;  // summed over waves
  double steady_us = 0;
  double epilogue_us = 0;

  std::int64_t blocks = 0;
  std::int64_t waves = 0;
  std::int64_t resident_blocks_per_sm = 0;
  std::string occupancy_limiter;
  std::vector<WaveReport> wave_reports;
  std::vector<LoopReport> loops;

  std::array<double, kResourceCount> busy_us{};      // device-average busy time per resource
  std::array<double, kResourceCount> utilization{};  // busy / latency, 0..1
  Resource bottleneck = Resource::kTC;

  double flops = 0;
  double achieved_flops_per_s = 0;
  double clock_factor = 1.0;  // sustained-clock factor applied to SM pipelines

  std::string cache_model;
  double l2_hit_rate = 0;       // every L2 sector lookup, loads and stores
  double l2_load_hit_rate = 0;  // loads only
  double dram_bytes = 0;        // read + written
  double dram_read_bytes = 0;
  double dram_write_bytes = 0;
  std::vector<TensorTraffic> tensors;
  std::vector<HitRateMap> hit_rate_maps;  // empty when the cache model gives no per-tile view
  std::optional<cache::StreamTiming> cache_stream;  // the cache model's stream in time, where it has one

  NetworkReport network;                // cross-device stages; empty on one GPU
  ServeReport serve;                    // llm_decode only (step_us > 0)

  std::vector<TimelineEvent> timeline;  // one SM of the first wave
  std::vector<std::string> diagnosis;   // sentences, most important first
  std::vector<std::string> warnings;
};

// From busy_us, latency_us and flops: each resource's utilization (busy over the latency, at
// most 1), the bottleneck (the busiest resource) and the achieved FLOP/s.
inline void rate_resources(Prediction& p) {
  for (std::size_t r = 0; r < kResourceCount; ++r)
    p.utilization[r] = p.latency_us > 0 ? std::min(1.0, p.busy_us[r] / p.latency_us) : 0;
  p.bottleneck = static_cast<Resource>(std::max_element(p.utilization.begin(), p.utilization.end()) - p.utilization.begin());
  p.achieved_flops_per_s = p.latency_us > 0 ? p.flops / (p.latency_us * 1e-6) : 0;
}

}  // namespace tilesight::report
