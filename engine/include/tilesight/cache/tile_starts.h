// A measured launch's CTA start times as SdcmOptions::tile_starts: what the cache model gives
// with the skew the launch really had (docs/cache-model.md, "The measured starts").
//
// The trace is a CSV, one row a CTA: `pid` (its launch position), `t_start_ns` and `t_end_ns`
// (%globaltimer at its start and end; other columns are ignored, lines starting with '#' are
// comments), one launch a file: hw_profiles/calibrate/cta_skew.py writes them. Each start
// becomes tile times after the first: (t_start - earliest start) / median(t_end - t_start).
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "tilesight/util/result.h"

namespace tilesight::cache {

// Errors name the line and column; the pids must be 0 .. n-1, each once.
Result<std::vector<double>> read_tile_starts(std::istream& in);
Result<std::vector<double>> read_tile_starts_file(const std::string& path);

}  // namespace tilesight::cache
