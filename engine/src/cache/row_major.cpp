// Raster launch orders: the hardware's default (row-major, last grid dim fastest) and its
// transpose.
#include "tilesight/cache/launch_order.h"

namespace tilesight::cache {

std::vector<std::int64_t> RowMajorOrder::sequence(const plan::TileGrid& grid) const {
  return detail::plane_sequence(grid, [](std::int64_t pid, std::int64_t /*rows*/, std::int64_t cols) {
    return std::pair{pid / cols, pid % cols};
  });
}

// Launch position `first` placed once by division, the rest stepped: column, then row, then plane.
void RowMajorOrder::coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count,
                                TileCoord* out) const {
  const detail::Planes p = detail::planes(grid);
  TileCoord t = detail::coord_of(p, first);
  for (std::int64_t i = 0; i < count; ++i) {
    out[i] = t;
    if (++t.col < p.cols) continue;
    t.col = 0;
    if (++t.row < p.rows) continue;
    t.row = 0;
    ++t.plane;
  }
}

std::vector<std::int64_t> ColumnMajorOrder::sequence(const plan::TileGrid& grid) const {
  return detail::plane_sequence(grid, [](std::int64_t pid, std::int64_t rows, std::int64_t /*cols*/) {
    return std::pair{pid % rows, pid / rows};
  });
}

void ColumnMajorOrder::coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count,
                                   TileCoord* out) const {
  const detail::Planes p = detail::planes(grid);
  const std::int64_t per_plane = p.rows * p.cols, pid = first % per_plane;
  TileCoord t{.plane = first / per_plane, .row = pid % p.rows, .col = pid / p.rows};
  for (std::int64_t i = 0; i < count; ++i) {
    out[i] = t;
    if (++t.row < p.rows) continue;
    t.row = 0;
    if (++t.col < p.cols) continue;
    t.col = 0;
    ++t.plane;
  }
}

}  // namespace tilesight::cache
