#include "profile_tables.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <utility>

#include "tilesight/util/json_input.h"

namespace tilesight::hw::detail {

using nlohmann::json;

std::string format_number(double v) {
  std::array<char, 64> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return ec == std::errc() ? std::string(buf.data(), end) : json(v).dump();
}

namespace {

// A table {"value": [[...], ...], "source": "..."}: its entries, the source recorded under
// `path` (nullptr, with the errors, when the table's shape is wrong). `entry` says what one
// entry holds.
const json* table_entries(const json& leaf, const std::string& path, const std::string& entry, HardwareSpec& spec,
                          Errors& errors) {
  if (!leaf.is_object()) {
    errors.push_back({path, "must be {\"value\": [[" + entry + "], ...], \"source\": \"...\"}"});
    return nullptr;
  }
  FieldReader r{leaf, path, errors};
  r.reject_unknown({"value", "source"});
  const auto source = r.string("source");
  const json* entries = r.array("value");
  if (!entries || !source) return nullptr;
  if (source->empty()) errors.push_back({nest(path, "source"), "must not be empty"});
  spec.sources[path] = *source;
  return entries;
}

// A table of points {"value": [[x, y], ...], "source": "..."} into `out`; `valid(x, y, last)`
// says why a point cannot follow the last one (empty: it can), `pair` names the two numbers.
template <class Valid>
void read_points(const json& leaf, const std::string& path, const std::string& pair, Valid valid,
                 std::vector<std::array<double, 2>>& out, HardwareSpec& spec, Errors& errors) {
  const json* points = table_entries(leaf, path, pair, spec, errors);
  if (!points) return;
  const std::array<double, 2>* last = nullptr;
  for (std::size_t i = 0; i < points->size(); ++i) {
    const json& pt = (*points)[i];
    const std::string at = path + ".value[" + std::to_string(i) + "]";
    if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_number()) {
      errors.push_back({at, "must be a pair [" + pair + "], got " + pt.dump()});
      return;
    }
    const std::array<double, 2> p{pt[0].get<double>(), pt[1].get<double>()};
    if (const std::string why = valid(p, last); !why.empty()) {
      errors.push_back({at, why + ", got " + pt.dump()});
      return;
    }
    out.push_back(p);
    last = &out.back();
  }
}

// l2.cyclic_hit: w the working set over the capacity (positive, increasing), h its hit rate
// (0..1, not increasing).
void read_cyclic_hit(const json& leaf, HardwareSpec& spec, Errors& errors) {
  auto valid = [](const std::array<double, 2>& p, const std::array<double, 2>* last) {
    const double last_w = last ? (*last)[0] : 0, last_h = last ? (*last)[1] : 1;
    return p[0] > 0 && p[0] >= last_w && p[1] >= 0 && p[1] <= last_h
               ? std::string()
               : std::string("working sets must increase from 0 and hit rates fall from 1 to 0");
  };
  read_points(leaf, "l2.cyclic_hit", "working set / capacity, hit rate", valid, spec.l2.cyclic_hit, spec, errors);
}

// l2.async_per_sm: active SMs (increasing, at least 1) and the bytes/s one SM's copies carry.
void read_async_per_sm(const json& leaf, HardwareSpec& spec, Errors& errors) {
  auto valid = [](const std::array<double, 2>& p, const std::array<double, 2>* last) {
    return p[0] >= 1 && (!last || p[0] > (*last)[0]) && p[1] > 0
               ? std::string()
               : std::string("active SMs must increase from 1 and rates be positive");
  };
  read_points(leaf, "l2.async_per_sm", "active SMs, bytes/s", valid, spec.l2.async_per_sm, spec, errors);
}

// l2.short_row_lookups: bytes in flight (increasing from 0) and the share of a shared block's
// requests looked up (0..1, above 0).
void read_short_row_lookups(const json& leaf, HardwareSpec& spec, Errors& errors) {
  auto valid = [](const std::array<double, 2>& p, const std::array<double, 2>* last) {
    return p[0] >= 0 && (!last || p[0] > (*last)[0]) && p[1] > 0 && p[1] <= 1
               ? std::string()
               : std::string("bytes in flight must increase from 0 and shares lie in (0, 1]");
  };
  read_points(leaf, "l2.short_row_lookups", "bytes in flight, share looked up", valid, spec.l2.short_row_lookups, spec,
              errors);
}

// l2.hit_merge_load: the slices' load (increasing from 0, at most 1) and the hit window as a
// multiple of l2.hit_merge_ns (positive).
void read_hit_merge_load(const json& leaf, HardwareSpec& spec, Errors& errors) {
  auto valid = [](const std::array<double, 2>& p, const std::array<double, 2>* last) {
    return p[0] >= 0 && p[0] <= 1 && (!last || p[0] > (*last)[0]) && p[1] > 0
               ? std::string()
               : std::string("loads must increase from 0 to at most 1 and multiples be positive");
  };
  read_points(leaf, "l2.hit_merge_load", "load, window multiple", valid, spec.l2.hit_merge_load, spec, errors);
}

// A map of launch slots to partitions (or GPCs) {"value": [[n, "0011..."], ...], "source":
// "..."}: n (`count` names it; increasing from 1) and, for each launch slot, the digit of its
// SM's partition (GPC), into `out` (SlotPartition::resident or GridPartition::ctas holds n).
// Lengths and digits are checked against sm_count and l2.partitions with the other limits.
template <class Map>
void read_slot_map(const json& leaf, const std::string& path, const std::string& count, int Map::*n,
                   std::vector<Map>& out, HardwareSpec& spec, Errors& errors) {
  const json* entries = table_entries(leaf, path, count + ", \"partition digit per launch slot\"", spec, errors);
  if (!entries) return;
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const json& e = (*entries)[i];
    const std::string at = path + ".value[" + std::to_string(i) + "]";
    if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_string()) {
      errors.push_back({at, "must be a pair [" + count + ", \"digits\"], got " + e.dump()});
      return;
    }
    Map map{};
    map.*n = e[0].get<int>();
    const int last = out.empty() ? 0 : out.back().*n;
    if (map.*n <= last) {
      errors.push_back({at, count + " must increase from 1, got " + std::to_string(map.*n) +
                                (last > 0 ? " after " + std::to_string(last) : std::string())});
      return;
    }
    for (const char c : e[1].get<std::string>()) {
      if (c < '0' || c > '9') {
        errors.push_back({at, std::string("partitions must be digits, got '") + c + "'"});
        return;
      }
      map.partition.push_back(static_cast<std::int8_t>(c - '0'));
    }
    out.push_back(std::move(map));
  }
}

