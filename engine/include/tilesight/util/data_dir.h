// Finds the folder that holds hw_profiles/ and resources/ (DESIGN.md, CLI contract): the
// set_data_dir() override, the one named by TILESIGHT_DATA, then the executable's
// neighbourhood (parents of a build folder, ../share/tilesight for an installed prefix), then
// the source tree the build came from and the configured install prefix.
#pragma once

#include <filesystem>
#include <optional>

namespace tilesight {

// The data folder, or nullopt when none is found.
std::optional<std::filesystem::path> data_dir();

// Overrides the lookup (tests, GUI settings); an empty path restores it.
void set_data_dir(const std::filesystem::path& dir);

}  // namespace tilesight
