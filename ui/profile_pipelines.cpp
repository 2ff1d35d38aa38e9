#include "ui/profile_pipelines.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/net/system_profile.h"

namespace tilesight::ui {

std::vector<Resource> pipelines_of(const hw::HardwareSpec& gpu, std::size_t devices) {
  std::vector<Resource> out;
  for (Resource r : kAllResources) {
    if (r == Resource::kTmem && !gpu.has_tmem()) continue;
    if (r == Resource::kL15 && !gpu.has_l15()) continue;
    if (r == Resource::kNet && devices < 2) continue;
    out.push_back(r);
  }
  return out;
}

std::vector<Resource> profile_pipelines(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<Resource>> known;
  const std::lock_guard lock(mutex);
  if (auto it = known.find(name); it != known.end()) return it->second;
  std::vector<Resource> pipelines(kAllResources.begin(), kAllResources.end());
  if (auto system = net::load_system(name); system && system->devices() >= 2)
    pipelines = pipelines_of(system->device, system->devices());
  else if (auto gpu = hw::load_profile(name))
    pipelines = pipelines_of(*gpu, 1);
  known.emplace(name, pipelines);
  return pipelines;
}

std::vector<Resource> timeline_lanes(const report::Prediction& p) {
  std::vector<Resource> lanes = profile_pipelines(p.hardware);
  for (const auto& e : p.timeline)
    if (std::find(lanes.begin(), lanes.end(), e.resource) == lanes.end()) lanes.push_back(e.resource);
  std::sort(lanes.begin(), lanes.end(), [](Resource a, Resource b) { return index(a) < index(b); });
  return lanes;
}

}  // namespace tilesight::ui
