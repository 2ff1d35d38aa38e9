// Morton (Z-order) launch: tiles sorted by their interleaved (row, col) bits, so every
// aligned 2^k x 2^k square of the grid launches together. Works for any extents: the code is
// computed per tile, not by walking a power-of-two bounding square.
#include <algorithm>
#include <numeric>

#include "tilesight/cache/launch_order.h"

namespace tilesight::cache {

namespace {

std::uint64_t spread_bits(std::uint64_t v) {
  v &= 0xffffffffULL;
  v = (v | (v << 16)) & 0x0000ffff0000ffffULL;
  v = (v | (v << 8)) & 0x00ff00ff00ff00ffULL;
  v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0fULL;
  v = (v | (v << 2)) & 0x3333333333333333ULL;
  v = (v | (v << 1)) & 0x5555555555555555ULL;
  return v;
}

}  // namespace

std::vector<std::int64_t> ZOrder::sequence(const plan::TileGrid& grid) const {
  const detail::Planes p = detail::planes(grid);
  const std::int64_t per_plane = p.rows * p.cols;
  std::vector<std::int64_t> in_plane(static_cast<std::size_t>(per_plane));
  std::iota(in_plane.begin(), in_plane.end(), std::int64_t{0});
  auto code = [&](std::int64_t t) {
    return (spread_bits(static_cast<std::uint64_t>(t / p.cols)) << 1) | spread_bits(static_cast<std::uint64_t>(t % p.cols));
  };
  std::sort(in_plane.begin(), in_plane.end(), [&](std::int64_t a, std::int64_t b) { return code(a) < code(b); });
  std::vector<std::int64_t> seq;
  seq.reserve(static_cast<std::size_t>(p.count * per_plane));
  for (std::int64_t plane = 0; plane < p.count; ++plane)
    for (std::int64_t t : in_plane) seq.push_back(plane * per_plane + t);
  return seq;
}

}  // namespace tilesight::cache
