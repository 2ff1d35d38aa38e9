// The last few cache analyses of this thread (private to the cache model). An analysis is a
// pure function of what the walk reads: the launch order, the grid, each access's blocks and
// keys, the stream's shape, the cache levels and the options. A tile-config search evaluates
// plans that differ only in what the cache model does not see (pipeline stages, warps: they
// change the latency, not the tile stream, unless they change the occupancy), so it asks for
// the same analysis again and again. The key holds every one of those inputs, so a hit returns
// exactly what the walk would compute.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tilesight/cache/cache_model.h"

namespace tilesight::cache::detail {

class MemoKey {
 public:
  MemoKey& add(std::int64_t v) { return bytes(&v, sizeof v); }
  MemoKey& add(double v) { return bytes(&v, sizeof v); }
  MemoKey& add(bool v) { return add(static_cast<std::int64_t>(v)); }
  MemoKey& add(std::string_view s) {
    add(static_cast<std::int64_t>(s.size()));
    key_.append(s);
    return *this;
  }
  const std::string& str() const { return key_; }

 private:
  MemoKey& bytes(const void* p, std::size_t n) {
    key_.append(static_cast<const char*>(p), n);
    return *this;
  }
  std::string key_;
};

class AnalysisMemo {
 public:
  static constexpr std::size_t kEntries = 8;
  static AnalysisMemo& of_this_thread();
  const CacheTraffic* find(const std::string& key) const;
  void store(const std::string& key, const CacheTraffic& traffic);

 private:
  struct Entry {
    std::string key;
    CacheTraffic traffic;
  };
  std::array<Entry, kEntries> entries_;
  std::size_t next_ = 0;  // the oldest entry, replaced next
};

}  // namespace tilesight::cache::detail
