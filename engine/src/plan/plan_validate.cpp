// Structural checks on a tile program (§3.1, Table 2): every name resolves, sizes are positive
// and bounded, the loop tree and the action DAG are acyclic. The same checks serve parsed
// plans and programs built in C++; paths name the JSON field (`actions[2].deps[0]`).
#include <algorithm>
#include <limits>
#include <map>

#include "tilesight/plan/plan_json.h"
#include "tilesight/util/json_input.h"

namespace tilesight::plan {
namespace {

std::string at(const std::string& array_path, std::size_t i) {
  return array_path + "[" + std::to_string(i) + "]";
}

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

// The checks build a field's path only for an error: validation runs on every prediction
// (the batch path's search loops), and most fields are fine.
void check_integer(std::int64_t v, std::int64_t min, std::int64_t max, const std::string& path,
                   Errors& errors) {
  if (auto problem = integer_range_problem(v, min, max)) errors.push_back({path, *problem});
}

void check_amount(double v, const std::string& base, const char* field, Errors& errors) {
  if (auto problem = number_range_problem(v, 0, kMaxAmount)) errors.push_back({nest(base, field), *problem});
}

// Names must be non-empty and unique within their list: they are how JSON refers to things.
template <typename T>
void check_names(const std::vector<T>& items, const std::string& list_path, const char* what,
                 Errors& errors) {
  std::map<std::string, std::size_t, std::less<>> first;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& name = items[i].name;
    if (name.empty()) {
      errors.push_back({nest(at(list_path, i), "name"), "must not be empty"});
      continue;
    }
    auto [it, inserted] = first.emplace(name, i);
    if (!inserted) {
      errors.push_back({nest(at(list_path, i), "name"), std::string("duplicate ") + what + " name " +
                                                            quoted(name) + " (first at " +
                                                            at(list_path, it->second) + ")"});
    }
  }
}

void check_extents(const std::vector<std::int64_t>& dims, const std::string& path, Errors& errors) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (auto problem = integer_range_problem(dims[i], 1, kMaxExtent)) errors.push_back({at(path, i), *problem});
}

void check_tensors(const TileProgram& p, Errors& errors) {
  check_names(p.tensors, "tensors", "tensor", errors);
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const std::string path = nest(at("tensors", i), "shape");
    const auto rank = static_cast<std::int64_t>(p.tensors[i].shape.size());
    if (rank < 1 || rank > kMaxRank) {
      errors.push_back({path, "must have 1 to " + std::to_string(kMaxRank) + " dimensions, got " +
                                  std::to_string(rank)});
    }
    check_extents(p.tensors[i].shape, path, errors);
  }
}

void check_grid(const TileGrid& grid, Errors& errors) {
  if (grid.dims.empty()) errors.push_back({"grid.dims", "must have at least one dimension"});
  check_names(grid.dims, "grid.dims", "grid dim", errors);
  std::int64_t tiles = 1;
  bool overflow = false;
  for (std::size_t i = 0; i < grid.dims.size(); ++i) {
    const std::int64_t extent = grid.dims[i].extent;
    if (auto problem = integer_range_problem(extent, 1, kMaxExtent))
      errors.push_back({nest(at("grid.dims", i), "extent"), *problem});
    if (extent >= 1 && extent <= kMaxExtent)
      overflow |= __builtin_mul_overflow(tiles, extent, &tiles);
  }
  if (overflow) errors.push_back({"grid.dims", "more than 2^63 - 1 tiles in the grid"});
  check_integer(grid.order.group_m, 1, kMaxExtent, "grid.launch_order.group_m", errors);
  // Triton's GROUP_M swizzle (§3.5.3) groups rows of the first grid dim along the second; the
  // Z-order interleaves the bits of the last two dims' coordinates.
  if ((grid.order.kind == LaunchOrderKind::kGrouped || grid.order.kind == LaunchOrderKind::kZOrder) &&
      grid.dims.size() < 2) {
    errors.push_back({"grid.launch_order.kind", std::string(launch_order_name(grid.order.kind)) +
                                                    " order needs at least 2 grid dims, got " +
                                                    std::to_string(grid.dims.size())});
  }
}

void check_loop_name(const TileProgram& p, const std::string& loop, const std::string& base, const char* field,
                     Errors& errors) {
  if (!loop.empty() && !p.find_loop(loop)) errors.push_back({nest(base, field), "unknown loop " + quoted(loop)});
}

