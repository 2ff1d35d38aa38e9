// The tile-program JSON format: the shipped examples parse and round-trip, and every broken
// rule gives its exact message at its JSON path (docs/plan-format.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "tilesight/kernels/gemm.h"
#include "tilesight/plan/plan_json.h"
#include "tilesight/util/json_input.h"

using nlohmann::json;
using tilesight::Errors;
namespace plan = tilesight::plan;

namespace {

json load_example(const std::string& file) {
  auto doc = tilesight::read_json_file(std::string(TILESIGHT_TEST_SOURCE_DIR) +
                                       "/resources/examples/" + file);
  REQUIRE(doc.ok());
  return doc.value();
}

// A small valid GEMM-like plan that each test breaks in one place.
json base_plan() {
  return json::parse(R"({
    "name": "t", "hardware": "h200",
    "tensors": [{"name": "A", "shape": [256, 256]}, {"name": "B", "shape": [256, 256]},
                {"name": "C", "shape": [256, 256]}],
    "grid": {"dims": [{"name": "m", "extent": 2}, {"name": "n", "extent": 2}]},
    "accesses": [{"tensor": "A", "tile_shape": [128, 64], "placement": "ddr",
                  "reuse_dims": ["n"], "loop": "k"},
                 {"tensor": "C", "tile_shape": [128, 128], "placement": "ddr",
                  "reuse_dims": [], "write": true}],
    "loops": [{"name": "k", "trip_count": 4, "stages": 2}],
    "actions": [{"name": "load_a", "op": "load", "operands": ["A"], "bytes": 16384, "loop": "k"},
                {"name": "load_b", "op": "load", "operands": ["B"], "bytes": 16384, "loop": "k"},
                {"name": "mma", "op": "mma_tc", "operands": ["A", "B"], "flops": 2097152,
                 "deps": ["load_a", "load_b"], "loop": "k"},
                {"name": "store_c", "op": "store", "operands": ["C"], "bytes": 32768,
                 "deps": ["mma"], "result": "ddr"}],
    "resources": {"smem_bytes": 65536, "registers_per_thread": 128, "warps": 4}
  })");
}

Errors errors_of(const json& doc) {
  auto r = plan::parse_tile_program(doc);
  return r.ok() ? Errors{} : r.errors();
}

std::string all_text(const Errors& errors) {
  return tilesight::join(errors);
}

bool contains(const Errors& errors, const std::string& text) {
  return std::any_of(errors.begin(), errors.end(),
                     [&](const tilesight::Error& e) { return e.to_string() == text; });
}

}  // namespace

TEST_CASE("the hand-written examples parse and round-trip", "[plan]") {
  for (const char* file : {"custom_gemm_h200.json", "custom_attention_h200.json"}) {
    INFO(file);
    auto parsed = plan::parse_tile_program(load_example(file));
    INFO((parsed.ok() ? std::string() : parsed.error_text()));
    REQUIRE(parsed.ok());
    CHECK(plan::validate(parsed.value()).empty());
    json once = plan::to_json(parsed.value());
    auto again = plan::parse_tile_program(once);
    REQUIRE(again.ok());
    CHECK(plan::to_json(again.value()) == once);
  }
}

TEST_CASE("the GEMM example holds the numbers worked out by hand", "[plan]") {
  auto p = plan::parse_tile_program(load_example("custom_gemm_h200.json")).value();
  CHECK(p.hardware == "h200");
  CHECK(p.kernel == "custom");
  CHECK(p.grid.tiles() == 32 * 32);
  CHECK(p.grid.order.kind == plan::LaunchOrderKind::kGrouped);
  CHECK(p.grid.order.group_m == 8);
  REQUIRE(p.actions.size() == 4);
  CHECK(p.actions[0].bytes == 128 * 64 * 2);
  CHECK(p.actions[2].flops == 2.0 * 128 * 128 * 64);
  CHECK(p.actions[2].deps == std::vector<std::size_t>{0, 1});
  CHECK(p.actions[2].mma == tilesight::MmaInstruction::kWgmma);
  CHECK(p.actions[3].result_level == plan::Placement::kDdr);
  CHECK(p.actions[3].loop.empty());
  CHECK(p.executions_per_tile("k") == 64);
  CHECK(p.find_loop("k")->stages == 3);
  CHECK(p.find_tensor("A")->bytes() == 4096.0 * 4096 * 2);
  CHECK(p.resources.smem_bytes == 3 * (16384 + 16384));
}

