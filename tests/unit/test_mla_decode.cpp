// The `mla_decode` template (FlashMLA-style, DeepSeek-V3 shapes): the lifted tile program
// against hand calculations, its tile-action DAG, KV reuse across head blocks, the split and
// the parameter errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/kernels/mla_decode.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/model/action_dag.h"

using namespace tilesight;
using nlohmann::json;

namespace {

kernels::MlaDecodeParams parse(const json& params) {
  auto p = kernels::parse_mla_decode_params(params);
  REQUIRE(p);
  return *p;
}

const plan::TileAction& action(const plan::TileProgram& prog, const std::string& name) {
  auto it = std::find_if(prog.actions.begin(), prog.actions.end(), [&](const auto& a) { return a.name == name; });
  REQUIRE(it != prog.actions.end());
  return *it;
}

std::string errors_of(const json& params) {
  auto r = kernels::read_plan(json{{"kernel", "mla_decode"}, {"params", params}});
  REQUIRE_FALSE(r);
  return r.error_text("; ");
}

}  // namespace

TEST_CASE("mla_decode lifts DeepSeek-V3 decode to FlashMLA's tile program", "[mla]") {
  const auto p = parse({{"batch", 64}, {"seq_kv", 4096}});
  CHECK(p.heads == 128);
  CHECK(p.kv_lora_rank == 512);
  CHECK(p.rope_dim == 64);
  CHECK(p.split_kv == 1);  // 64 x 2 head blocks = 128 blocks already fill the target
  const auto prog = kernels::lift_mla_decode(p);
  CHECK(prog.grid.tiles() == 64 * 2);
  CHECK(prog.grid.dims.back().name == "head_block");
  CHECK(prog.find_loop("kv")->trip_count == 4096 / 64);
  CHECK(prog.find_loop("kv")->stages == 2);
  CHECK(action(prog, "load_q").bytes == 64 * 576 * 2);
  CHECK(action(prog, "load_kv_latent").bytes == 64 * 512 * 2);
  CHECK(action(prog, "load_kv_rope").bytes == 64 * 64 * 2);
  CHECK(action(prog, "gemm_qk_latent").flops == 2.0 * 64 * 64 * 512);
  CHECK(action(prog, "gemm_qk_rope").flops == 2.0 * 64 * 64 * 64);
  CHECK(action(prog, "gemm_pv_wg0").flops == 2.0 * 64 * 64 * 256);  // half of the 512 columns
  CHECK(action(prog, "gemm_pv_wg1").flops == 2.0 * 64 * 64 * 256);
  CHECK(action(prog, "exp").sfu_ops == 64 * 64);
  CHECK(action(prog, "share_p").bytes == 64 * 64 * 2);
  CHECK(action(prog, "store_o").bytes == 64 * 512 * 2);
  // Q 64x576 + 2 stages of 64x576 KV + P 64x64, bf16: 229,376 B, one block per SM.
  CHECK(kernels::mla_smem_bytes(p) == 229376);
  // WG0: half of O (64 x 256 fp32) + scores (64 x 64) over 128 threads = 160, + 40.
  CHECK(kernels::mla_registers_per_thread(p) == 200);
  CHECK(prog.resources.warps == 8);
  // The value is the latent part of the KV row: no load of its own; both PV halves wait for it.
  CHECK(action(prog, "gemm_pv_wg0").deps == std::vector<std::size_t>{6, 9, 1});
  CHECK(action(prog, "gemm_pv_wg1").deps == std::vector<std::size_t>{8, 9, 1});
  for (const char* t : {"KV_latent", "KV_rope"}) {
    auto it = std::find_if(prog.accesses.begin(), prog.accesses.end(), [&](const auto& a) { return a.tensor == t; });
    REQUIRE(it != prog.accesses.end());
    CHECK(it->reuse_dims == std::vector<std::string>{"head_block"});
  }
}

TEST_CASE("mla_decode's 11 loop actions have 111 legal orders", "[mla]") {
  // Counted by hand over the DAG of mla_decode.h: the two loads and the QK slices fix a chain
  // up to exp; after it rowsum, share_p, rescale_o (free after rowmax) and the two PV halves
  // interleave. The paper's FlashMLA DAG has 11 actions and 132 orders; ours splits the score
  // GEMM in its latent and rope slices and the PV GEMM by warp group.
  const auto prog = kernels::lift_mla_decode(parse({{"batch", 64}, {"seq_kv", 4096}}));
  std::vector<std::size_t> loop;
  for (std::size_t i = 0; i < prog.actions.size(); ++i)
    if (prog.actions[i].loop == "kv") loop.push_back(i);
  REQUIRE(loop.size() == 11);
  const auto count = model::count_topological_orders(model::make_action_dag(prog, loop));
  CHECK(count.exact);
  CHECK(count.count == 111);
}

TEST_CASE("mla_decode splits small batches over the KV cache", "[mla]") {
  const auto p = parse({{"batch", 1}, {"seq_kv", 8192}, {"split_kv", true}});
  CHECK(p.split_kv == 64);  // 2 head blocks -> 128 / 2
  const auto prog = kernels::lift_mla_decode(p);
  CHECK(prog.launches == 2);
  CHECK(prog.grid.tiles() == 64 * 2);
  CHECK(prog.find_loop("kv")->trip_count == 8192 / 64 / 64);
  CHECK(action(prog, "store_partial").bytes == 64 * 512 * 4 + 64 * 4);
  CHECK(action(prog, "store_o").bytes == 64 * 512 * 2 / 64.0);
  CHECK(parse({{"batch", 1}, {"seq_kv", 8192}, {"split_kv", false}}).split_kv == 1);
  CHECK(parse({{"batch", 1}, {"seq_kv", 100}, {"split_kv", 16}}).split_kv == 2);  // 2 KV tiles
}

TEST_CASE("mla_decode parameter errors name their field", "[mla]") {
  CHECK_THAT(errors_of({{"batch", 1}}), Catch::Contains("params.seq_kv"));
  CHECK_THAT(errors_of({{"batch", 1}, {"seq_kv", 0}}), Catch::Contains("params.seq_kv: must be positive"));
  CHECK_THAT(errors_of({{"seq_kv", 64}, {"kv_lora_rank", 500}}), Catch::Contains("params.kv_lora_rank"));
  CHECK_THAT(errors_of({{"seq_kv", 64}, {"rope_dim", 40}}), Catch::Contains("params.rope_dim"));
  CHECK_THAT(errors_of({{"seq_kv", 64}, {"dtype", "fp8"}}), Catch::Contains("params.dtype"));
  CHECK_THAT(errors_of({{"seq_kv", 64}, {"head_dim", 128}}), Catch::Contains("unknown field \"head_dim\""));
  const auto both = errors_of({{"seq_kv", 64}, {"heads", 0}, {"block_n", 20}});
  CHECK_THAT(both, Catch::Contains("params.heads") && Catch::Contains("params.block_n"));
}
