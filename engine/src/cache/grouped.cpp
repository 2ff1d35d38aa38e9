// Triton's GROUP_M swizzle, exactly as in the matmul tutorial (03-matrix-multiplication):
// launch ids walk down a panel of group_m rows before moving one column right, so a wave
// reuses group_m rows of A and (wave / group_m) columns of B.
#include <algorithm>

#include "tilesight/cache/launch_order.h"

namespace tilesight::cache {

std::vector<std::int64_t> GroupedOrder::sequence(const plan::TileGrid& grid) const {
  // Walks the tutorial's (pid_m, pid_n) in pid order without dividing per tile: panel by
  // panel of group_m rows, column by column, row by row within the panel:
  //   group_id = pid / (group_m * num_pid_n), first_pid_m = group_id * group_m,
  //   group_size_m = min(num_pid_m - first_pid_m, group_m),
  //   pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m,
  //   pid_n = (pid % num_pid_in_group) / group_size_m.
  const detail::Planes p = detail::planes(grid);
  std::vector<std::int64_t> seq;
  seq.reserve(static_cast<std::size_t>(p.count * p.rows * p.cols));
  for (std::int64_t plane = 0; plane < p.count; ++plane)
    for (std::int64_t first_pid_m = 0; first_pid_m < p.rows; first_pid_m += group_m_) {
      const std::int64_t group_size_m = std::min(p.rows - first_pid_m, group_m_);
      for (std::int64_t pid_n = 0; pid_n < p.cols; ++pid_n)
        for (std::int64_t pid_m = first_pid_m; pid_m < first_pid_m + group_size_m; ++pid_m)
          seq.push_back((plane * p.rows + pid_m) * p.cols + pid_n);
    }
  return seq;
}

// The tutorial's formula for launch position `first`, then the same walk as sequence().
void GroupedOrder::coordinates(const plan::TileGrid& grid, std::int64_t first, std::int64_t count,
                               TileCoord* out) const {
  const detail::Planes p = detail::planes(grid);
  const std::int64_t per_plane = p.rows * p.cols, in_group = group_m_ * p.cols;
  const std::int64_t pid = first % per_plane, in = pid % in_group;
  std::int64_t first_pid_m = pid / in_group * group_m_;
  std::int64_t size_m = std::min(p.rows - first_pid_m, group_m_);
  TileCoord t{.plane = first / per_plane, .row = first_pid_m + in % size_m, .col = in / size_m};
  for (std::int64_t i = 0; i < count; ++i) {
    out[i] = t;
    if (++t.row < first_pid_m + size_m) continue;
    t.row = first_pid_m;
    if (++t.col < p.cols) continue;
    t.col = 0;
    first_pid_m += group_m_;
    if (first_pid_m >= p.rows) {
      first_pid_m = 0;
      ++t.plane;
    }
    size_m = std::min(p.rows - first_pid_m, group_m_);
    t.row = first_pid_m;
  }
}

}  // namespace tilesight::cache