TEST_CASE("the attention example has the FlashAttention-2 structure", "[plan]") {
  auto p = plan::parse_tile_program(load_example("custom_attention_h200.json")).value();
  CHECK(p.grid.tiles() == 4 * 32 * (4096 / 128));
  CHECK(p.executions_per_tile("kv") == 4096 / 64);
  auto exp = std::find_if(p.actions.begin(), p.actions.end(),
                          [](const plan::TileAction& a) { return a.name == "exp"; });
  REQUIRE(exp != p.actions.end());
  CHECK(exp->op == plan::OpKind::kExp);
  CHECK(exp->sfu_ops == 128 * 64);
  CHECK(p.actions.front().loop.empty());  // load_q runs once per tile
  CHECK(p.actions.back().name == "store_o");
  CHECK(p.actions.back().loop.empty());
}

TEST_CASE("defaults of optional fields", "[plan]") {
  auto p = plan::parse_tile_program(base_plan()).value();
  CHECK(p.tensors[0].dtype == tilesight::DType::kBF16);
  CHECK(p.grid.order.kind == plan::LaunchOrderKind::kRowMajor);
  CHECK(p.accesses[0].write == false);
  const plan::TileAction& load = p.actions[0];
  CHECK(load.flops == 0);
  CHECK(load.sfu_ops == 0);
  CHECK(load.dtype == tilesight::DType::kBF16);
  CHECK(load.mma == tilesight::MmaInstruction::kWgmma);
  CHECK(load.result_level == plan::Placement::kRegister);
  CHECK(p.actions[3].loop.empty());

  json doc = base_plan();
  doc["loops"][0].erase("stages");
  CHECK(plan::parse_tile_program(doc).value().loops[0].stages == 1);
}

TEST_CASE("names that do not resolve are reported at their path", "[plan]") {
  json doc = base_plan();
  doc["actions"][3]["deps"][0] = "qk";
  doc["actions"][0]["operands"][0] = "Z";
  doc["actions"][1]["loop"] = "kk";
  doc["accesses"][0]["tensor"] = "Q";
  doc["accesses"][0]["reuse_dims"][0] = "x";
  doc["accesses"][1]["loop"] = "j";
  doc["loops"][0]["parent"] = "outer";
  Errors errors = errors_of(doc);
  INFO(all_text(errors));
  CHECK(contains(errors, "actions[3].deps[0]: unknown action \"qk\""));
  CHECK(contains(errors, "actions[0].operands[0]: unknown tensor \"Z\""));
  CHECK(contains(errors, "actions[1].loop: unknown loop \"kk\""));
  CHECK(contains(errors, "accesses[0].tensor: unknown tensor \"Q\""));
  CHECK(contains(errors, "accesses[0].reuse_dims[0]: unknown grid dim \"x\""));
  CHECK(contains(errors, "accesses[1].loop: unknown loop \"j\""));
  CHECK(contains(errors, "loops[0].parent: unknown loop \"outer\""));
  CHECK(errors.size() == 7);  // every error, not only the first
}

