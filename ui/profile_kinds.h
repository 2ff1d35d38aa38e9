// Which plans a hardware profile of hw_profiles/ can run: a single GPU (h200, b200, ...)
// runs the tile templates and tile programs; a system of GPUs (h200x8, b200x32, ...) runs
// the collectives, the fused compute-communication templates and llm_decode. The hardware
// selector offers only the profiles that fit the plan:
//
//   gemm on h200      ->  a100 b200 b6000 h100 h200 mi210        (h200x8 ... greyed)
//   all_reduce        ->  b200x32 b200x8 b6000x2 h100x8 h200nvl4 ... (h200 ... greyed)
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tilesight::ui {

enum class ProfileKind { kGpu, kSystem, kUnreadable };

// What the profile `name` is, read once per name (the engine's loaders) and remembered.
ProfileKind profile_kind(const std::string& name);

// Whether `plan` can run on the profile `name`: a distributed template on a system, any
// other plan on a single GPU; a decode step (llm_decode) on either.
bool profile_fits(const nlohmann::json& plan, const std::string& name);

}  // namespace tilesight::ui
