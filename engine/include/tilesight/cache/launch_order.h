// Launch orders (§3.5.3): "a block swizzle, row-panel, Z-order, or persistent-block schedule
// is just a concrete sequence of tile coordinates fed to the reuse-distance simulation".
// Each order is a small class behind TileLaunchOrder, one per file (STYLE.md rule 5):
// row_major.cpp (row- and column-major raster), grouped.cpp, z_order.cpp, persistent.cpp.
//
// A sequence maps launch position -> tile id, the tile id being the row-major linear index
// over grid.dims (last dim fastest). The order works on the grid's last two dims (a GEMM's
// m, n); leading dims (batch, head) iterate outermost. Example, a 3 x 4 grid (m, n):
//   row_major      0 1 2 3 4 5 6 7 8 9 10 11
//   column_major   0 4 8 1 5 9 2 6 10 3 7 11
//   grouped(2)     0 4 1 5 2 6 3 7 8 9 10 11       (Triton's GROUP_M = 2)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tilesight/plan/tile_program.h"

namespace tilesight::cache {

// Every order the cache model can simulate. plan::LaunchOrder names row-major, column-major,
// grouped and Z-order, plan::TileSchedule a persistent raster.
struct LaunchOrderSpec {
  enum class Kind { kRowMajor, kColumnMajor, kGrouped, kZOrder, kPersistent };
  Kind kind = Kind::kRowMajor;
  std::int64_t group_m = 1;     // kGrouped
  plan::Raster raster = plan::Raster::kM;  // kPersistent
  std::int64_t ctas = 0;        // kPersistent: CTAs striding over the tiles; 0 = one per slot
  // kPersistent: tiles across a group of the raster (plan::TileSchedule::swizzle); 1 = none,
  // 0 = the rule of nvjet_swizzle, resolved by the cache model once it knows the CTAs.
  std::int64_t swizzle = 1;
  double tile_aspect = 1;       // kPersistent, swizzle 0: a tile's extent across the walk / along it
};

// cuBLAS's nvjet kernels walk their tiles in groups of g tiles across the raster, down the
// raster inside a group, each group the other way from the last (serpentine). Measured
// (hw_profiles/calibrate/cublas_order.py, h200/cublas_order.csv.gz: 16 calls, 2-CTA clusters):
// g = round(sqrt(ctas / 2 x aspect)), aspect the tile's extent across the walk over its extent
// along it: 132 CTAs give 8 for 192 x 192 tiles, 9 for 128 x 144 walking M, 10 for 256 x 160
// walking N, 11 for 128 x 256 and 13 for 128 x 320 walking M, as measured; on 14 calls outside
// the corpus (cublas_order_extra.csv.gz) it puts 88-89% of tiles in their measured wave.
std::int64_t nvjet_swizzle(std::int64_t ctas, double tile_aspect);

LaunchOrderSpec launch_order_spec(const plan::LaunchOrder& order);
// The program's order: a persistent schedule (plan::TileSchedule) walks its raster with one
// CTA per slot; otherwise grid.order.
LaunchOrderSpec launch_order_spec(const plan::TileProgram& program);

// A tile's place in the grid: its plane (linear index over the leading dims), its row and
// column (the last two dims). Tile id = (plane * rows + row) * cols + col.
struct TileCoord {
  std::int64_t plane = 0, row = 0, col = 0;
};

class TileLaunchOrder {
 public:
  virtual ~TileLaunchOrder() = default;
  virtual std::string name() const = 0;
  // Launch position -> tile id, every tile exactly once.
  virtual std::vector<std::int64_t> sequence(const plan::TileGrid& grid) const = 0;
  // The tiles at launch positions [first, first + count) (within the grid), without building
  // the whole sequence: the cache model looks at a few waves of grids of thousands of tiles.
  // The default builds sequence() on every call; closed_form() says whether it is overridden.
  virtual void coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count, TileCoord* out) const;
  virtual bool closed_form() const { return false; }
  // CTAs resident at once when the kernel fixes them (persistent); 0: as many as fit.
  virtual std::int64_t resident_ctas() const { return 0; }
};

