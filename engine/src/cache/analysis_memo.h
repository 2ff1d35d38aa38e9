// The last few cache analyses of this thread (private to the cache model). An analysis is a
// pure function of what the walk reads: the launch order, the grid, each access's blocks and
// keys, the stream's shape, the cache levels and the options. A tile-config search evaluates
// plans that differ only in what the cache model does not see (warps: they change the latency,
// not the tile stream, unless they change the occupancy), so it asks for the same analysis
// again and again. A key holds every input of what it stands for, so a hit returns exactly
// what the work would compute.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

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

// The last kEntries values of one kind computed on this thread, by key. slot() hands out the
// oldest entry to be filled in place (its value keeps its buffers: no allocation once warm).
template <class Value, std::size_t kEntries = 8>
class AnalysisMemo {
 public:
  static AnalysisMemo& of_this_thread() {
    thread_local AnalysisMemo memo;
    return memo;
  }
  const Value* find(const std::string& key) const {
    for (const Entry& e : entries_)
      if (!e.key.empty() && e.key == key) return &e.value;
    return nullptr;
  }
  // The entry for `key`, replacing the oldest; its value holds whatever it held before.
  Value& slot(const std::string& key) {
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % kEntries;
    e.key = key;
    return e.value;
  }

 private:
  struct Entry {
    std::string key;
    Value value;
  };
  std::array<Entry, kEntries> entries_;
  std::size_t next_ = 0;  // the oldest entry, replaced next
};

}  // namespace tilesight::cache::detail