TEST_CASE("unknown and missing fields, wrong types", "[plan]") {
  json doc = base_plan();
  doc["actions"][2]["flop"] = 1;
  doc["tensors"][1].erase("name");
  doc["grid"]["dims"][0]["extent"] = "2";
  doc["actions"][0]["deps"] = "load_b";
  doc["accesses"][1]["write"] = 1;
  doc["resources"] = {{"smem_bytes", 0}, {"registers_per_thread", 0}, {"wraps", 4}};
  Errors errors = errors_of(doc);
  INFO(all_text(errors));
  CHECK(contains(errors, "actions[2].flop: unknown field \"flop\" (did you mean \"flops\"?)"));
  CHECK(contains(errors, "tensors[1].name: missing required field"));
  CHECK(contains(errors, "grid.dims[0].extent: must be an integer, got a string"));
  CHECK(contains(errors, "actions[0].deps: must be an array, got a string"));
  CHECK(contains(errors, "accesses[1].write: must be true or false, got 1"));
  CHECK(contains(errors, "resources.warps: missing required field"));
  CHECK(contains(errors, "resources.wraps: unknown field \"wraps\" (did you mean \"warps\"?)"));
  // The missing name is reported once, not again as an empty one.
  CHECK(all_text(errors).find("tensors[1].name: must not be empty") == std::string::npos);

  CHECK(contains(errors_of(json::array()), "must be an object, got an array"));
  json no_actions = base_plan();
  no_actions.erase("actions");
  CHECK(contains(errors_of(no_actions), "actions: missing required field"));
  no_actions["actions"] = json::array();
  CHECK(contains(errors_of(no_actions), "actions: must have at least one action"));
}

TEST_CASE("unknown names of ops, placements, dtypes list the allowed ones", "[plan]") {
  json doc = base_plan();
  doc["actions"][2]["op"] = "matmul";
  doc["actions"][2]["mma"] = "hmma";
  doc["accesses"][0]["placement"] = "hbm";
  doc["tensors"][0]["dtype"] = "bf8";
  doc["grid"]["launch_order"] = {{"kind", "zigzag"}};
  Errors errors = errors_of(doc);
  INFO(all_text(errors));
  CHECK(contains(errors,
                 "actions[2].op: unknown op \"matmul\" (expected one of load, store, "
                 "mma_tc, mma_cuda, reduce, exp, rescale, remote, fused)"));
  CHECK(contains(errors,
                 "actions[2].mma: unknown mma instruction \"hmma\" (expected one of "
                 "wgmma, mma_sync, tcgen05)"));
  CHECK(contains(errors,
                 "accesses[0].placement: unknown placement \"hbm\" (expected one of "
                 "register, tmem, smem, l15, l2, ddr)"));
  CHECK(contains(errors,
                 "tensors[0].dtype: unknown dtype \"bf8\" (expected one of bf16, fp16, "
                 "fp8, tf32, fp32)"));
  CHECK(contains(errors,
                 "grid.launch_order.kind: unknown launch order \"zigzag\" (expected one "
                 "of row_major, column_major, grouped, z_order)"));
}

TEST_CASE("duplicate names", "[plan]") {
  json doc = base_plan();
  doc["tensors"][2]["name"] = "A";
  doc["actions"][1]["name"] = "load_a";
  doc["grid"]["dims"][1]["name"] = "m";
  doc["loops"].push_back({{"name", "k"}, {"trip_count", 2}});
  Errors errors = errors_of(doc);
  INFO(all_text(errors));
  CHECK(contains(errors, "tensors[2].name: duplicate tensor name \"A\" (first at tensors[0])"));
  CHECK(
      contains(errors, "actions[1].name: duplicate action name \"load_a\" (first at actions[0])"));
  CHECK(
      contains(errors, "grid.dims[1].name: duplicate grid dim name \"m\" (first at grid.dims[0])"));
  CHECK(contains(errors, "loops[1].name: duplicate loop name \"k\" (first at loops[0])"));
}

