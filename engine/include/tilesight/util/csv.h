// The few CSV rules the measured files need (corpora, CTA traces): cells split at commas
// outside double quotes, carriage returns dropped; a number is a whole cell that parses as a
// finite double.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tilesight {

std::vector<std::string> split_csv(const std::string& line);
std::optional<double> csv_number(const std::string& cell);

}  // namespace tilesight
