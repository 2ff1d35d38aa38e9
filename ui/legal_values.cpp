#include "ui/legal_values.h"

#include <algorithm>
#include <map>
#include <optional>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"

namespace tilesight::ui {

namespace {

constexpr int kMaxStages = 16;  // parse_gemm_params' limit

// The limits of a profile, read once per name (the panel asks on every edit).
std::optional<hw::SmLimits> limits_of(const std::string& hardware) {
  static std::map<std::string, std::optional<hw::SmLimits>> cache;
  if (hardware.empty()) return std::nullopt;
  auto it = cache.find(hardware);
  if (it == cache.end()) {
    auto spec = hw::load_profile(hardware);
    it = cache.emplace(hardware, spec ? std::optional(spec->limits) : std::nullopt).first;
  }
  return it->second;
}

// Stages whose operand buffers fit one block's shared memory with this tile; at least 1 so
// the slider has a position (the checks under the form say when even that does not fit).
std::vector<int> fitting_stages(const nlohmann::json& params, const std::optional<hw::SmLimits>& limits) {
  auto parsed = kernels::parse_gemm_params(params);
  std::vector<int> out{1};
  for (int s = 2; s <= kMaxStages; ++s) {
    if (parsed && limits) {
      kernels::GemmParams p = *parsed;
      p.stages = s;
      // As the engine's occupancy check: the block's limit, and the SM's with the reserve.
      const auto smem = static_cast<double>(kernels::gemm_smem_bytes(p));
      if (smem > limits->smem_bytes_per_block || smem + limits->smem_reserved_per_block > limits->smem_bytes_per_sm)
        break;
    }
    out.push_back(s);
  }
  return out;
}

std::vector<int> block_shapes(const std::optional<hw::SmLimits>& limits) {
  const int max_warps = limits ? static_cast<int>(limits->max_threads_per_block / 32) : 32;
  std::vector<int> out;
  for (int w : {1, 2, 4, 8, 12, 16})
    if (w <= max_warps) out.push_back(w);
  return out;
}

}  // namespace

std::vector<int> powers_of_two(int low, int high) {
  std::vector<int> out;
  for (long long v = low; v <= high; v *= 2) out.push_back(static_cast<int>(v));
  return out;
}

std::vector<int> template_slider_values(const std::string& key, long long low, long long high) {
  std::vector<int> all;
  if (key == "block_m" || key == "block_n" || key == "block_k") all = powers_of_two(16, 256);
  else if (key == "warps") all = {1, 2, 4, 8, 12, 16, 32};
  else if (key == "stages") all = {1, 2, 3, 4, 5, 6, 7, 8};
  else if (key == "group_m") all = powers_of_two(1, 64);
  std::vector<int> out;
  for (int v : all)
    if (v >= low && v <= high) out.push_back(v);
  return out;
}

std::vector<int> gemm_slider_values(const std::string& key, const nlohmann::json& params,
                                    const std::string& hardware) {
  if (key == "M" || key == "N" || key == "K") return powers_of_two(128, 65536);
  if (key == "block_m" || key == "block_n" || key == "block_k") return powers_of_two(16, 256);
  if (key == "group_m") return powers_of_two(1, 64);
  if (key == "warps") return block_shapes(limits_of(hardware));
  if (key == "stages") return fitting_stages(params, limits_of(hardware));
  return {};
}

}  // namespace tilesight::ui
