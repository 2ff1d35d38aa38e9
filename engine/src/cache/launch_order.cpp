#include "tilesight/cache/launch_order.h"

namespace tilesight::cache {

LaunchOrderSpec launch_order_spec(const plan::LaunchOrder& order) {
  using K = plan::LaunchOrderKind;
  switch (order.kind) {
    case K::kRowMajor: return {.kind = LaunchOrderSpec::Kind::kRowMajor};
    case K::kColumnMajor: return {.kind = LaunchOrderSpec::Kind::kColumnMajor};
    case K::kGrouped: return {.kind = LaunchOrderSpec::Kind::kGrouped, .group_m = order.group_m};
    case K::kZOrder: return {.kind = LaunchOrderSpec::Kind::kZOrder};
  }
  return {};
}

LaunchOrderSpec launch_order_spec(const plan::TileProgram& program) {
  if (!program.schedule.persistent) return launch_order_spec(program.grid.order);
  LaunchOrderSpec spec{.kind = LaunchOrderSpec::Kind::kPersistent, .raster = program.schedule.raster,
                       .swizzle = program.schedule.swizzle};
  // The written tile's last two extents (rows, cols): across the walk over along it.
  for (const plan::TensorAccess& a : program.accesses) {
    const auto n = a.tile_shape.size();
    if (!a.write || n < 2 || a.tile_shape[n - 2] < 1 || a.tile_shape[n - 1] < 1) continue;
    const double rows = static_cast<double>(a.tile_shape[n - 2]), cols = static_cast<double>(a.tile_shape[n - 1]);
    spec.tile_aspect = spec.raster == plan::Raster::kM ? cols / rows : rows / cols;
    break;
  }
  return spec;
}

std::unique_ptr<TileLaunchOrder> make_launch_order(const LaunchOrderSpec& spec) {
  using K = LaunchOrderSpec::Kind;
  switch (spec.kind) {
    case K::kRowMajor: return std::make_unique<RowMajorOrder>();
    case K::kColumnMajor: return std::make_unique<ColumnMajorOrder>();
    case K::kGrouped: return std::make_unique<GroupedOrder>(spec.group_m);
    case K::kZOrder: return std::make_unique<ZOrder>();
    case K::kPersistent: return std::make_unique<PersistentOrder>(spec.raster, spec.ctas, spec.swizzle);
  }
  return std::make_unique<RowMajorOrder>();
}

void TileLaunchOrder::coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count,
                                  TileCoord* out) const {
  const std::vector<std::int64_t> seq = sequence(grid);
  const detail::Planes p = detail::planes(grid);
  for (std::int64_t i = 0; i < count; ++i) out[i] = detail::coord_of(p, seq[static_cast<std::size_t>(first + i)]);
}

namespace detail {

TileCoord coord_of(const Planes& p, std::int64_t tile) {
  const std::int64_t per_plane = p.rows * p.cols, in_plane = tile % per_plane;
  return {.plane = tile / per_plane, .row = in_plane / p.cols, .col = in_plane % p.cols};
}

Planes planes(const plan::TileGrid& grid) {
  Planes p;
  const std::size_t n = grid.dims.size();
  if (n >= 1) p.cols = grid.dims[n - 1].extent;
  if (n >= 2) p.rows = grid.dims[n - 2].extent;
  for (std::size_t i = 0; i + 2 < n; ++i) p.count *= grid.dims[i].extent;
  return p;
}

}  // namespace detail

}  // namespace tilesight::cache
