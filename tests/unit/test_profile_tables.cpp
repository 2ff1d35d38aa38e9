// The l2 group's table-valued profile leaves (engine/src/hw/profile_tables.cpp): cyclic_hit,
// async_per_sm, short_row_lookups, hit_merge_load, slot_partition, slot_gpc, grid_partition and grid_gpc, each
// rejected with the JSON path of the bad entry and why.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "profile_test_doc.h"
#include "tilesight/hw/profile_loader.h"

using nlohmann::json;
using tilesight::test::has_error;

TEST_CASE("the l2 tables name the entry that breaks them and why", "[hw]") {
  const json doc = tilesight::test::shipped_doc("h200");
  REQUIRE(tilesight::hw::parse_profile(doc).ok());

  json curve = doc;
  curve["l2"]["cyclic_hit"]["value"] = {{1.0, 1.0}, {1.2, 0.5}, {1.1, 0.3}};
  CHECK(has_error(tilesight::hw::parse_profile(curve).errors(),
                  "l2.cyclic_hit.value[2]: working sets must increase from 0 and hit rates fall from 1 to 0, got [1.1,0.3]"));
  curve["l2"]["cyclic_hit"]["value"] = {{0.0, 1.0}, {1.2, 0.5}};
  CHECK(has_error(tilesight::hw::parse_profile(curve).errors(),
                  "l2.cyclic_hit.value[0]: working sets must increase from 0 and hit rates fall from 1 to 0, got [0.0,1.0]"));
  curve["l2"]["cyclic_hit"]["value"] = {{1.0, 1.0}, {1.2}};
  CHECK(has_error(tilesight::hw::parse_profile(curve).errors(),
                  "l2.cyclic_hit.value[1]: must be a pair [working set / capacity, hit rate], got [1.2]"));
  curve["l2"]["cyclic_hit"] = 0.5;
  CHECK(has_error(tilesight::hw::parse_profile(curve).errors(),
                  "l2.cyclic_hit: must be {\"value\": [[working set / capacity, hit rate], ...], \"source\": \"...\"}"));

  json path = doc;
  path["l2"]["async_per_sm"] = {{"value", {{1, 2.4e11}, {16, 1.4e11}, {8, 1.6e11}}}, {"source", "sm_path.csv"}};
  CHECK(has_error(tilesight::hw::parse_profile(path).errors(),
                  "l2.async_per_sm.value[2]: active SMs must increase from 1 and rates be positive, got [8,160000000000.0]"));
  path["l2"]["async_per_sm"]["value"] = {{0, 2.4e11}};
  CHECK(has_error(tilesight::hw::parse_profile(path).errors(),
                  "l2.async_per_sm.value[0]: active SMs must increase from 1 and rates be positive, got [0,240000000000.0]"));
  path["l2"]["async_per_sm"]["source"] = "";
  path["l2"]["async_per_sm"]["value"] = {{1, 2.4e11}};
  CHECK(has_error(tilesight::hw::parse_profile(path).errors(), "l2.async_per_sm.source: must not be empty"));

  json rows = doc;
  REQUIRE(tilesight::hw::parse_profile(rows).value().l2.short_row_lookups.size() == 6);
  rows["l2"]["short_row_lookups"]["value"] = {{98304, 0.257}, {98304, 0.309}};
  CHECK(has_error(tilesight::hw::parse_profile(rows).errors(),
                  "l2.short_row_lookups.value[1]: bytes in flight must increase from 0 and shares lie in (0, 1], got "
                  "[98304,0.309]"));
  rows["l2"]["short_row_lookups"]["value"] = {{98304, 1.5}};
  CHECK(has_error(tilesight::hw::parse_profile(rows).errors(),
                  "l2.short_row_lookups.value[0]: bytes in flight must increase from 0 and shares lie in (0, 1], got "
                  "[98304,1.5]"));
  rows["l2"].erase("short_row_lookups");
  CHECK(tilesight::hw::parse_profile(rows).value().l2.short_row_lookups.empty());  // absent: one in four

  json window = doc;
  REQUIRE(tilesight::hw::parse_profile(window).value().l2.hit_merge_load.size() == 4);
  CHECK(tilesight::hw::parse_profile(window).value().l2.hit_merge_load.back()[1] == 2.286);
  window["l2"]["hit_merge_load"]["value"] = {{0, 1}, {1.2, 2}};
  CHECK(has_error(tilesight::hw::parse_profile(window).errors(),
                  "l2.hit_merge_load.value[1]: loads must increase from 0 to at most 1 and multiples be positive, got "
                  "[1.2,2]"));
  window["l2"]["hit_merge_load"]["value"] = {{0.5, 1}, {0.5, 2}};
  CHECK(has_error(tilesight::hw::parse_profile(window).errors(),
                  "l2.hit_merge_load.value[1]: loads must increase from 0 to at most 1 and multiples be positive, got "
                  "[0.5,2]"));
  window["l2"].erase("hit_merge_load");
  CHECK(tilesight::hw::parse_profile(window).value().l2.hit_merge_load.empty());  // absent: the idle window

  json slots = doc;
  const std::string ones(132, '1');
  slots["l2"]["slot_partition"]["value"] = {{1, ones}, {1, ones + ones}};
  CHECK(has_error(tilesight::hw::parse_profile(slots).errors(),
                  "l2.slot_partition.value[1]: resident CTAs an SM must increase from 1, got 1 after 1"));
  slots["l2"]["slot_partition"]["value"] = {{0, ""}};
  CHECK(has_error(tilesight::hw::parse_profile(slots).errors(),
                  "l2.slot_partition.value[0]: resident CTAs an SM must increase from 1, got 0"));
  slots["l2"]["slot_partition"]["value"] = {{1, ones.substr(1)}};
  CHECK(has_error(tilesight::hw::parse_profile(slots).errors(),
                  "l2.slot_partition.value[0]: must give one digit per launch slot (sm_count x 1 = 132), got 131"));
  // The first slot's digit replaced (a copy, not "x" + ...: GCC 12 warns, wrongly, on that).
  const auto first_digit = [&](char c) {
    std::string digits = ones;
    digits[0] = c;
    return digits;
  };
  slots["l2"]["slot_partition"]["value"] = {{1, first_digit('x')}};
  CHECK(has_error(tilesight::hw::parse_profile(slots).errors(),
                  "l2.slot_partition.value[0]: partitions must be digits, got 'x'"));
  slots["l2"]["slot_partition"]["value"] = {{1, first_digit('2')}};
  CHECK(has_error(tilesight::hw::parse_profile(slots).errors(),
                  "l2.slot_partition.value[0]: partition 2 is not below l2.partitions (2)"));
  slots["l2"]["slot_partition"]["value"] = {{1.5, ones}};
  CHECK(has_error(tilesight::hw::parse_profile(slots).errors(),
                  "l2.slot_partition.value[0]: must be a pair [resident CTAs an SM, \"digits\"], got [1.5,\"" + ones + "\"]"));
  slots["l2"]["slot_partition"] = "0011";
  CHECK(has_error(tilesight::hw::parse_profile(slots).errors(),
                  "l2.slot_partition: must be {\"value\": [[resident CTAs an SM, \"partition digit per launch slot\"], "
                  "...], \"source\": \"...\"}"));

  json grids = doc;
  grids["l2"]["grid_partition"] = {{"value", {{16, "0000000001110001"}, {8, "00000000"}}}, {"source", "sm_dispatch_small_ncu.csv"}};
  CHECK(has_error(tilesight::hw::parse_profile(grids).errors(),
                  "l2.grid_partition.value[1]: CTAs of the grid must increase from 1, got 8 after 16"));
  grids["l2"]["grid_partition"]["value"] = {{16, "000000000111000"}};
  CHECK(has_error(tilesight::hw::parse_profile(grids).errors(),
                  "l2.grid_partition.value[0]: must give one digit per launch slot (its CTAs = 16), got 15"));
  grids["l2"]["grid_partition"]["value"] = {{200, std::string(200, '0')}};
  CHECK(has_error(tilesight::hw::parse_profile(grids).errors(),
                  "l2.grid_partition.value[0]: a grid of 200 CTAs does not fit one an SM (sm_count 132)"));
  grids["l2"]["grid_partition"]["value"] = {{8, "00000003"}};
  CHECK(has_error(tilesight::hw::parse_profile(grids).errors(),
                  "l2.grid_partition.value[0]: partition 3 is not below l2.partitions (2)"));
  // The GPCs' map: any digits (a GPC, not a partition), one per CTA.
  json gpcs = doc;
  gpcs["l2"]["grid_gpc"] = {{"value", {{16, "0000000001234567"}}}, {"source", "sm_dispatch_small_ncu.csv"}};
  CHECK(tilesight::hw::parse_profile(gpcs).ok());
  gpcs["l2"]["grid_gpc"]["value"] = {{16, "00000000012345"}};
  CHECK(has_error(tilesight::hw::parse_profile(gpcs).errors(),
                  "l2.grid_gpc.value[0]: must give one digit per launch slot (its CTAs = 16), got 14"));
  // The full grids' GPCs: one digit per slot of sm_count x R, any GPC digit.
  json full = doc;
  full["l2"]["slot_gpc"] = {{"value", {{1, std::string(66, '0') + std::string(66, '7')}}}, {"source", "sm_dispatch.csv.gz"}};
  CHECK(tilesight::hw::parse_profile(full).ok());
  full["l2"]["slot_gpc"]["value"] = {{2, std::string(132, '0')}};
  CHECK(has_error(tilesight::hw::parse_profile(full).errors(),
                  "l2.slot_gpc.value[0]: must give one digit per launch slot (sm_count x 2 = 264), got 132"));
  full["l2"]["slot_gpc"]["value"] = {{1, std::string(132, '0')}, {1, std::string(132, '0')}};
  CHECK(has_error(tilesight::hw::parse_profile(full).errors(),
                  "l2.slot_gpc.value[1]: resident CTAs an SM must increase from 1, got 1 after 1"));
}
