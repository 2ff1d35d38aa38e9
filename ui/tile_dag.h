// The tile-action DAG of a plan as the plan editor draws it: one node per action of the tile
// program (a template instance is lifted first, as the engine does), its deps, and the
// pipeline it loads most — the dominant component of its resource vector u(o) (eq. 1),
// read off the prediction's timeline bars when there is one, else guessed from the op.
//
//   load_a [DRAM]   load_b [DRAM]
//          ╲           ╱
//           mma [TC] ──
//              │
//        store_c [DRAM]
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilesight/hw/resource.h"
#include "tilesight/report/prediction.h"
#include "tilesight/util/result.h"

namespace tilesight::ui {

struct DagAction {
  std::string name;
  std::string op;            // "load", "mma_tc", ... as in the plan format
  std::string loop;          // "" = the tile body
  std::string result_level;  // scratchpad level of the result: "register", "smem", ...
  double flops = 0, bytes = 0;
  std::vector<std::size_t> deps;  // indices into TileDag::actions
  Resource pipeline = Resource::kCuda;
  bool pipeline_predicted = false;  // from the timeline (true) or guessed from the op

  bool operator==(const DagAction&) const = default;
};

struct TileDag {
  std::vector<DagAction> actions;
  std::string kernel;    // template name, or "custom"
  bool lifted = false;   // drawn from a template instance: the first edit makes it a program
  Errors errors;         // why the plan has no DAG (it cannot be lifted); empty otherwise

  int find(const std::string& name) const;  // index, or -1
};

// The DAG of a plan document; `timeline` (may be empty) gives each action's pipeline.
TileDag tile_dag(const nlohmann::json& doc, const std::vector<report::TimelineEvent>& timeline);

// True when the two would be drawn the same (actions, deps, pipelines, kernel, errors): the
// plan editor then keeps its scene (a new prediction of the same plan usually changes nothing).
bool same_dag(const TileDag& a, const TileDag& b);

// The pipeline an op mostly uses when no prediction says otherwise.
Resource guess_pipeline(const std::string& op);

}  // namespace tilesight::ui
