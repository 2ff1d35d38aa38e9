// Reading and writing the tile-program JSON format (docs/plan-format.md). Parsing checks each
// field's type and range where it stands; the cross-references (names, ranks, loops, the
// dependency DAG) are checked once, by validate() in plan_validate.cpp, for parsed and
// C++-built programs alike.
#include "tilesight/plan/plan_json.h"

#include <cmath>
#include <map>

#include "tilesight/util/json_input.h"

namespace tilesight::plan {
namespace {

using nlohmann::json;

constexpr DType kAllDTypes[] = {DType::kBF16, DType::kFP16, DType::kFP8, DType::kTF32,
                                DType::kFP32};
constexpr MmaInstruction kAllMmas[] = {MmaInstruction::kWgmma, MmaInstruction::kMmaSync, MmaInstruction::kTcgen05};

std::string element_path(const std::string& array_path, std::size_t i) {
  return array_path + "[" + std::to_string(i) + "]";
}

// A named choice ("op": "mma_tc"); an unknown name lists the allowed ones.
template <typename Enum, std::size_t N, typename NameFn>
Enum read_enum(FieldReader& r, const char* key, const char* what, const Enum (&all)[N], NameFn name,
               std::optional<Enum> fallback) {
  const Enum otherwise = fallback.value_or(all[0]);
  std::optional<std::string> fallback_name;
  if (fallback) fallback_name = std::string(name(*fallback));
  const auto s = r.string(key, fallback_name);
  if (!s) return otherwise;
  std::string allowed;
  for (Enum e : all) {
    if (name(e) == *s) return e;
    allowed += (allowed.empty() ? "" : ", ") + std::string(name(e));
  }
  r.errors.push_back({r.field_path(key), std::string("unknown ") + what + " \"" + *s +
                                             "\" (expected one of " + allowed + ")"});
  return otherwise;
}

// Lists keep one entry per JSON element, even a bad one, so that validate()'s paths
// (`accesses[2].reuse_dims[1]`) point at the same element as the JSON.
std::vector<std::string> read_string_list(const json& arr, const std::string& path,
                                          Errors& errors) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    if (arr[i].is_string()) {
      out.push_back(arr[i].get<std::string>());
    } else {
      errors.push_back(
          {element_path(path, i), "must be a string, got " + json_type_phrase(arr[i])});
      out.emplace_back();
    }
  }
  return out;
}

std::vector<std::int64_t> read_extent_list(const json& arr, const std::string& path,
                                           Errors& errors) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < arr.size(); ++i)
    out.push_back(json_integer(arr[i], element_path(path, i), 1, kMaxExtent, errors).value_or(1));
  return out;
}

// Parses each element of the array `key` with parse(element, path, errors); elements that
// are not objects are reported and kept as default values.
template <typename T>
std::vector<T> read_objects(FieldReader& r, const char* key, bool required,
                            T (*parse)(const json&, const std::string&, Errors&)) {
  std::vector<T> out;
  const json* arr = r.array(key, required);
  if (!arr) return out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string path = element_path(r.field_path(key), i);
    const json& element = (*arr)[i];
    out.push_back(expect_object(element, path, r.errors) ? parse(element, path, r.errors) : T{});
  }
  return out;
}

Tensor parse_tensor(const json& obj, const std::string& path, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"name", "shape", "dtype"});
  Tensor t;
  t.name = r.string("name").value_or("");
  if (const json* shape = r.array("shape"))
    t.shape = read_extent_list(*shape, r.field_path("shape"), errors);
  t.dtype = read_enum(r, "dtype", "dtype", kAllDTypes, dtype_name, std::optional(DType::kBF16));
  return t;
}

GridDim parse_grid_dim(const json& obj, const std::string& path, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"name", "extent"});
  return GridDim{r.string("name").value_or(""), r.integer("extent", 1, kMaxExtent).value_or(1)};
}

TileGrid parse_grid(const json& obj, const std::string& path, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"dims", "launch_order"});
  TileGrid grid;
  grid.dims = read_objects(r, "dims", true, parse_grid_dim);
  if (const json* order = r.object("launch_order", false)) {
    FieldReader o{*order, r.field_path("launch_order"), errors};
    o.reject_unknown({"kind", "group_m"});
    grid.order.kind = read_enum(o, "kind", "launch order", kAllLaunchOrders, launch_order_name,
                                std::optional<LaunchOrderKind>());
    grid.order.group_m = o.integer("group_m", 1, kMaxExtent, 1).value_or(1);
  }
  return grid;
}