void check_accesses(const TileProgram& p, Errors& errors) {
  for (std::size_t i = 0; i < p.accesses.size(); ++i) {
    const TensorAccess& a = p.accesses[i];
    const std::string path = at("accesses", i);
    const Tensor* t = p.find_tensor(a.tensor);
    if (!t) errors.push_back({nest(path, "tensor"), "unknown tensor " + quoted(a.tensor)});
    // A tile larger than its tensor is legal: edge tiles are masked.
    check_extents(a.tile_shape, nest(path, "tile_shape"), errors);
    if (t && a.tile_shape.size() != t->shape.size()) {
      errors.push_back({nest(path, "tile_shape"), "has " + std::to_string(a.tile_shape.size()) +
                                                      " dimensions but tensor " + quoted(t->name) +
                                                      " has " + std::to_string(t->shape.size())});
    }
    for (std::size_t j = 0; j < a.reuse_dims.size(); ++j) {
      if (!p.grid.dim_index(a.reuse_dims[j])) {
        errors.push_back({at(nest(path, "reuse_dims"), j), "unknown grid dim " + quoted(a.reuse_dims[j])});
      } else if (std::find(
                     a.reuse_dims.begin(), a.reuse_dims.begin() + static_cast<std::ptrdiff_t>(j),
                     a.reuse_dims[j]) != a.reuse_dims.begin() + static_cast<std::ptrdiff_t>(j)) {
        errors.push_back({at(nest(path, "reuse_dims"), j), "duplicate grid dim " + quoted(a.reuse_dims[j])});
      }
    }
    check_loop_name(p, a.loop, path, "loop", errors);
    check_amount(a.revisit, path, "revisit", errors);
    if (a.revisit > 0 && a.write) errors.push_back({nest(path, "revisit"), "a write cannot revisit its blocks"});
  }
}

// "k -> j -> k" from a cycle given as indices (first element not repeated).
template <typename T>
std::string cycle_text(const std::vector<T>& items, const std::vector<std::size_t>& cycle) {
  std::string s;
  for (std::size_t i : cycle) s += items[i].name + " -> ";
  return s + items[cycle.front()].name;
}

// Rotates a cycle to start at its lowest index, so the message does not depend on where the
// search happened to enter it.
std::vector<std::size_t> canonical_cycle(std::vector<std::size_t> cycle) {
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  return cycle;
}

void check_loops(const TileProgram& p, Errors& errors) {
  check_names(p.loops, "loops", "loop", errors);
  std::map<std::string, std::size_t, std::less<>> index;
  for (std::size_t i = 0; i < p.loops.size(); ++i) index.emplace(p.loops[i].name, i);
  for (std::size_t i = 0; i < p.loops.size(); ++i) {
    const Loop& l = p.loops[i];
    check_integer(l.trip_count, 1, kMaxExtent, nest(at("loops", i), "trip_count"), errors);
    check_integer(l.stages, 1, kMaxStages, nest(at("loops", i), "stages"), errors);
    check_loop_name(p, l.parent, at("loops", i), "parent", errors);
    if (l.trips.empty()) continue;
    const auto dim = p.grid.dim_index(l.trips_dim);
    const std::string along = nest(at("loops", i), "trips_along");
    if (!dim)
      errors.push_back({nest(along, "dim"), "unknown grid dim \"" + l.trips_dim + "\""});
    else if (static_cast<std::int64_t>(l.trips.size()) != p.grid.dims[*dim].extent)
      errors.push_back({nest(along, "trips"), std::to_string(l.trips.size()) + " trip counts for grid dim \"" +
                                                  l.trips_dim + "\" of extent " +
                                                  std::to_string(p.grid.dims[*dim].extent)});
  }
  // Each loop has one parent, so following parents from every loop finds every cycle.
  std::vector<int> state(p.loops.size(), 0);  // 0 unseen, 1 on the current walk, 2 done
  for (std::size_t start = 0; start < p.loops.size(); ++start) {
    std::vector<std::size_t> walk;
    std::optional<std::size_t> cur = start;
    while (cur && state[*cur] == 0) {
      state[*cur] = 1;
      walk.push_back(*cur);
      auto it = index.find(p.loops[*cur].parent);
      cur = it == index.end() ? std::nullopt : std::optional(it->second);
    }
    if (cur && state[*cur] == 1) {
      std::vector<std::size_t> cycle(std::find(walk.begin(), walk.end(), *cur), walk.end());
      errors.push_back({"loops", "parent cycle: " + cycle_text(p.loops, canonical_cycle(cycle))});
    }
    for (std::size_t i : walk) state[i] = 2;
  }
}

