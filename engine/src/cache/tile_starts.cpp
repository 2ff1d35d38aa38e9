#include "tilesight/cache/tile_starts.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>

#include "tilesight/util/csv.h"

namespace tilesight::cache {

namespace {

struct Cta {
  std::int64_t pid = 0;
  double start = 0, end = 0;
  int line = 0;
};

}  // namespace

Result<std::vector<double>> read_tile_starts(std::istream& in) {
  std::string line;
  int number = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++number;
    if (!line.empty() && line[0] != '#' && line.find_first_not_of(" \t\r") != std::string::npos) header = split_csv(line);
  }
  if (header.empty()) return Error{"", "empty trace: expected a header with pid, t_start_ns, t_end_ns"};
  const auto column = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::size_t pid_at = column("pid"), start_at = column("t_start_ns"), end_at = column("t_end_ns");
  Errors missing;
  for (const auto& [at, name] : {std::pair{pid_at, "pid"}, {start_at, "t_start_ns"}, {end_at, "t_end_ns"}})
    if (at == header.size()) missing.push_back({.path = name, .message = "missing column", .line = number});
  if (!missing.empty()) return missing;
  std::vector<Cta> ctas;
  Errors errors;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto cells = split_csv(line);
    const auto cell = [&](std::size_t at) { return at < cells.size() ? csv_number(cells[at]) : std::nullopt; };
    const auto pid = cell(pid_at), start = cell(start_at), end = cell(end_at);
    if (!pid || *pid < 0 || *pid != std::floor(*pid) || *pid > 1e12) {
      errors.push_back({.path = "pid", .message = "must be a launch position 0, 1, ...", .line = number});
      continue;
    }
    if (!start || !end || !(*end > *start)) {
      errors.push_back({.path = !start ? "t_start_ns" : "t_end_ns",
                        .message = !start || !end ? "must be a number" : "must be after t_start_ns", .line = number});
      continue;
    }
    ctas.push_back({.pid = static_cast<std::int64_t>(*pid), .start = *start, .end = *end, .line = number});
  }
  // By launch position (a stable sort: of two rows of one CTA, the first comes first): 0 .. n-1, each once.
  std::stable_sort(ctas.begin(), ctas.end(), [](const Cta& x, const Cta& y) { return x.pid < y.pid; });
  for (std::size_t i = 1; i < ctas.size(); ++i)
    if (ctas[i].pid == ctas[i - 1].pid)
      errors.push_back({.path = "pid", .message = "CTA " + std::to_string(ctas[i].pid) + " again (first on line " +
                                                  std::to_string(ctas[i - 1].line) + "): one launch a file",
                        .line = ctas[i].line});
  if (!errors.empty()) {  // every bad row, in the trace's order
    std::stable_sort(errors.begin(), errors.end(), [](const Error& x, const Error& y) { return x.line < y.line; });
    return errors;
  }
  if (ctas.empty()) return Error{"", "no CTAs in the trace"};
  for (std::size_t p = 0; p < ctas.size(); ++p)
    if (ctas[p].pid != static_cast<std::int64_t>(p))
      return Error{"pid", "CTA " + std::to_string(p) + " missing: the trace has pids up to " +
                              std::to_string(ctas.back().pid) + ", each launch position once"};
  std::vector<double> times;
  double first = ctas.front().start;
  for (const Cta& c : ctas) {
    times.push_back(c.end - c.start);
    first = std::min(first, c.start);
  }
  auto mid = times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2);
  std::nth_element(times.begin(), mid, times.end());
  const double tile = *mid;
  std::vector<double> starts;
  for (const Cta& c : ctas) starts.push_back((c.start - first) / tile);
  return starts;
}

Result<std::vector<double>> read_tile_starts_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Error{"", "cannot read " + path};
  return read_tile_starts(f);
}

}  // namespace tilesight::cache
