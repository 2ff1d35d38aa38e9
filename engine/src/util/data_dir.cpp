// Where hw_profiles/ and resources/ live (DESIGN.md, CLI contract: "from any build folder, in
// the tree or outside it, from an installed prefix, or from the folder named by
// TILESIGHT_DATA"). The first candidate that holds hw_profiles/ wins:
//   1. set_data_dir()'s override;
//   2. $TILESIGHT_DATA;
//   3. the executable's parents (a build folder inside the source tree), then
//      <exe>/../share/tilesight (an installed prefix);
//   4. the source tree the build came from, then the configured install prefix (compile-time
//      TILESIGHT_SOURCE_DATA_DIR / TILESIGHT_INSTALL_DATA_DIR), so a build folder outside the
//      tree still finds the tree's data.
#include "tilesight/util/data_dir.h"

#include <cstdlib>
#include <mutex>
#include <system_error>

namespace tilesight {
namespace {

namespace fs = std::filesystem;

// The override is process-wide by design: the GUI's settings and tests set it once.
struct Override {
  std::mutex mutex;
  fs::path dir;
};

Override& data_dir_override() {
  static Override instance;
  return instance;
}

bool holds_profiles(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_directory(dir / "hw_profiles", ec);
}

std::optional<fs::path> from_environment() {
  const char* env = std::getenv("TILESIGHT_DATA");
  if (env == nullptr || *env == '\0' || !holds_profiles(env)) return std::nullopt;
  return fs::path(env);
}

std::optional<fs::path> near_executable() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return std::nullopt;
  for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (holds_profiles(dir)) return dir;
    if (dir == dir.parent_path()) break;  // reached the root
  }
  const fs::path installed = exe.parent_path().parent_path() / "share" / "tilesight";
  if (holds_profiles(installed)) return installed;
  return std::nullopt;
}

std::optional<fs::path> compiled_in() {
#if defined(TILESIGHT_SOURCE_DATA_DIR) && defined(TILESIGHT_INSTALL_DATA_DIR)
  for (const char* dir : {TILESIGHT_SOURCE_DATA_DIR, TILESIGHT_INSTALL_DATA_DIR})
    if (holds_profiles(dir)) return fs::path(dir);
#endif
  return std::nullopt;
}

}  // namespace

std::optional<fs::path> data_dir() {
  {
    Override& o = data_dir_override();
    std::lock_guard lock(o.mutex);
    if (!o.dir.empty()) return o.dir;
  }
  if (auto dir = from_environment()) return dir;
  if (auto dir = near_executable()) return dir;
  return compiled_in();
}

void set_data_dir(const fs::path& dir) {
  Override& o = data_dir_override();
  std::lock_guard lock(o.mutex);
  o.dir = dir;
}

}  // namespace tilesight
