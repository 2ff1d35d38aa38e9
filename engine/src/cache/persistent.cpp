// Persistent-block schedule: a fixed set of resident CTAs, CTA c running tiles c, c + ctas,
// c + 2 ctas, ... of a raster walk. Tiles therefore start in raster order, `ctas` at a time;
// raster m walks down M first (cuBLAS's `h` kernels, DESIGN.md), raster n along N.
#include "tilesight/cache/launch_order.h"

namespace tilesight::cache {

std::vector<std::int64_t> PersistentOrder::sequence(const plan::TileGrid& grid) const {
  if (raster_ == plan::Raster::kM) return ColumnMajorOrder().sequence(grid);
  return RowMajorOrder().sequence(grid);
}

void PersistentOrder::coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count,
                                  TileCoord* out) const {
  if (raster_ == plan::Raster::kM) return ColumnMajorOrder().coordinates(grid, first, count, out);
  RowMajorOrder().coordinates(grid, first, count, out);
}

}  // namespace tilesight::cache
