// The first-touch cache model (cache_model.h): an L2 without a capacity. Each distinct block
// comes from DRAM once, at its first touch; every later touch hits, whatever the launch order.
#include <algorithm>

#include "tilesight/cache/cache_model.h"

namespace tilesight::cache {

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
