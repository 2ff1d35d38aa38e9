// A TMA tensor copy fills the rows of its box past the tensor's edge with zeros, but they are
// not free: tests/validation/h200/tma_oob.cu (ncu_tma_multicast.py --oob, ncu_tma_oob.csv on
// the H200) has one CTA copy an R-row x 4096-column bf16 matrix in boxes of B >= R rows x 64
// columns (128-byte rows) and counts the L2 read lookups. The rows inside are looked up once
// (misses, as many as their sectors); the rows past the edge make whole-line requests that all
// hit, per 32-row piece of the box: a piece wholly past the edge one line per 4 rows (B = 64,
// R = 32: 8 lines a box; B = 128: 24 at R = 32, 16 at R = 64), a piece partly past it 0.875 of
// a line per row past the edge, at most 7 (B = 8: 6.1, 5.25, 3.5 lines at R = 1, 2, 4; B = 16
// and 32: 7.0-7.9 at R = 1-16). Over the 24 cases with rows past the edge the rule is within
// 0.9 lines of the count (R = 1, where 7.9 are counted and 7 ruled).
// Past the edge along the contiguous dim (a C-column x 4096-row matrix, C = 8, 16, 32, in boxes
// of 64 rows x 64 columns), each box row looks up more than its inside sectors: 4.34, 1.60 and
// 0.88 sectors more (mostly hits) with 1/8, 1/4 and 1/2 of its 128 bytes inside (16, 32 and
// 64 bytes: half a sector, one, two).
#include "tma_edge.h"

#include <algorithm>

namespace tilesight::cache::detail {

namespace {

constexpr std::int64_t kPieceRows = 32;
// (share of a 128-byte box row inside, sectors looked up past it), measured; none at 1.
constexpr double kColumnEdge[][2] = {{0.125, 4.34}, {0.25, 1.60}, {0.5, 0.88}, {1.0, 0.0}};
constexpr double kPartLinesPerRow = 0.875, kPartLinesMax = 7, kWholeRowsPerLine = 4, kLineBytes = 128;

}  // namespace

double tma_edge_lines(std::int64_t box_rows, std::int64_t rows) {
  double lines = 0;
  for (std::int64_t first = 0; first < box_rows; first += kPieceRows) {
    const std::int64_t size = std::min(kPieceRows, box_rows - first);
    const std::int64_t inside = std::clamp<std::int64_t>(rows - first, 0, size), past = size - inside;
    if (past == 0) continue;
    lines += inside == 0 ? static_cast<double>(size) / kWholeRowsPerLine
                         : std::min(kPartLinesMax, kPartLinesPerRow * static_cast<double>(past));
  }
  return lines;
}

double tma_column_edge_sectors(double share) {
  if (share >= 1) return 0;
  if (share <= kColumnEdge[0][0]) return kColumnEdge[0][1];
  std::size_t i = 1;
  while (kColumnEdge[i][0] < share) ++i;
  const double f = (share - kColumnEdge[i - 1][0]) / (kColumnEdge[i][0] - kColumnEdge[i - 1][0]);
  return kColumnEdge[i - 1][1] + f * (kColumnEdge[i][1] - kColumnEdge[i - 1][1]);
}

double tma_edge_bytes(const plan::TileProgram& p, const plan::TensorAccess& a) {
  const plan::Tensor* t = p.find_tensor(a.tensor);
  if (!a.tma_box || a.write || !t || t->shape.size() < 2 || a.tile_shape.size() != t->shape.size()) return 0;
  const std::size_t rows_dim = t->shape.size() - 2, last = t->shape.size() - 1;
  const std::int64_t box = a.tile_shape[rows_dim], extent = t->shape[rows_dim];
  const std::int64_t width = a.tile_shape[last], columns = t->shape[last];
  if (box <= 0 || extent <= 0 || width <= 0 || columns <= 0) return 0;
  // Measured with 128-byte box rows (all of cuBLAS's boxes: 64 bf16 or 128 fp8); wider rows
  // taken as that many 128-byte rows side by side.
  const double row_lines = std::max(1.0, static_cast<double>(width) * dtype_bytes(t->dtype) / kLineBytes);
  double bytes = 0;
  if (extent % box != 0) {  // the last tile along the rows runs past the edge
    const std::int64_t tiles = (extent + box - 1) / box, inside = extent - (tiles - 1) * box;
    bytes += tma_edge_lines(box, inside) * row_lines * kLineBytes / static_cast<double>(tiles);
  }
  if (columns % width != 0) {  // the last tile along the columns: each of its rows inside
    const std::int64_t tiles = (columns + width - 1) / width, inside = columns - (tiles - 1) * width;
    const double rows = static_cast<double>(std::min(box, extent));
    bytes += tma_column_edge_sectors(static_cast<double>(inside) / static_cast<double>(width)) * row_lines * 32.0 * rows /
             static_cast<double>(tiles);
  }
  return bytes;
}

}  // namespace tilesight::cache::detail
