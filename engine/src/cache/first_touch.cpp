#include <algorithm>

#include "tilesight/cache/cache_model.h"

namespace tilesight::cache {

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

namespace {

double l2_lookups(const AccessTraffic& a) { return a.l2_lookup_bytes > 0 ? a.l2_lookup_bytes : a.requested_bytes; }

}  // namespace

double CacheTraffic::l2_hit_rate() const {
  double lookups = 0, hit = 0;
  for (const auto& a : accesses) {
    lookups += l2_lookups(a);
    hit += a.l2_hit_bytes;
  }
  return lookups > 0 ? hit / lookups : 0;
}

double CacheTraffic::l2_load_hit_rate() const {
  double lookups = 0, hit = 0;
  for (const auto& a : accesses) {
    if (a.write) continue;
    lookups += l2_lookups(a);
    hit += a.l2_hit_bytes;
  }
  return lookups > 0 ? hit / lookups : 0;
}

double CacheTraffic::l15_hit_rate() const {
  double lookups = 0, hit = 0;
  for (const auto& a : accesses) {
    lookups += a.l15_lookup_bytes;
    hit += a.l15_hit_bytes;
  }
  return lookups > 0 ? hit / lookups : 0;
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
  double req = 0, hit = 0;
  for (const auto& a : accesses) {
    if (a.tensor != tensor) continue;
    req += a.requested_bytes;
    hit += a.l15_hit_bytes;
  }
  return req > 0 ? std::clamp(hit / req, 0.0, 1.0) : 0.0;
}

namespace {

double product(const std::vector<std::int64_t>& v) {
  double p = 1;
  for (auto x : v) p *= static_cast<double>(x);
  return p;
}

}  // namespace

CacheTraffic FirstTouchCacheModel::analyze(const plan::TileProgram& program,
                                           const hw::HardwareSpec& /*hw*/) const {
  CacheTraffic traffic{.model = name(), .accesses = {}};
  const double tiles = static_cast<double>(program.grid.tiles());
  for (const auto& access : program.accesses) {
    AccessTraffic t{.tensor = access.tensor, .write = access.write, .revisit = access.revisit > 0};
    const plan::Tensor* tensor = program.find_tensor(access.tensor);
    const double elem = tensor ? dtype_bytes(tensor->dtype) : 0;
    const double footprint = product(access.tile_shape) * elem;
    const double trips = static_cast<double>(program.executions_per_tile(access.loop));
    t.requested_bytes = tiles * trips * footprint;
    // Distinct blocks: the grid projected off the reuse dims (eq. 6), times the blocks the
    // loop walks. Every other request repeats a block already in the (infinite) cache.
    double reuse = 1;
    for (const auto& dim : access.reuse_dims)
      if (auto i = program.grid.dim_index(dim)) reuse *= static_cast<double>(program.grid.dims[*i].extent);
    double unique = tiles / reuse * trips * footprint;
    // Masked edge tiles fetch only the tensor's real bytes.
    if (tensor) unique = std::min(unique, tensor->bytes());
    // A revisit reads blocks another access of the tensor fetched: all of it hits.
    t.dram_bytes = access.revisit > 0 ? 0.0 : std::min(unique, t.requested_bytes);
    // A store is an L2 write; it counts as a hit in lts__t_sector_hit_rate (write-back cache).
    t.l2_hit_bytes = access.write ? t.requested_bytes : t.requested_bytes - t.dram_bytes;
    t.l2_lookup_bytes = t.requested_bytes;
    traffic.accesses.push_back(t);
  }
  return traffic;
}

}  // namespace tilesight::cache
