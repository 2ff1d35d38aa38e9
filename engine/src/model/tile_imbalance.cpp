#include "tilesight/model/tile_imbalance.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace tilesight::model {

double list_schedule_makespan(const std::vector<double>& work, std::int64_t slots, bool persistent) {
  if (work.empty() || slots <= 0) return 0;
  const auto n = static_cast<std::size_t>(slots);
  if (persistent) {
    std::vector<double> load(std::min(n, work.size()), 0.0);
    for (std::size_t t = 0; t < work.size(); ++t) load[t % n] += work[t];
    return *std::max_element(load.begin(), load.end());
  }
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (std::size_t s = 0; s < std::min(n, work.size()); ++s) free_at.push(0.0);
  double makespan = 0;
  for (double w : work) {
    const double start = free_at.top();
    free_at.pop();
    free_at.push(start + w);
    makespan = std::max(makespan, start + w);
  }
  return makespan;
}

double tile_imbalance(const plan::TileProgram& p, std::int64_t slots) {
  const auto loop = std::find_if(p.loops.begin(), p.loops.end(), [](const plan::Loop& l) { return !l.trips.empty(); });
  if (loop == p.loops.end()) return 1.0;
  const auto dim = p.grid.dim_index(loop->trips_dim);
  if (!dim || static_cast<std::int64_t>(loop->trips.size()) != p.grid.dims[*dim].extent) return 1.0;
  // Row-major launch order (last grid dim fastest, as blockIdx.x): the coordinate along `dim`
  // of tile t is (t / stride) % extent.
  std::int64_t stride = 1;
  for (std::size_t k = *dim + 1; k < p.grid.dims.size(); ++k) stride *= p.grid.dims[k].extent;
  const std::int64_t tiles = p.grid.tiles(), extent = p.grid.dims[*dim].extent;
  const std::int64_t scheduled = std::min(tiles, kScheduledTiles);
  std::vector<double> real(static_cast<std::size_t>(scheduled)), mean(real.size(), static_cast<double>(loop->trip_count));
  double real_scheduled = 0;
  for (std::int64_t t = 0; t < scheduled; ++t) {
    real[static_cast<std::size_t>(t)] = static_cast<double>(loop->trips[static_cast<std::size_t>((t / stride) % extent)]);
    real_scheduled += real[static_cast<std::size_t>(t)];
  }
  // The tiles past the scheduled ones, spread over the slots: the grid is a whole number of
  // runs of `stride` x `extent` tiles, each holding every trip count `stride` times.
  double real_rest = 0, mean_rest = 0;
  if (tiles > scheduled && slots > 0) {
    double per_run = 0;
    for (const std::int64_t trips : loop->trips) per_run += static_cast<double>(trips * stride);
    real_rest = (per_run * static_cast<double>(tiles / (stride * extent)) - real_scheduled) / static_cast<double>(slots);
    mean_rest = static_cast<double>(loop->trip_count) * static_cast<double>(tiles - scheduled) / static_cast<double>(slots);
  }
  // A persistent grid that takes its tiles from a counter is list-scheduled as a plain launch.
  const bool persistent = p.schedule.persistent && !p.schedule.dynamic;
  const double balanced = list_schedule_makespan(mean, slots, persistent) + mean_rest;
  return balanced > 0 ? (list_schedule_makespan(real, slots, persistent) + real_rest) / balanced : 1.0;
}

}  // namespace tilesight::model