TEST_CASE("sizes must be positive and real", "[plan]") {
  json doc = base_plan();
  doc["grid"]["dims"][0]["extent"] = 1e30;
  doc["grid"]["dims"][1]["extent"] = 0;
  doc["loops"][0]["trip_count"] = 64.0;
  doc["loops"][0]["stages"] = 0;
  doc["tensors"][0]["shape"][1] = 4294967296;
  doc["actions"][0]["bytes"] = -1;
  doc["actions"][2]["flops"] = 1e30;
  doc["accesses"][1]["tile_shape"] = {128, 0};
  doc["resources"]["warps"] = 0;
  doc["actions"][2]["mma_n"] = 512;
  Errors errors = errors_of(doc);
  INFO(all_text(errors));
  CHECK(contains(errors, "grid.dims[0].extent: must be an integer, got 1e+30"));
  CHECK(contains(errors, "grid.dims[1].extent: must be positive, got 0"));
  CHECK(contains(errors, "loops[0].trip_count: must be an integer, got 64.0"));
  CHECK(contains(errors, "loops[0].stages: must be positive, got 0"));
  CHECK(contains(errors, "tensors[0].shape[1]: must be at most 2147483647, got 4294967296"));
  CHECK(contains(errors, "actions[0].bytes: must not be negative, got -1"));
  CHECK(contains(errors, "actions[2].flops: must be at most 1e+21, got 1e+30"));
  CHECK(contains(errors, "accesses[1].tile_shape[1]: must be positive, got 0"));
  CHECK(contains(errors, "resources.warps: must be positive, got 0"));
  CHECK(contains(errors, "actions[2].mma_n: must be at most 256, got 512"));
}

TEST_CASE("tile shapes: rank must match, larger than the tensor is fine", "[plan]") {
  json doc = base_plan();
  doc["accesses"][0]["tile_shape"] = {128, 64, 2};
  CHECK(
      contains(errors_of(doc), "accesses[0].tile_shape: has 3 dimensions but tensor \"A\" has 2"));
  doc["accesses"][0]["tile_shape"] = {512, 1024};  // masked edge tiles
  CHECK(errors_of(doc).empty());
}

TEST_CASE("dependency cycles name their actions", "[plan]") {
  json doc = base_plan();
  doc["actions"] = json::parse(R"([
    {"name": "a", "op": "load", "deps": ["c"]},
    {"name": "b", "op": "exp", "deps": ["a"]},
    {"name": "c", "op": "reduce", "deps": ["b"]},
    {"name": "d", "op": "store", "deps": ["c"]}])");
  Errors errors = errors_of(doc);
  INFO(all_text(errors));
  CHECK(contains(errors, "actions: dependency cycle: a -> b -> c -> a"));

  doc["actions"] = json::parse(R"([{"name": "x", "op": "load"},
                                   {"name": "self", "op": "exp", "deps": ["self"]}])");
  CHECK(contains(errors_of(doc), "actions: dependency cycle: self -> self"));
}

TEST_CASE("loop parent cycles", "[plan]") {
  json doc = base_plan();
  doc["loops"] = json::parse(R"([{"name": "k", "trip_count": 4, "parent": "j"},
                                 {"name": "j", "trip_count": 2, "parent": "k"}])");
  CHECK(contains(errors_of(doc), "loops: parent cycle: k -> j -> k"));
  doc["loops"] = json::parse(R"([{"name": "k", "trip_count": 4, "parent": "k"}])");
  CHECK(contains(errors_of(doc), "loops: parent cycle: k -> k"));
}

TEST_CASE("nested loops multiply executions; deps may cross loop levels", "[plan]") {
  json doc = base_plan();
  doc["loops"] = json::parse(R"([{"name": "outer", "trip_count": 3},
                                 {"name": "k", "trip_count": 4, "stages": 2, "parent": "outer"}])");
  auto p = plan::parse_tile_program(doc);
  REQUIRE(p.ok());
  CHECK(p->executions_per_tile("k") == 12);
  CHECK(p->executions_per_tile("outer") == 3);
  CHECK(p->executions_per_tile("") == 1);
}

TEST_CASE("validate checks programs built in C++", "[plan]") {
  plan::TileProgram p = plan::parse_tile_program(base_plan()).value();
  CHECK(plan::validate(p).empty());
  p.actions[2].deps = {0, 9, 0};
  p.actions[1].flops = std::nan("");
  p.grid.order.kind = plan::LaunchOrderKind::kGrouped;
  p.grid.dims.pop_back();
  p.accesses[0].reuse_dims = {"m"};
  Errors errors = plan::validate(p);
  INFO(all_text(errors));
  CHECK(contains(errors, "actions[2].deps[1]: no action with index 9 (the program has 4 actions)"));
  CHECK(contains(errors, "actions[2].deps[2]: duplicate dependency \"load_a\""));
  CHECK(contains(errors, "actions[1].flops: must be a finite number, got nan"));
  CHECK(
      contains(errors, "grid.launch_order.kind: grouped order needs at least 2 grid dims, got 1"));
  CHECK(errors.size() == 4);
}

