// One number through a printf format, for reports and diagnoses: fmt("%.3g us", 12.5).
#pragma once

#include <cstdio>
#include <string>

namespace tilesight {

inline std::string fmt(const char* format, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

}  // namespace tilesight