TensorAccess parse_access(const json& obj, const std::string& path, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"tensor", "tile_shape", "placement", "reuse_dims", "loop", "write", "revisit", "tma_box"});
  TensorAccess a;
  a.tensor = r.string("tensor").value_or("");
  if (const json* shape = r.array("tile_shape"))
    a.tile_shape = read_extent_list(*shape, r.field_path("tile_shape"), errors);
  a.placement = read_enum(r, "placement", "placement", kAllPlacements, placement_name,
                          std::optional<Placement>());
  if (const json* dims = r.array("reuse_dims"))
    a.reuse_dims = read_string_list(*dims, r.field_path("reuse_dims"), errors);
  a.loop = r.string("loop", "").value_or("");
  a.write = r.boolean("write", false).value_or(false);
  a.revisit = r.number("revisit", 0.0, kMaxAmount, 0.0).value_or(0.0);
  a.tma_box = r.boolean("tma_box", false).value_or(false);
  return a;
}

Loop parse_loop(const json& obj, const std::string& path, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"name", "trip_count", "stages", "parent", "trips_along", "overlap_resident",
                    "register_loads", "producer_warps", "warp_serial_sfu",
                    "chain_groups", "copies_after_chain", "loads_wait_apart", "serial_mma"});
  Loop l;
  l.name = r.string("name").value_or("");
  l.trip_count = r.integer("trip_count", 1, kMaxExtent).value_or(1);
  l.stages = r.integer("stages", 1, kMaxStages, 1).value_or(1);
  l.parent = r.string("parent", "").value_or("");
  l.overlap_resident = r.boolean("overlap_resident", true).value_or(true);
  l.register_loads = r.boolean("register_loads", false).value_or(false);
  l.producer_warps = r.boolean("producer_warps", false).value_or(false);
  l.warp_serial_sfu = r.boolean("warp_serial_sfu", false).value_or(false);
  l.chain_groups = r.integer("chain_groups", 1, 16, 1).value_or(1);
  l.copies_after_chain = r.boolean("copies_after_chain", false).value_or(false);
  l.serial_mma = r.boolean("serial_mma", false).value_or(false);
  l.loads_wait_apart = r.boolean("loads_wait_apart", false).value_or(false);
  if (const json* along = r.object("trips_along", false)) {
    FieldReader t{*along, r.field_path("trips_along"), errors};
    t.reject_unknown({"dim", "trips"});
    l.trips_dim = t.string("dim").value_or("");
    if (const json* trips = t.array("trips"))
      for (std::size_t k = 0; k < trips->size(); ++k)
        l.trips.push_back(json_integer((*trips)[k], element_path(t.field_path("trips"), k), 1,
                                       kMaxExtent, errors).value_or(1));
  }
  return l;
}

// An action as written: deps are still names, resolved once every action is known.
struct ActionText {
  TileAction action;
  std::vector<std::optional<std::string>> dep_names;  // nullopt: not a string (reported)
};

std::vector<std::optional<std::string>> read_dep_names(const json& arr, const std::string& path,
                                                       Errors& errors) {
  std::vector<std::optional<std::string>> names;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    if (arr[i].is_string()) {
      names.emplace_back(arr[i].get<std::string>());
    } else {
      errors.push_back(
          {element_path(path, i), "must be an action name, got " + json_type_phrase(arr[i])});
      names.emplace_back();
    }
  }
  return names;
}