void check_action_fields(const TileProgram& p, std::size_t i, Errors& errors) {
  const TileAction& a = p.actions[i];
  const std::string path = at("actions", i);
  for (std::size_t j = 0; j < a.operands.size(); ++j) {
    if (!p.find_tensor(a.operands[j]))
      errors.push_back({at(nest(path, "operands"), j), "unknown tensor " + quoted(a.operands[j])});
  }
  check_amount(a.flops, path, "flops", errors);
  check_amount(a.bytes, path, "bytes", errors);
  check_amount(a.sfu_ops, path, "sfu_ops", errors);
  for (std::size_t j = 0; j < a.deps.size(); ++j) {
    if (a.deps[j] >= p.actions.size()) {
      errors.push_back({at(nest(path, "deps"), j), "no action with index " + std::to_string(a.deps[j]) +
                                                       " (the program has " + std::to_string(p.actions.size()) +
                                                       " actions)"});
    } else if (std::count(a.deps.begin(), a.deps.begin() + static_cast<std::ptrdiff_t>(j),
                          a.deps[j]) > 0) {
      errors.push_back({at(nest(path, "deps"), j), "duplicate dependency " + quoted(p.actions[a.deps[j]].name)});
    }
  }
  // A dependency may cross loop levels (a tile-body load feeding a loop's mma): allowed.
  check_loop_name(p, a.loop, path, "loop", errors);
}

// The first dependency cycle found, as action indices in execution order (each one's
// successor depends on it); empty when the DAG is acyclic. Iterative DFS: a plan with
// thousands of actions must not overflow the stack.
std::vector<std::size_t> find_dependency_cycle(const std::vector<TileAction>& actions) {
  const std::size_t n = actions.size();
  std::vector<std::vector<std::size_t>> consumers(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t d : actions[i].deps)
      if (d < n) consumers[d].push_back(i);
  std::vector<int> state(n, 0);  // 0 unseen, 1 on the DFS stack, 2 done
  for (std::size_t root = 0; root < n; ++root) {
    if (state[root] != 0) continue;
    std::vector<std::pair<std::size_t, std::size_t>> stack = {{root, 0}};  // node, next edge
    state[root] = 1;
    while (!stack.empty()) {
      auto& [node, edge] = stack.back();
      if (edge == consumers[node].size()) {
        state[node] = 2;
        stack.pop_back();
        continue;
      }
      const std::size_t next = consumers[node][edge++];
      if (state[next] == 1) {
        std::vector<std::size_t> cycle;
        auto from =
            std::find_if(stack.begin(), stack.end(), [&](auto& f) { return f.first == next; });
        for (auto it = from; it != stack.end(); ++it) cycle.push_back(it->first);
        return cycle;
      }
      if (state[next] == 0) {
        state[next] = 1;
        stack.push_back({next, 0});
      }
    }
  }
  return {};
}

void check_actions(const TileProgram& p, Errors& errors) {
  if (p.actions.empty()) errors.push_back({"actions", "must have at least one action"});
  check_names(p.actions, "actions", "action", errors);
  for (std::size_t i = 0; i < p.actions.size(); ++i) check_action_fields(p, i, errors);
  // §3.3: the legal orders are the topological orders of the DAG; a cycle has none.
  auto cycle = find_dependency_cycle(p.actions);
  if (!cycle.empty())
    errors.push_back(
        {"actions", "dependency cycle: " + cycle_text(p.actions, canonical_cycle(cycle))});
}

void check_resources(const BlockResources& r, Errors& errors) {
  check_integer(r.smem_bytes, 0, kMaxSmemBytes, "resources.smem_bytes", errors);
  check_integer(r.registers_per_thread, 0, kMaxRegistersPerThread, "resources.registers_per_thread",
                errors);
  check_integer(r.warps, 1, kMaxWarps, "resources.warps", errors);
}

}  // namespace

Errors validate(const TileProgram& program) {
  Errors errors;
  check_tensors(program, errors);
  check_grid(program.grid, errors);
  check_accesses(program, errors);
  check_loops(program, errors);
  check_actions(program, errors);
  check_resources(program.resources, errors);
  return errors;
}

}  // namespace tilesight::plan
