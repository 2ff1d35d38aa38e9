// The network model against the two-H200 NCCL corpus (tests/validation/h200x2, issue 8):
// a regression guard, not a fit. With datasheet link figures the bandwidth-bound rows
// (>= 64 MiB, NCCL's default protocol choice) were within 21.1% MAPE on 2026-11-29; small
// messages are predicted too fast (53.6%: NCCL's model latencies undershoot the measured
// 13-30 us), which issue 8's alpha calibration from point-to-point results is to fix.
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tilesight/net/collective_cost.h"
#include "tilesight/net/system_profile.h"

using namespace tilesight::net;

namespace {

std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(f, line)) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string c; std::getline(s, c, ',');) cells.push_back(c);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

TEST_CASE("bandwidth-bound collectives on two H200s stay within the recorded error", "[net][corpus]") {
  auto system = load_system("h200x2");
  REQUIRE(system.ok());
  const auto rows = read_csv(std::string(TILESIGHT_TEST_SOURCE_DIR) + "/tests/validation/h200x2/collectives.csv");
  REQUIRE(rows.size() > 100);
  double sum = 0;
  int count = 0;
  for (const auto& r : rows) {
    const double bytes = std::stod(r.at("bytes"));
    if (r.at("proto") != "default" || bytes < 64.0 * 1024 * 1024) continue;
    CollectiveRequest req{.collective = *collective_from_name(r.at("collective")), .group = {0, 1}, .bytes = bytes};
    auto c = tune_collective(system->network, req);
    REQUIRE(c.ok());
    const double measured = std::stod(r.at("time_us"));
    sum += std::fabs(c->total_s * 1e6 - measured) / measured;
    ++count;
  }
  REQUIRE(count >= 20);
  const double mape = sum / count;
  INFO("MAPE " << mape);
  CHECK(mape < 0.23);
}