ActionText parse_action(const json& obj, const std::string& path, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"name", "op", "operands", "flops", "bytes", "sfu_ops", "local_bytes", "local_reloads", "chained_l2_loads", "accumulator_spills", "multicast", "revisit", "via_registers", "lane_sectors", "lane_lines", "l1_tile_sectors", "l1_window_bytes", "l1_displacing_sectors", "l1_beside_bytes", "dram_run_bytes", "barriers", "deps", "loop",
                    "dtype", "mma", "mma_n", "result"});
  ActionText text;
  TileAction& a = text.action;
  a.name = r.string("name").value_or("");
  a.op = read_enum(r, "op", "op", kAllOps, op_name, std::optional<OpKind>());
  if (const json* operands = r.array("operands", false))
    a.operands = read_string_list(*operands, r.field_path("operands"), errors);
  a.flops = r.number("flops", 0, kMaxAmount, 0.0).value_or(0);
  a.bytes = r.number("bytes", 0, kMaxAmount, 0.0).value_or(0);
  a.sfu_ops = r.number("sfu_ops", 0, kMaxAmount, 0.0).value_or(0);
  a.local_bytes = r.number("local_bytes", 0, kMaxAmount, 0.0).value_or(0);
  a.local_reloads = r.number("local_reloads", 0, 65536, 0.0).value_or(0);
  a.chained_l2_loads = r.number("chained_l2_loads", 0, 65536, 0.0).value_or(0);
  a.multicast = r.number("multicast", 1, 16, 1.0).value_or(1);
  a.revisit = r.boolean("revisit", false).value_or(false);
  a.via_registers = r.boolean("via_registers", false).value_or(false);
  a.accumulator_spills = r.boolean("accumulator_spills", false).value_or(false);
  a.lane_sectors = r.number("lane_sectors", 0, 32, 0.0).value_or(0);
  a.lane_lines = r.number("lane_lines", 0, 32, 0.0).value_or(0);
  a.l1_tile_sectors = r.number("l1_tile_sectors", 0, kMaxAmount, 0.0).value_or(0);
  a.l1_window_bytes = r.number("l1_window_bytes", 0, kMaxAmount, 0.0).value_or(0);
  a.l1_displacing_sectors = r.number("l1_displacing_sectors", 0, kMaxAmount, 0.0).value_or(0);
  a.l1_beside_bytes = r.number("l1_beside_bytes", 0, kMaxAmount, 0.0).value_or(0);
  a.dram_run_bytes = r.number("dram_run_bytes", 0, kMaxAmount, 0.0).value_or(0);
  a.barriers = r.number("barriers", 0, 1024, 0.0).value_or(0);
  if (const json* deps = r.array("deps", false))
    text.dep_names = read_dep_names(*deps, r.field_path("deps"), errors);
  a.loop = r.string("loop", "").value_or("");
  a.dtype = read_enum(r, "dtype", "dtype", kAllDTypes, dtype_name, std::optional(DType::kBF16));
  a.mma = read_enum(r, "mma", "mma instruction", kAllMmas, mma_name,
                    std::optional(MmaInstruction::kWgmma));
  a.mma_n = r.number("mma_n", 0, 256, 0.0).value_or(0);
  a.result_level = read_enum(r, "result", "placement", kAllPlacements, placement_name,
                             std::optional(Placement::kRegister));
  return text;
}

// JSON names deps by action name; C++ holds indices. Unknown names are reported here (the
// JSON path is only known here) and left out of the program.
std::vector<TileAction> resolve_deps(std::vector<ActionText> texts, Errors& errors) {
  std::map<std::string, std::size_t, std::less<>> index;
  for (std::size_t i = 0; i < texts.size(); ++i) index.emplace(texts[i].action.name, i);
  std::vector<TileAction> actions;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    TileAction& a = texts[i].action;
    const auto& names = texts[i].dep_names;
    for (std::size_t j = 0; j < names.size(); ++j) {
      if (!names[j]) continue;
      auto it = index.find(*names[j]);
      if (it == index.end()) {
        errors.push_back({"actions[" + std::to_string(i) + "].deps[" + std::to_string(j) + "]",
                          "unknown action \"" + *names[j] + "\""});
      } else {
        a.deps.push_back(it->second);
      }
    }
    actions.push_back(std::move(a));
  }
  return actions;
}

BlockResources parse_resources(const json& obj, const std::string& path, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"smem_bytes", "registers_per_thread", "warps"});
  BlockResources res;
  res.smem_bytes = r.integer("smem_bytes", 0, kMaxSmemBytes).value_or(0);
  res.registers_per_thread =
      r.integer("registers_per_thread", 0, kMaxRegistersPerThread).value_or(0);
  res.warps = r.integer("warps", 1, kMaxWarps).value_or(1);
  return res;
}

// A validate() error at or below a path the parser already reported repeats it (a missing
// name is also an empty one); keep only the parser's.
bool already_reported(const std::string& path, const Errors& parse_errors) {
  for (const Error& e : parse_errors) {
    if (path == e.path) return true;
    if (path.size() > e.path.size() && path.compare(0, e.path.size(), e.path) == 0 &&
        (path[e.path.size()] == '.' || path[e.path.size()] == '['))
      return true;
  }
  return false;
}

// Whole numbers print as integers ("bytes": 16384, not 16384.0) while they are exact.
json amount_json(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
    return static_cast<std::int64_t>(v);
  return v;
}

