// The values a config-panel slider steps through: the legal settings of a template
// parameter, not every integer the parser would take. Tile sizes are powers of two (16 to
// 256, the MMA shapes Triton and CUTLASS instantiate), warps the block shapes kernels are
// written for (1 to 8, and 12 and 16 for warp-specialised blocks) within the GPU's threads per
// block, stages those whose buffers fit the GPU's shared memory per block with this tile, and
// problem sizes powers of two. The spin box beside the slider still takes any value the
// parser accepts; the slider shows the nearest legal one.
//
//   block_m  16 32 64 128 256        warps  1 2 4 8 12 16     stages  1 .. (227 KiB / stage)
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilesight::ui {

// The legal values of the gemm template's field `key` for `params` on the single-GPU profile
// `hardware` (empty: no limit from the hardware), ascending; empty when the field has no
// slider (dtype, layout).
std::vector<int> gemm_slider_values(const std::string& key, const nlohmann::json& params,
                                    const std::string& hardware);

// The legal values of an integer field of the other templates' forms (ui/template_params.h)
// within the parser's range [low, high]: the tile fields (block_m, block_n, block_k), warps,
// stages (at most 8) and group_m; empty for a field without a slider (shapes, counts).
std::vector<int> template_slider_values(const std::string& key, long long low, long long high);

// Powers of two from `low` to `high` inclusive.
std::vector<int> powers_of_two(int low, int high);

}  // namespace tilesight::ui
