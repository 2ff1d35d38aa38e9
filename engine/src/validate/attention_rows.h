// Attention corpus rows -> `attention` template params (tests/validation/h200/
// attention_README.md). Internal to read_corpus.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace tilesight::validate {

// Fills the kernel configuration the measured library ran, from the row's cells:
//  - `backend` flash (SDPA FLASH_ATTENTION): variant fa2, mma_sync; block_m/block_n/warps
//    from the Flash_fwd_kernel_traits<d, block_m, block_n, warps> in `kernels`; a
//    flash_fwd_splitkv kernel's split count is its grid's y.
//  - `backend` cudnn (SDPA CUDNN_ATTENTION): the sm90 wgmma kernel is fa3-like (persistent,
//    3 warp groups = 12 warps) with the tile in its name (64x128); the decode sm80 wmma
//    kernel (16x128, 4 warps) is fa2 with mma_sync, split by its grid's x when a second
//    (reduction) kernel follows.
//  - no backend (Triton's fused-attention tutorial): fa2 structure with wgmma (Triton emits
//    wgmma on Hopper), the block config from the row's own columns.
// `seq` sets seq_q and seq_kv. Returns "" or why the row cannot be mapped.
std::string map_attention_row(const std::map<std::string, std::string>& cells,
                              nlohmann::json& params);

}  // namespace tilesight::validate
