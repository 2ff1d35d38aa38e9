#include "ui/profile_kinds.h"

#include <map>
#include <mutex>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/model/distributed.h"
#include "tilesight/net/system_profile.h"

namespace tilesight::ui {

ProfileKind profile_kind(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, ProfileKind> known;
  const std::lock_guard lock(mutex);
  if (auto it = known.find(name); it != known.end()) return it->second;
  ProfileKind kind = ProfileKind::kUnreadable;
  if (auto system = net::load_system(name); system && system->devices() >= 2)
    kind = ProfileKind::kSystem;
  else if (hw::load_profile(name))
    kind = ProfileKind::kGpu;
  known.emplace(name, kind);
  return kind;
}

bool profile_fits(const nlohmann::json& plan, const std::string& name) {
  const ProfileKind kind = profile_kind(name);
  // A decode step also runs on one GPU (tp = ep = dp = 1; the engine names the field otherwise).
  if (kind == ProfileKind::kGpu && plan.value("kernel", "") == "llm_decode") return true;
  return kind == (model::is_distributed_plan(plan) ? ProfileKind::kSystem : ProfileKind::kGpu);
}

}  // namespace tilesight::ui
