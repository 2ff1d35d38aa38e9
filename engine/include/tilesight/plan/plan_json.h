// The tile-program JSON format (docs/plan-format.md): parse, validate, serialise.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "tilesight/plan/tile_program.h"
#include "tilesight/util/result.h"

namespace tilesight::plan {

// Bounds no real kernel reaches. Each factor is checked before any product is formed, so a
// hostile plan ("extent": 99999999999999) is rejected instead of overflowing the model.
inline constexpr std::int64_t kMaxExtent = 2147483647;  // 2^31 - 1: shapes, extents, trips
inline constexpr std::int64_t kMaxRank = 8;             // tensor dimensions
inline constexpr std::int64_t kMaxStages = 64;          // software-pipeline stages
inline constexpr double kMaxAmount = 1e21;              // flops, bytes, sfu_ops per execution
inline constexpr std::int64_t kMaxSmemBytes = 2147483647;
inline constexpr std::int64_t kMaxRegistersPerThread = 65536;
inline constexpr std::int64_t kMaxWarps = 1024;

// Reads and validates a full tile program; every error carries the JSON path, e.g.
// `actions[3].deps[0]: unknown action "qk"`; a cycle names its actions.
Result<TileProgram> parse_tile_program(const nlohmann::json& doc);

// Structural checks on a program built in C++ (templates, GUI edits): names resolve, deps
// in range, the DAG is acyclic, sizes positive.
Errors validate(const TileProgram& program);

// The inverse of parse_tile_program (used by the GUI to save and by `tilesight-cli lift`).
nlohmann::json to_json(const TileProgram& program);

}  // namespace tilesight::plan