// A map's length against `slots` (`what` says whence) and, for a map of partitions (not GPCs),
// its digits against l2.partitions.
void check_slot_map(const std::vector<std::int8_t>& partition, double slots, const std::string& what,
                    const std::string& at, bool partitions, const HardwareSpec& spec, Errors& errors) {
  if (static_cast<double>(partition.size()) != slots)
    errors.push_back({at, "must give one digit per launch slot (" + what + " = " + format_number(slots) + "), got " +
                              std::to_string(partition.size())});
  else if (const auto top = *std::max_element(partition.begin(), partition.end());
           partitions && top >= spec.l2.partitions)
    errors.push_back({at, "partition " + std::to_string(top) + " is not below l2.partitions (" +
                              format_number(spec.l2.partitions) + ")"});
}

}  // namespace

void check_l2_tables(const HardwareSpec& spec, Errors& errors) {
  for (const auto& [name, maps] : {std::pair{"slot_partition", &spec.l2.slot_partition},
                                    std::pair{"slot_gpc", &spec.l2.slot_gpc}})
    for (std::size_t i = 0; i < maps->size(); ++i) {
      const SlotPartition& sp = (*maps)[i];
      check_slot_map(sp.partition, spec.sm_count * sp.resident, "sm_count x " + std::to_string(sp.resident),
                     std::string("l2.") + name + ".value[" + std::to_string(i) + "]", maps == &spec.l2.slot_partition,
                     spec, errors);
    }
  for (const auto& [name, grids] : {std::pair{"grid_partition", &spec.l2.grid_partition},
                                     std::pair{"grid_gpc", &spec.l2.grid_gpc}})
    for (std::size_t i = 0; i < grids->size(); ++i) {
      const GridPartition& gp = (*grids)[i];
      const std::string at = std::string("l2.") + name + ".value[" + std::to_string(i) + "]";
      if (gp.ctas > spec.sm_count)
        errors.push_back({at, "a grid of " + std::to_string(gp.ctas) + " CTAs does not fit one an SM (sm_count " +
                                  format_number(spec.sm_count) + ")"});
      else
        check_slot_map(gp.partition, gp.ctas, "its CTAs", at, grids == &spec.l2.grid_partition, spec, errors);
    }
}

void read_l2_tables(const json& l2, HardwareSpec& spec, Errors& errors) {
  if (l2.contains("cyclic_hit")) read_cyclic_hit(l2.at("cyclic_hit"), spec, errors);
  if (l2.contains("async_per_sm")) read_async_per_sm(l2.at("async_per_sm"), spec, errors);
  if (l2.contains("short_row_lookups")) read_short_row_lookups(l2.at("short_row_lookups"), spec, errors);
  if (l2.contains("hit_merge_load")) read_hit_merge_load(l2.at("hit_merge_load"), spec, errors);
  if (l2.contains("slot_partition"))
    read_slot_map(l2.at("slot_partition"), "l2.slot_partition", "resident CTAs an SM", &SlotPartition::resident,
                  spec.l2.slot_partition, spec, errors);
  if (l2.contains("slot_gpc"))
    read_slot_map(l2.at("slot_gpc"), "l2.slot_gpc", "resident CTAs an SM", &SlotPartition::resident, spec.l2.slot_gpc,
                  spec, errors);
  if (l2.contains("grid_partition"))
    read_slot_map(l2.at("grid_partition"), "l2.grid_partition", "CTAs of the grid", &GridPartition::ctas,
                  spec.l2.grid_partition, spec, errors);
  if (l2.contains("grid_gpc"))
    read_slot_map(l2.at("grid_gpc"), "l2.grid_gpc", "CTAs of the grid", &GridPartition::ctas, spec.l2.grid_gpc, spec,
                  errors);
}

}  // namespace tilesight::hw::detail
