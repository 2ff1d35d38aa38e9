// The config panel's checks of a template's parameters as they are typed, before any run:
//
//   ✖ heads: 12 heads are not a multiple of kv_heads 8                      (the parser)
//   ✖ block_m, block_n, block_k, stages, dtype: needs 288 KiB of shared memory per block;
//     h200 allows 227 KiB                                                  (occupancy)
//   ⚠ block_m: 256 is larger than M 100: most of each tile is padding      (a warning)
//
// Errors are what the engine itself rejects (the template's parser, then the lifted
// block's occupancy on the plan's hardware), with the fields the error names; warnings are
// plans the engine runs but a kernel author would not mean (a tile larger than the problem).
// The edit is kept either way: the panel marks the fields and the report keeps the last
// good prediction.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilesight::ui {

struct ParamProblem {
  QStringList fields;  // form keys: "heads", "model.heads", "block_m"
  QString message;
  bool error = true;   // false: a warning, the plan still runs
};

// The problems of a template instance {"kernel", "hardware", "params"}; empty for a plan
// without problems and for full tile programs.
std::vector<ParamProblem> check_params(const nlohmann::json& plan);

// The form keys an engine error path names: "params.heads" -> heads, "params.model.heads"
// -> model.heads, "params (block_m, block_n, stages)" -> block_m, block_n, stages.
QStringList fields_of_path(const std::string& path);

}  // namespace tilesight::ui
