// Persistent-block schedule: a fixed set of resident CTAs, CTA c running tiles c, c + ctas,
// c + 2 ctas, ... of a raster walk. Tiles therefore start in raster order, `ctas` at a time;
// raster m walks down M first (cuBLAS's `h` kernels, DESIGN.md), raster n along N. A swizzle
// g > 1 walks groups of g tiles across the raster, serpentine (cuBLAS's nvjet kernels).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "tilesight/cache/launch_order.h"

namespace tilesight::cache {

std::int64_t nvjet_swizzle(std::int64_t ctas, double tile_aspect) {
  if (ctas < 2 || !(tile_aspect > 0)) return 1;
  return std::max<std::int64_t>(1, std::llround(std::sqrt(static_cast<double>(ctas) / 2.0 * tile_aspect)));
}

namespace {

// Launch position within a plane -> (row, col) for groups of g tiles across a walk of
// `along` steps: group q covers across-indices [q g, q g + w) (w = g but for the last), walked
// one step along at a time, the w tiles of a step in turn; odd groups walk back.
std::pair<std::int64_t, std::int64_t> swizzled(std::int64_t pid, std::int64_t along, std::int64_t across,
                                               std::int64_t g) {
  const std::int64_t group = pid / (g * along), first = group * g;
  const std::int64_t w = std::min(g, across - first), in = pid - first * along;
  std::int64_t step = in / w;
  if (group % 2 == 1) step = along - 1 - step;
  return {step, first + in % w};  // (position along, position across)
}

}  // namespace

std::vector<std::int64_t> PersistentOrder::sequence(const plan::TileGrid& grid) const {
  if (swizzle_ <= 1) {
    if (raster_ == plan::Raster::kM) return ColumnMajorOrder().sequence(grid);
    return RowMajorOrder().sequence(grid);
  }
  const bool walk_m = raster_ == plan::Raster::kM;
  const std::int64_t g = swizzle_;
  return detail::plane_sequence(grid, [walk_m, g](std::int64_t pid, std::int64_t rows, std::int64_t cols) {
    if (walk_m) return swizzled(pid, rows, cols, g);  // (row, col)
    const auto [col, row] = swizzled(pid, cols, rows, g);
    return std::pair{row, col};
  });
}

void PersistentOrder::coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count,
                                  TileCoord* out) const {
  if (swizzle_ <= 1) {
    if (raster_ == plan::Raster::kM) return ColumnMajorOrder().coordinates(grid, first, count, out);
    return RowMajorOrder().coordinates(grid, first, count, out);
  }
  const detail::Planes p = detail::planes(grid);
  const std::int64_t per_plane = p.rows * p.cols;
  const bool walk_m = raster_ == plan::Raster::kM;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t pos = first + i, pid = pos % per_plane;
    TileCoord& t = out[i];
    t.plane = pos / per_plane;
    if (walk_m) {
      std::tie(t.row, t.col) = swizzled(pid, p.rows, p.cols, swizzle_);
    } else {
      std::tie(t.col, t.row) = swizzled(pid, p.cols, p.rows, swizzle_);
    }
  }
}

}  // namespace tilesight::cache