std::unique_ptr<TileLaunchOrder> make_launch_order(const LaunchOrderSpec& spec);

class RowMajorOrder final : public TileLaunchOrder {
 public:
  std::string name() const override { return "row_major"; }
  std::vector<std::int64_t> sequence(const plan::TileGrid& grid) const override;
  void coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count, TileCoord* out) const override;
  bool closed_form() const override { return true; }
};

class ColumnMajorOrder final : public TileLaunchOrder {
 public:
  std::string name() const override { return "column_major"; }
  std::vector<std::int64_t> sequence(const plan::TileGrid& grid) const override;
  void coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count, TileCoord* out) const override;
  bool closed_form() const override { return true; }
};

// Triton's matmul tutorial: panels of group_m rows walked column by column.
class GroupedOrder final : public TileLaunchOrder {
 public:
  explicit GroupedOrder(std::int64_t group_m) : group_m_(group_m < 1 ? 1 : group_m) {}
  std::string name() const override { return "grouped(" + std::to_string(group_m_) + ")"; }
  std::vector<std::int64_t> sequence(const plan::TileGrid& grid) const override;
  void coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count, TileCoord* out) const override;
  bool closed_form() const override { return true; }

 private:
  std::int64_t group_m_;
};

// Morton order: (row, col) bits interleaved, col in the low bit.
class ZOrder final : public TileLaunchOrder {
 public:
  std::string name() const override { return "z_order"; }
  std::vector<std::int64_t> sequence(const plan::TileGrid& grid) const override;
};

// A fixed number of resident CTAs, CTA c taking tiles c, c + ctas, c + 2 ctas, ... of a
// raster walk along M or N: tiles start in raster order, `ctas` at a time. With a swizzle
// g > 1 the walk goes down the raster in groups of g tiles across it (raster m: g columns,
// row by row down M), every other group upwards (nvjet_swizzle).
class PersistentOrder final : public TileLaunchOrder {
 public:
  PersistentOrder(plan::Raster raster, std::int64_t ctas, std::int64_t swizzle = 1)
      : raster_(raster), ctas_(ctas < 0 ? 0 : ctas), swizzle_(swizzle < 1 ? 1 : swizzle) {}
  std::string name() const override {
    std::string n = raster_ == plan::Raster::kM ? "persistent(raster m" : "persistent(raster n";
    if (swizzle_ > 1) n += ", swizzle " + std::to_string(swizzle_);
    return n + ")";
  }
  std::vector<std::int64_t> sequence(const plan::TileGrid& grid) const override;
  void coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count, TileCoord* out) const override;
  bool closed_form() const override { return true; }
  std::int64_t resident_ctas() const override { return ctas_; }

 private:
  plan::Raster raster_;
  std::int64_t ctas_;
  std::int64_t swizzle_;
};

namespace detail {

// The grid seen as planes of rows x cols (its last two dims; one row for a 1-D grid) under
// the leading dims.
struct Planes {
  std::int64_t count = 1, rows = 1, cols = 1;
};
Planes planes(const plan::TileGrid& grid);
TileCoord coord_of(const Planes& p, std::int64_t tile);

// Applies a 2-D order, pid -> (row, col) within a plane, to every plane in turn.
template <class PlaneOrder>
std::vector<std::int64_t> plane_sequence(const plan::TileGrid& grid, PlaneOrder&& at) {
  const Planes p = planes(grid);
  const std::int64_t per_plane = p.rows * p.cols;
  std::vector<std::int64_t> seq;
  seq.reserve(static_cast<std::size_t>(p.count * per_plane));
  for (std::int64_t plane = 0; plane < p.count; ++plane)
    for (std::int64_t pid = 0; pid < per_plane; ++pid) {
      const std::pair<std::int64_t, std::int64_t> rc = at(pid, p.rows, p.cols);
      seq.push_back(plane * per_plane + rc.first * p.cols + rc.second);
    }
  return seq;
}

}  // namespace detail

}  // namespace tilesight::cache
