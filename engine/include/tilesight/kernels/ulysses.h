// `ulysses_attention` (DESIGN.md; DeepSpeed-Ulysses): Q, K and V arrive sharded by sequence
// (seq/devices rows of every head on each device); an all-to-all turns them into head
// shards (all rows of heads/devices heads), each device runs local attention on its heads,
// and an all-to-all turns the output back into sequence shards. Parameters: the `attention`
// ones plus `devices`, optional `overlap` (none | stream | fused) and `algorithm` for the
// all-to-alls.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/kernels/attention.h"
#include "tilesight/kernels/fused_comm.h"

namespace tilesight::kernels {

struct UlyssesParams : CommFields {
  AttentionParams attention;  // the whole problem, as the user wrote it
};

// One device's attention: heads/devices query heads and kv_heads/devices key/value heads,
// every row; and one of its `pieces` (a slice of its KV head groups).
AttentionParams ulysses_local(const UlyssesParams& p);
AttentionParams ulysses_piece(const UlyssesParams& p, std::int64_t pieces);
// Pieces the shard loop cuts a device's heads into: its KV head groups, at most `devices`.
std::int64_t ulysses_pieces(const UlyssesParams& p);

Result<UlyssesParams> parse_ulysses_params(const nlohmann::json& params, const std::string& path = "params");

}  // namespace tilesight::kernels