TEST_CASE("a plan names the Z-order, on grids of two dims or more", "[plan]") {
  json j = base_plan();
  j["grid"]["launch_order"] = {{"kind", "z_order"}};
  const auto p = plan::parse_tile_program(j);
  REQUIRE(p.ok());
  CHECK(p.value().grid.order.kind == plan::LaunchOrderKind::kZOrder);
  CHECK(plan::to_json(p.value())["grid"]["launch_order"] == json{{"kind", "z_order"}});
  plan::TileProgram one = p.value();
  one.grid.dims.pop_back();
  one.accesses[0].reuse_dims.clear();
  const Errors errors = plan::validate(one);
  INFO(all_text(errors));
  CHECK(contains(errors, "grid.launch_order.kind: z_order order needs at least 2 grid dims, got 1"));
}

TEST_CASE("a persistent schedule's swizzle parses, round-trips and is checked", "[plan]") {
  json j = base_plan();
  j["schedule"] = {{"persistent", true}, {"raster", "n"}, {"swizzle", 0}};
  auto p = plan::parse_tile_program(j);
  REQUIRE(p.ok());
  CHECK(p->schedule.swizzle == 0);
  CHECK(plan::to_json(p.value())["schedule"]["swizzle"] == 0);
  j["schedule"].erase("swizzle");
  CHECK(plan::parse_tile_program(j)->schedule.swizzle == 1);  // a plain raster
  // A lifted persistent GEMM asks for cuBLAS's rule and keeps it through a plan file.
  tilesight::kernels::GemmParams g;
  g.M = g.N = g.K = 4096, g.persistent = true, g.warps = 12;
  const auto lifted = tilesight::kernels::lift_gemm(g);
  CHECK(lifted.schedule.swizzle == 0);
  CHECK(plan::parse_tile_program(plan::to_json(lifted))->schedule.swizzle == 0);
  j["schedule"]["swizzle"] = -1;
  INFO(all_text(errors_of(j)));
  CHECK(errors_of(j).size() == 1);
  CHECK(errors_of(j).front().path == "schedule.swizzle");
  json gp = {{"M", 64}, {"N", 64}, {"K", 64}, {"persistent", true}, {"swizzle", -2}};
  const auto bad = tilesight::kernels::parse_gemm_params(gp);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().path == "params.swizzle");
}

TEST_CASE("a schedule's clusters and an access's TMA boxes parse, round-trip and are checked", "[plan]") {
  json j = base_plan();
  j["schedule"] = {{"cluster", {2, 1}}};
  auto p = plan::parse_tile_program(j);
  REQUIRE(p.ok());
  CHECK(p->schedule.cluster_rows == 2);
  CHECK(p->schedule.cluster_cols == 1);
  CHECK(plan::to_json(p.value())["schedule"]["cluster"] == json{2, 1});
  CHECK_FALSE(plan::to_json(plan::parse_tile_program(base_plan()).value()).contains("schedule"));
  // A lifted GEMM's cluster_m x cluster_n is the grid's rows x columns, through a plan file.
  tilesight::kernels::GemmParams g;
  g.M = g.N = g.K = 4096, g.persistent = true, g.warps = 12, g.cluster_n = 2;
  const auto back = plan::parse_tile_program(plan::to_json(tilesight::kernels::lift_gemm(g)));
  REQUIRE(back.ok());
  CHECK(back->schedule.cluster_rows == 1);
  CHECK(back->schedule.cluster_cols == 2);
  // Its A and B are TMA boxes (their edges fill, not wrap), through the plan file too.
  CHECK(back->accesses[0].tma_box);
  CHECK(back->accesses[1].tma_box);
  CHECK_FALSE(back->accesses[2].tma_box);
  g.persistent = false;
  CHECK_FALSE(tilesight::kernels::lift_gemm(g).accesses[0].tma_box);
  j["accesses"][0]["tma_box"] = "yes";
  REQUIRE(errors_of(j).size() == 1);
  CHECK(errors_of(j).front().path == "accesses[0].tma_box");
  j["accesses"][0].erase("tma_box");
  for (const json& bad : {json{0, 1}, json{4, 8}, json{2}, json("2x1")}) {
    j["schedule"]["cluster"] = bad;
    INFO(bad.dump() << ": " << all_text(errors_of(j)));
    REQUIRE(errors_of(j).size() == 1);
    CHECK(errors_of(j).front().path == "schedule.cluster");
  }
}

