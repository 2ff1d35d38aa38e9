// AnalyzeLoop / ModelOverlap of Algorithm 2: the pipeline envelope of one loop of the tile
// body on one SM, with the best legal order of its actions (eqs. 2-5).
//
// For a loop of N iterations (resident tiles interleaved: N = trip_count * resident) and
// effective depth d = stages * resident - 1 (eq. 3):
//   T_steady = max( max_r sum_o u_r(o)                       throughput, eq. 4
//                   chain(sigma*) / resident                 in-order dependency chain, eq. 5
//                   latency / loads_in_flight )              Little's law floor (DESIGN.md)
//   T_pro    = latency + first iteration's loads + (min(d, N) - 1) * T_steady
//   T_epi    = the last iteration's compute chain
// so that T = T_pro + max(N - d, 0) * T_steady + T_epi (eq. 2) equals the fill, N - 1 steady
// iterations and the drain of a software pipeline with d iterations in flight.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilesight/model/action_dag.h"
#include "tilesight/model/envelope.h"
#include "tilesight/model/resource_vector.h"

namespace tilesight::model {

struct LoopContext {
  const plan::TileProgram& program;
  const hw::HardwareSpec& hw;
  const cache::CacheTraffic& traffic;
  SmRates rates;
  std::int64_t resident = 1;
  std::size_t max_orders = 50000;
};

// One action (or a nested loop, as a composite) inside a loop body.
struct BodyItem {
  std::string name;
  std::vector<std::size_t> action_indices;  // one for an action; all of a nested loop's
  ResourceVector u;                          // per execution, on one SM
  double duration = 0;                       // max_r u_r, or a nested loop's total
  bool is_load = false;
  bool prefetched = false;                   // a load the software pipeline issues ahead
  double latency = 0;                        // memory latency a load waits for
  double sync = 0;                           // barrier phases' latency on the chain
  double chain_offset = 0;                   // start within the iteration's in-order chain
};

struct LoopAnalysis {
  std::string loop;
  PipelineEnvelope envelope;
  std::vector<BodyItem> items;
  std::vector<std::size_t> best_order;  // indices into items
  ResourceVector busy;                  // seconds each resource is busy, whole loop, one SM
  double throughput = 0;
  double chain = 0;
  double latency_floor = 0;
  double mma_exposed = 0;      // of the steady iteration: MMA the next stage's load does not overlap
  bool serial_mma = false;     // the compiler waits for each wgmma (plan::Loop::serial_mma)
  double first_load_latency = 0;
  double first_loads = 0;
  double prefetch_fill = 0;    // of the prologue: the prefetched stages filling shared memory
  double last_chain = 0;
  std::string limited_by;
  OrderSearchResult search;
  OrderCount legal_orders;
};

// A fused kernel's steady iteration against its tensor cores (the report's fused-kernel view):
// the busiest pipeline, and the share of the SFU and CUDA-core time that fits inside the
// tensor cores' busy time. An iteration that takes `steady` with the tensor cores busy `tc`
// leaves them idle for steady - tc; SFU or CUDA-core time beyond that ran under them.
struct TcOverlap {
  Resource bottleneck = Resource::kTC;  // largest busy time per iteration
  double steady = 0, tc = 0, sfu = 0, cuda = 0;  // seconds per iteration
  double sfu_hidden = 0, cuda_hidden = 0;        // 0..1; 0 when there are no tensor cores to hide under
};
TcOverlap tc_overlap(const LoopAnalysis& la);

// `interleave` is the number of resident tiles sharing the SM (1 for nested loops: the
// resident interleaving is already in the outer count).
LoopAnalysis analyze_loop(const plan::Loop& loop, std::int64_t interleave, const LoopContext& ctx);

}  // namespace tilesight::model
