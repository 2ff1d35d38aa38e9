#include "analysis_memo.h"

namespace tilesight::cache::detail {

AnalysisMemo& AnalysisMemo::of_this_thread() {
  thread_local AnalysisMemo memo;
  return memo;
}

const CacheTraffic* AnalysisMemo::find(const std::string& key) const {
  for (const Entry& e : entries_)
    if (!e.key.empty() && e.key == key) return &e.traffic;
  return nullptr;
}

void AnalysisMemo::store(const std::string& key, const CacheTraffic& traffic) {
  entries_[next_] = {.key = key, .traffic = traffic};
  next_ = (next_ + 1) % kEntries;
}

}  // namespace tilesight::cache::detail