TEST_CASE("to_json writes deps by name and keeps every field", "[plan]") {
  plan::TileProgram p = plan::parse_tile_program(base_plan()).value();
  p.kernel = "gemm";
  p.actions[2].mma = tilesight::MmaInstruction::kMmaSync;
  p.actions[2].sfu_ops = 0.5;
  p.grid.order = {plan::LaunchOrderKind::kGrouped, 4};
  json j = plan::to_json(p);
  CHECK(j["actions"][3]["deps"] == json::array({"mma"}));
  CHECK(j["kernel"] == "gemm");
  CHECK(j["actions"][0]["bytes"].is_number_integer());
  auto back = plan::parse_tile_program(j);
  REQUIRE(back.ok());
  CHECK(back->kernel == "gemm");
  CHECK(back->grid.order.group_m == 4);
  CHECK(back->actions[2].mma == tilesight::MmaInstruction::kMmaSync);
  CHECK(back->actions[2].sfu_ops == 0.5);
  CHECK(plan::to_json(back.value()) == j);
}

TEST_CASE("a lifted GEMM's staged-load L1 fields survive the round trip", "[plan][gemm]") {
  // 3000 x 5000 x 2048 stages B through registers (N = 5000 is not a multiple of 16): its load
  // carries the L1 fields the resource vector reads; they must come back from the plan file.
  tilesight::kernels::GemmParams g;
  g.M = 3000, g.N = 5000, g.K = 2048, g.block_m = 64, g.block_n = 64, g.block_k = 128, g.stages = 5;
  const auto lifted = tilesight::kernels::lift_gemm(g);
  const json j = plan::to_json(lifted);
  auto back = plan::parse_tile_program(j);
  REQUIRE(back.ok());
  const auto& b = back->actions[1];
  CHECK(b.l1_tile_sectors == lifted.actions[1].l1_tile_sectors);
  CHECK(b.l1_window_bytes == 20480);
  CHECK(b.l1_displacing_sectors == 512);
  CHECK(b.l1_beside_bytes == lifted.actions[1].l1_beside_bytes);
  CHECK(plan::to_json(back.value()) == j);
  // The fields are checked like the others.
  json bad = j;
  bad["actions"][1]["l1_window_bytes"] = -1;
  CHECK_FALSE(plan::parse_tile_program(bad).ok());
}

TEST_CASE("name <-> enum functions are inverse", "[plan]") {
  for (auto op : plan::kAllOps) CHECK(plan::op_from_name(plan::op_name(op)) == op);
  for (auto pl : plan::kAllPlacements)
    CHECK(plan::placement_from_name(plan::placement_name(pl)) == pl);
  for (auto k : plan::kAllLaunchOrders)
    CHECK(plan::launch_order_from_name(plan::launch_order_name(k)) == k);
  CHECK_FALSE(plan::op_from_name("matmul"));
  CHECK(plan::placement_name(plan::Placement::kL15) == "l15");
}

TEST_CASE("deps must be action names", "[plan]") {
  json doc = base_plan();
  doc["actions"][2]["deps"] = json::array({"load_a", 3, ""});
  Errors errors = errors_of(doc);
  INFO(all_text(errors));
  CHECK(contains(errors, "actions[2].deps[1]: must be an action name, got an integer"));
  CHECK(contains(errors, "actions[2].deps[2]: unknown action \"\""));
  CHECK(errors.size() == 2);
}
