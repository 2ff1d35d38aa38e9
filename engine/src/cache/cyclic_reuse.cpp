#include "tilesight/cache/cyclic_reuse.h"

namespace tilesight::cache {

double cyclic_hit_rate(const hw::CacheLevel& level, double working_set_bytes) {
  if (!(level.bytes > 0)) return 0;
  const double w = working_set_bytes / level.bytes;
  if (level.cyclic_hit.empty()) return w <= 1 ? 1 : 0;
  double prev_w = 0, prev_h = 1;  // from (0, 1) to the first point
  for (const auto& [pw, ph] : level.cyclic_hit) {
    if (w <= pw) return pw > prev_w ? prev_h + (ph - prev_h) * (w - prev_w) / (pw - prev_w) : ph;
    prev_w = pw;
    prev_h = ph;
  }
  return prev_h;  // past the last point: its rate
}

}  // namespace tilesight::cache
