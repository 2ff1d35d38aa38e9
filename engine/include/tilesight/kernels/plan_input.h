// What `predict` accepts (DESIGN.md): a full tile program, or a template instance
// {"kernel": "gemm", "hardware": "h200", "params": {...}} that a kernel template lifts.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilesight/plan/tile_program.h"
#include "tilesight/util/result.h"

namespace tilesight::kernels {

struct PlanInput {
  plan::TileProgram program;
  std::string hardware;  // as written in the plan; may be empty
  // For template instances: which parameters a lifted field comes from, so that an error on
  // "resources.smem_bytes" can name "params.block_m, block_n, block_k, stages" instead.
  std::map<std::string, std::string> path_aliases;

  // Rewrites the paths of errors raised on the lifted program.
  Errors explain(Errors errors) const;
};

Result<PlanInput> read_plan(const nlohmann::json& doc);

// Templates available now, sorted.
std::vector<std::string> template_names();

}  // namespace tilesight::kernels
