// Raster launch orders: the hardware's default (row-major, last grid dim fastest) and its
// transpose.
#include "tilesight/cache/launch_order.h"

namespace tilesight::cache {

std::vector<std::int64_t> RowMajorOrder::sequence(const plan::TileGrid& grid) const {
  return detail::plane_sequence(grid, [](std::int64_t pid, std::int64_t /*rows*/, std::int64_t cols) {
    return std::pair{pid / cols, pid % cols};
  });
}

std::vector<std::int64_t> ColumnMajorOrder::sequence(const plan::TileGrid& grid) const {
  return detail::plane_sequence(grid, [](std::int64_t pid, std::int64_t rows, std::int64_t /*cols*/) {
    return std::pair{pid % rows, pid / rows};
  });
}

}  // namespace tilesight::cache
