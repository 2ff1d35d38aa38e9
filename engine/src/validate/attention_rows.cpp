#include "attention_rows.h"

#include <regex>

namespace tilesight::validate {

namespace {

std::string cell(const std::map<std::string, std::string>& cells, const std::string& key) {
  auto it = cells.find(key);
  return it == cells.end() ? "" : it->second;
}

// Grid extents of the row's first kernel ("x;y;z|...").
bool first_grid(const std::map<std::string, std::string>& cells, long long xyz[3]) {
  static const std::regex grid(R"(^(\d+);(\d+);(\d+))");
  std::smatch m;
  const std::string g = cell(cells, "grids");
  if (!std::regex_search(g, m, grid)) return false;
  for (int i = 0; i < 3; ++i) xyz[i] = std::stoll(m[static_cast<std::size_t>(i + 1)].str());
  return true;
}

std::string map_flash(const std::map<std::string, std::string>& cells, nlohmann::json& params) {
  static const std::regex traits(R"(Flash_fwd_kernel_traits<(\d+), (\d+), (\d+), (\d+),)");
  const std::string kernels = cell(cells, "kernels");
  std::smatch m;
  if (!std::regex_search(kernels, m, traits))
    return "no Flash_fwd_kernel_traits in the kernels column";
  params["variant"] = "fa2";
  params["mma"] = "mma_sync";
  params["block_m"] = std::stoll(m[2].str());
  params["block_n"] = std::stoll(m[3].str());
  params["warps"] = std::stoll(m[4].str());
  if (kernels.find("splitkv") != std::string::npos) {
    long long g[3];
    if (!first_grid(cells, g)) return "split-KV kernel without a readable grid";
    params["split_kv"] = g[1];  // FA2: grid (m blocks, splits, batch x heads)
  }
  return "";
}

std::string map_cudnn(const std::map<std::string, std::string>& cells, nlohmann::json& params) {
  static const std::regex tile(
      R"(sdpa_sm(\d+)_flash_fprop_(\w+?)_f16_knob_\d+_(\d+)x(\d+)x\d+_(\d+)x(\d+)x1)");
  const std::string kernels = cell(cells, "kernels");
  std::smatch m;
  if (!std::regex_search(kernels, m, tile))
    return "no cudnn sdpa flash_fprop kernel name to read the tile from";
  const bool hopper = m[2].str() == "wgmma";
  params["variant"] = hopper ? "fa3" : "fa2";
  params["mma"] = hopper ? "wgmma" : "mma_sync";  // sm80 wmma: the mma.sync family
  // The name's tile is one warp group's (wgmma m64): the sm90 kernel's block holds two consumer
  // groups on one 128-row query block, each K/V tile loaded once for both (its SASS: one TMA
  // load per key block per block, tests/validation/h200/cudnn_sdpa_sass_d64.csv).
  params["block_m"] = (hopper ? 2 : 1) * std::stoll(m[3].str());
  params["block_n"] = std::stoll(m[4].str());
  params["warps"] = hopper ? 12 : std::stoll(m[5].str()) * std::stoll(m[6].str());
  if (kernels.find('|') != std::string::npos) {
    long long g[3];
    if (!first_grid(cells, g)) return "split cudnn kernel without a readable grid";
    params["split_kv"] = g[0];  // (splits, heads, batch) + a lean_reduction kernel
  }
  return "";
}

}  // namespace

std::string map_attention_row(const std::map<std::string, std::string>& cells,
                              nlohmann::json& params) {
  if (params.contains("seq")) {
    params["seq_q"] = params["seq"];
    params["seq_kv"] = params["seq"];
    params.erase("seq");
  }
  const std::string backend = cell(cells, "backend");
  if (backend == "flash" || backend == "FLASH_ATTENTION") return map_flash(cells, params);
  if (backend == "cudnn" || backend == "CUDNN_ATTENTION") return map_cudnn(cells, params);
  if (!backend.empty()) return "unknown backend \"" + backend + "\"";
  params["variant"] = "fa2";
  if (!params.contains("mma")) params["mma"] = "wgmma";
  return "";
}

}  // namespace tilesight::validate
