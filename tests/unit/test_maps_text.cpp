// The per-tile hit-rate maps drawn in characters (report/maps_text.h), checked by hand: each
// character the tenth of its cells' mean hit rate, the grid shrunk to at most 64 x 32.
#include <catch2/catch.hpp>

#include <string>

#include "tilesight/report/maps_text.h"

using tilesight::report::HitRateMap;
using tilesight::report::maps_text;
using tilesight::report::Prediction;

TEST_CASE("maps_text draws each tile's hit rate as its tenth", "[report]") {
  Prediction p;
  p.hit_rate_maps.push_back({.tensor = "", .level = "l2", .row_dim = "m", .col_dim = "n", .rows = 2, .cols = 3,
                             .hit_rate = {0.0, 0.15, 0.95, 1.0, 0.55, 0.05}, .reuse_distance = {}});
  p.hit_rate_maps.push_back({.tensor = "A", .level = "l2", .row_dim = "m", .col_dim = "n", .rows = 2, .cols = 3,
                             .hit_rate = {0.5, 0.5, 0.5, 0.5, 0.5, 0.25}, .reuse_distance = {}});
  const std::string text = maps_text(p);
  CHECK(text.find("2 x 3 tiles (rows: m, columns: n)") != std::string::npos);
  CHECK(text.find("one character 1 x 1 tiles") != std::string::npos);
  CHECK(text.find("  +---+\n  | .@|\n  |@+ |\n  +---+\n") != std::string::npos);  // 1.0 is '@', not past it
  // (0 + 0.15 + 0.95 + 1 + 0.55 + 0.05) / 6 = 0.45; A: 2.75 / 6 = 0.458
  CHECK(text.find("  all tensors: mean over the tiles 45%, min 0%, max 100%\n") != std::string::npos);
  CHECK(text.find("  A: mean over the tiles 46%, min 25%, max 50%\n") != std::string::npos);
}

TEST_CASE("maps_text averages the tiles one character covers", "[report]") {
  // 1 x 128 tiles alternating 0 and 1: 64 characters of two tiles each, every one 0.5 -> '+'.
  HitRateMap m{.tensor = "", .level = "l2", .row_dim = "", .col_dim = "row", .rows = 1, .cols = 128,
               .hit_rate = {}, .reuse_distance = {}};
  for (int i = 0; i < 128; ++i) m.hit_rate.push_back(i % 2);
  Prediction p;
  p.hit_rate_maps.push_back(m);
  const std::string text = maps_text(p);
  CHECK(text.find("one character 1 x 2 tiles") != std::string::npos);
  CHECK(text.find("(rows: -, columns: row)") != std::string::npos);
  CHECK(text.find("|" + std::string(64, '+') + "|") != std::string::npos);
}

TEST_CASE("maps_text is empty without a map of all tensors", "[report]") {
  Prediction p;
  CHECK(maps_text(p).empty());
  p.hit_rate_maps.push_back({.tensor = "A", .level = "l2", .row_dim = "m", .col_dim = "n", .rows = 1, .cols = 1,
                             .hit_rate = {0.5}, .reuse_distance = {}});
  CHECK(maps_text(p).empty());
  // A map whose cells do not fill its rows x cols is not drawn (never read past the end).
  p.hit_rate_maps.push_back({.tensor = "", .level = "l2", .row_dim = "m", .col_dim = "n", .rows = 2, .cols = 2,
                             .hit_rate = {0.5}, .reuse_distance = {}});
  CHECK(maps_text(p).empty());
}