json action_json(const TileProgram& p, const TileAction& a) {
  json deps = json::array();
  for (std::size_t d : a.deps) deps.push_back(d < p.actions.size() ? p.actions[d].name : "");
  json j = {{"name", a.name},
            {"op", op_name(a.op)},
            {"operands", a.operands},
            {"flops", amount_json(a.flops)},
            {"bytes", amount_json(a.bytes)},
            {"sfu_ops", amount_json(a.sfu_ops)},
            {"deps", deps},
            {"dtype", dtype_name(a.dtype)},
            {"mma", mma_name(a.mma)},
            {"result", placement_name(a.result_level)}};
  if (!a.loop.empty()) j["loop"] = a.loop;
  if (a.local_bytes > 0) j["local_bytes"] = amount_json(a.local_bytes);
  if (a.local_reloads > 0) j["local_reloads"] = amount_json(a.local_reloads);
  if (a.chained_l2_loads > 0) j["chained_l2_loads"] = amount_json(a.chained_l2_loads);
  if (a.multicast != 1) j["multicast"] = amount_json(a.multicast);
  if (a.revisit) j["revisit"] = true;
  if (a.via_registers) j["via_registers"] = true;
  if (a.accumulator_spills) j["accumulator_spills"] = true;
  if (a.lane_sectors > 0) j["lane_sectors"] = amount_json(a.lane_sectors);
  if (a.lane_lines > 0) j["lane_lines"] = amount_json(a.lane_lines);
  if (a.l1_tile_sectors > 0) j["l1_tile_sectors"] = amount_json(a.l1_tile_sectors);
  if (a.l1_window_bytes > 0) j["l1_window_bytes"] = amount_json(a.l1_window_bytes);
  if (a.l1_displacing_sectors > 0) j["l1_displacing_sectors"] = amount_json(a.l1_displacing_sectors);
  if (a.l1_beside_bytes > 0) j["l1_beside_bytes"] = amount_json(a.l1_beside_bytes);
  if (a.dram_run_bytes > 0) j["dram_run_bytes"] = amount_json(a.dram_run_bytes);
  if (a.barriers > 0) j["barriers"] = amount_json(a.barriers);
  if (a.mma_n > 0) j["mma_n"] = amount_json(a.mma_n);
  return j;
}

TileSchedule parse_schedule(const json& obj, const std::string& path, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"persistent", "epilogue_overlap", "dynamic", "head_per_tile", "raster", "swizzle", "cluster"});
  TileSchedule s;
  s.persistent = r.boolean("persistent", false).value_or(false);
  s.epilogue_overlap = r.boolean("epilogue_overlap", false).value_or(false);
  s.dynamic = r.boolean("dynamic", false).value_or(false);
  s.head_per_tile = r.boolean("head_per_tile", false).value_or(false);
  const std::string raster = r.string("raster", "m").value_or("m");
  if (raster == "n") s.raster = Raster::kN;
  else if (raster != "m") errors.push_back({r.field_path("raster"), "unknown raster \"" + raster + "\"; known: m, n"});
  s.swizzle = r.integer("swizzle", 0, kMaxExtent, 1).value_or(1);
  if (obj.contains("cluster")) {
    const json& c = obj["cluster"];
    const std::string where = r.field_path("cluster");
    if (!c.is_array() || c.size() != 2 || !c[0].is_number_integer() || !c[1].is_number_integer()) {
      errors.push_back({where, "must be [rows, columns] of tiles, two integers"});
    } else {
      const std::int64_t rows = c[0].get<std::int64_t>(), cols = c[1].get<std::int64_t>();
      if (rows < 1 || cols < 1 || rows * cols > 16) {
        errors.push_back({where, "a cluster is 1 to 16 tiles (rows x columns), not " + std::to_string(rows) + " x " +
                                     std::to_string(cols)});
      } else {
        s.cluster_rows = rows;
        s.cluster_cols = cols;
      }
    }
  }
  return s;
}

}  // namespace

