#include "tilesight/kernels/ulysses.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

AttentionParams ulysses_local(const UlyssesParams& p) {
  AttentionParams a = p.attention;
  a.heads /= p.devices;
  a.kv_heads /= p.devices;
  return a;
}

std::int64_t ulysses_pieces(const UlyssesParams& p) {
  return std::max<std::int64_t>(1, std::min(p.attention.kv_heads / p.devices, p.devices));
}

AttentionParams ulysses_piece(const UlyssesParams& p, std::int64_t pieces) {
  AttentionParams a = ulysses_local(p);
  a.heads /= pieces;
  a.kv_heads /= pieces;
  return a;
}

Result<UlyssesParams> parse_ulysses_params(const nlohmann::json& params, const std::string& path) {
  if (!params.is_object()) return Error{path, "must be an object, got " + json_type_phrase(params)};
  Errors errors;
  UlyssesParams p;
  auto a = parse_attention_params(read_comm_fields(params, path, p, errors), path);
  if (!a) {
    errors.insert(errors.end(), a.errors().begin(), a.errors().end());
    return errors;
  }
  p.attention = *a;
  if (!errors.empty()) return errors;
  // Head shards need whole heads (and whole KV heads) per device; sequence shards whole rows.
  for (auto [key, v] : {std::pair<const char*, std::int64_t>{"heads", p.attention.heads},
                        {"kv_heads", p.attention.kv_heads},
                        {"seq_q", p.attention.seq_q},
                        {"seq_kv", p.attention.seq_kv}})
    if (v % p.devices != 0)
      errors.push_back({nest(path, key), "must be a multiple of devices (" + std::to_string(p.devices) + "), got " +
                                             std::to_string(v)});
  if (!errors.empty()) return errors;
  return p;
}

}  // namespace tilesight::kernels
