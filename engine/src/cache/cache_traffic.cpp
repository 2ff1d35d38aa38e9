// CacheTraffic's sums over its accesses (cache_model.h): DRAM bytes, hit rates as ncu counts
// them, and the shares the resource vectors read per tensor.
#include <algorithm>

#include "tilesight/cache/cache_model.h"

namespace tilesight::cache {

namespace {

double l2_lookups(const AccessTraffic& a) { return a.l2_lookup_bytes > 0 ? a.l2_lookup_bytes : a.requested_bytes; }

// Sum of `part` over the accesses `keep` selects, over the sum of `whole`; 0 when nothing.
template <class Keep, class Part, class Whole>
double share(const std::vector<AccessTraffic>& accesses, Keep keep, Part part, Whole whole) {
  double num = 0, den = 0;
  for (const auto& a : accesses) {
    if (!keep(a)) continue;
    num += part(a);
    den += whole(a);
  }
  return den > 0 ? num / den : 0;
}

}  // namespace

double CacheTraffic::dram_read_bytes() const {
  double s = 0;
  for (const auto& a : accesses)
    if (!a.write) s += a.dram_bytes;
  return s;
}

double CacheTraffic::dram_write_bytes() const {
  double s = 0;
  for (const auto& a : accesses)
    if (a.write) s += a.dram_bytes;
  return s;
}

double CacheTraffic::l2_hit_rate() const {
  return share(accesses, [](const AccessTraffic&) { return true; }, [](const AccessTraffic& a) { return a.l2_hit_bytes; },
               l2_lookups);
}

double CacheTraffic::l2_load_hit_rate() const {
  return share(accesses, [](const AccessTraffic& a) { return !a.write; },
               [](const AccessTraffic& a) { return a.l2_hit_bytes; }, l2_lookups);
}

double CacheTraffic::l15_hit_rate() const {
  return share(accesses, [](const AccessTraffic&) { return true; }, [](const AccessTraffic& a) { return a.l15_hit_bytes; },
               [](const AccessTraffic& a) { return a.l15_lookup_bytes; });
}

double CacheTraffic::dram_fraction(const std::string& tensor, bool revisit) const {
  double req = 0, dram = 0, all_req = 0, all_dram = 0;
  for (const auto& a : accesses) {
    if (a.tensor != tensor) continue;
    all_req += a.requested_bytes;
    all_dram += a.dram_bytes;
    if (a.revisit != revisit) continue;
    req += a.requested_bytes;
    dram += a.dram_bytes;
  }
  if (req > 0) return dram / req;
  return all_req > 0 ? all_dram / all_req : 1.0;
}

double CacheTraffic::l15_fraction(const std::string& tensor) const {
  const double f = share(accesses, [&](const AccessTraffic& a) { return a.tensor == tensor; },
                         [](const AccessTraffic& a) { return a.l15_hit_bytes; },
                         [](const AccessTraffic& a) { return a.requested_bytes; });
  return std::clamp(f, 0.0, 1.0);
}

CacheTraffic CacheTraffic::at_wave(const WaveTraffic& w) const {
  CacheTraffic t{.model = model, .accesses = accesses, .tile_maps = {}, .stream = stream, .wave_traffic = {}};
  for (std::size_t a = 0; a < t.accesses.size() && a < w.dram_bytes.size(); ++a) t.accesses[a].dram_bytes = w.dram_bytes[a];
  return t;
}

}  // namespace tilesight::cache
