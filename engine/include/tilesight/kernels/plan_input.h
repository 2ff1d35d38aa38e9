// What `predict` accepts (DESIGN.md): a full tile program, or a template instance
// {"kernel": "gemm", "hardware": "h200", "params": {...}} that a kernel template lifts.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilesight/plan/tile_program.h"
#include "tilesight/util/result.h"

namespace tilesight::kernels {

struct PlanInput {
  plan::TileProgram program;
  std::string hardware;  // as written in the plan; may be empty
};

Result<PlanInput> read_plan(const nlohmann::json& doc);

// Templates available now, sorted.
std::vector<std::string> template_names();

}  // namespace tilesight::kernels
