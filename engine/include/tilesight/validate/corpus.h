// Measured corpora (tests/validation/<gpu>/*.csv): one measured kernel per row. Columns that
// name template parameters (M, N, K, block_m, ..., dtype) become the plan's params; the
// measured time is `ms`, `us` or `latency_us`; lines starting with '#' are comments (GPU,
// clocks, versions). Rows are grouped by problem (kernel + shape + dtype) for rank metrics.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilesight/util/result.h"

namespace tilesight::validate {

struct CorpusRow {
  std::size_t line = 0;    // 1-based line in the file
  nlohmann::json plan;     // template instance {"kernel", "hardware", "params"}
  double measured_us = 0;
  std::string group;       // problem key for per-shape ranking, e.g. "gemm 4096x4096x4096 bf16"
};

struct Corpus {
  std::string path;
  std::vector<CorpusRow> rows;
  Errors skipped;  // rows that could not be read (line set), the rest still count
};

// `kernel` is used when the CSV has no `kernel` column. With recorded_registers, a GEMM row's
// n_regs (the compiled kernel's registers) becomes the template's `registers`; without, the
// model estimates them as it does for a plan that does not say.
Result<Corpus> read_corpus(const std::string& path, const std::string& hardware,
                           const std::string& kernel = "gemm", bool recorded_registers = true);

}  // namespace tilesight::validate