Result<TileProgram> parse_tile_program(const json& doc) {
  Errors errors;
  if (!expect_object(doc, "", errors)) return errors;
  FieldReader r{doc, "", errors};
  r.reject_unknown({"name", "kernel", "hardware", "tensors", "grid", "accesses", "loops", "actions",
                    "resources", "schedule", "launches"});
  TileProgram p;
  p.name = r.string("name").value_or("");
  p.kernel = r.string("kernel", "custom").value_or("custom");
  p.hardware = r.string("hardware", "").value_or("");
  p.tensors = read_objects(r, "tensors", true, parse_tensor);
  if (const json* grid = r.object("grid")) p.grid = parse_grid(*grid, "grid", errors);
  p.accesses = read_objects(r, "accesses", false, parse_access);
  p.loops = read_objects(r, "loops", false, parse_loop);
  auto texts = read_objects(r, "actions", true, parse_action);
  p.actions = resolve_deps(std::move(texts), errors);
  if (const json* res = r.object("resources"))
    p.resources = parse_resources(*res, "resources", errors);
  if (r.has("schedule"))
    if (const json* sched = r.object("schedule")) p.schedule = parse_schedule(*sched, "schedule", errors);
  p.launches = r.integer("launches", 1, 64, 1).value_or(1);

  for (Error& e : validate(p))
    if (!already_reported(e.path, errors)) errors.push_back(std::move(e));
  if (!errors.empty()) return errors;
  return p;
}

json to_json(const TileProgram& p) {
  json j = {{"name", p.name}};
  if (p.kernel != "custom") j["kernel"] = p.kernel;
  if (!p.hardware.empty()) j["hardware"] = p.hardware;
  j["tensors"] = json::array();
  for (const Tensor& t : p.tensors)
    j["tensors"].push_back({{"name", t.name}, {"shape", t.shape}, {"dtype", dtype_name(t.dtype)}});
  json dims = json::array();
  for (const GridDim& d : p.grid.dims) dims.push_back({{"name", d.name}, {"extent", d.extent}});
  json order = {{"kind", launch_order_name(p.grid.order.kind)}};
  if (p.grid.order.kind == LaunchOrderKind::kGrouped || p.grid.order.group_m != 1)
    order["group_m"] = p.grid.order.group_m;
  j["grid"] = {{"dims", dims}, {"launch_order", order}};
  j["accesses"] = json::array();
  for (const TensorAccess& a : p.accesses) {
    json ja = {{"tensor", a.tensor},
               {"tile_shape", a.tile_shape},
               {"placement", placement_name(a.placement)},
               {"reuse_dims", a.reuse_dims},
               {"write", a.write}};
    if (!a.loop.empty()) ja["loop"] = a.loop;
    if (a.revisit > 0) ja["revisit"] = a.revisit;
    if (a.tma_box) ja["tma_box"] = true;
    j["accesses"].push_back(ja);
  }
  j["loops"] = json::array();
  for (const Loop& l : p.loops) {
    json jl = {{"name", l.name}, {"trip_count", l.trip_count}, {"stages", l.stages}};
    if (!l.parent.empty()) jl["parent"] = l.parent;
    if (!l.trips.empty()) jl["trips_along"] = {{"dim", l.trips_dim}, {"trips", l.trips}};
    if (!l.overlap_resident) jl["overlap_resident"] = false;
    if (l.register_loads) jl["register_loads"] = true;
    if (l.producer_warps) jl["producer_warps"] = true;
    if (l.warp_serial_sfu) jl["warp_serial_sfu"] = true;
    if (l.chain_groups > 1) jl["chain_groups"] = l.chain_groups;
    if (l.copies_after_chain) jl["copies_after_chain"] = true;
    if (l.serial_mma) jl["serial_mma"] = true;
    if (l.loads_wait_apart) jl["loads_wait_apart"] = true;
    j["loops"].push_back(jl);
  }
  j["actions"] = json::array();
  for (const TileAction& a : p.actions) j["actions"].push_back(action_json(p, a));
  j["resources"] = {{"smem_bytes", p.resources.smem_bytes},
                    {"registers_per_thread", p.resources.registers_per_thread},
                    {"warps", p.resources.warps}};
  if (p.schedule.persistent || p.schedule.epilogue_overlap)
    j["schedule"] = {{"persistent", p.schedule.persistent},
                     {"epilogue_overlap", p.schedule.epilogue_overlap},
                     {"dynamic", p.schedule.dynamic},
                     {"head_per_tile", p.schedule.head_per_tile},
                     {"raster", p.schedule.raster == Raster::kN ? "n" : "m"},
                     {"swizzle", p.schedule.swizzle}};
  if (p.schedule.cluster_rows * p.schedule.cluster_cols > 1)
    j["schedule"]["cluster"] = {p.schedule.cluster_rows, p.schedule.cluster_cols};
  if (p.launches != 1) j["launches"] = p.launches;
  return j;
}

}  // namespace tilesight::plan
