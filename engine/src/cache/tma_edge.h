// What a TMA box that runs past its tensor's edge looks up in L2 (plan::TensorAccess::tma_box).
#pragma once

#include <cstdint>

#include "tilesight/plan/tile_program.h"

namespace tilesight::cache::detail {

// The line requests (128 bytes each, four sectors, all hits) a box of `box_rows` rows makes for
// its rows past the tensor's edge, `rows` of them inside (0 < rows < box_rows).
double tma_edge_lines(std::int64_t box_rows, std::int64_t rows);

// Sectors a box row looks up past the tensor's edge along the contiguous dim, with `share` of
// its 128 bytes inside (0 < share <= 1).
double tma_column_edge_sectors(double share);

// L2 bytes a tile's execution of access `a` looks up for its box rows past the tensor's edge,
// averaged over the tiles along the rows' dim (only the last of them runs past it): 0 unless
// the access is a TMA box; likewise past the edge along the contiguous dim (the columns). The
// rows are the dim before the contiguous one.
double tma_edge_bytes(const plan::TileProgram& p, const plan::TensorAccess& a);

}  // namespace tilesight::cache::detail
