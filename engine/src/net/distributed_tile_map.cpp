#include "tilesight/net/distributed_tile_map.h"

#include <algorithm>

namespace tilesight::net {

const char* parallelism_name(Parallelism p) {
  switch (p) {
    case Parallelism::kTensor: return "tensor";
    case Parallelism::kSequence: return "sequence";
    case Parallelism::kExpert: return "expert";
    case Parallelism::kData: return "data";
  }
  return "tensor";
}

double Region::elements() const {
  if (ranges.empty()) return 0;
  double n = 1;
  for (const auto& [a, b] : ranges) n *= static_cast<double>(std::max<std::int64_t>(b - a, 0));
  return n;
}

Region Region::intersect(const Region& other) const {
  Region out;
  for (std::size_t d = 0; d < std::min(ranges.size(), other.ranges.size()); ++d)
    out.ranges.push_back({std::max(ranges[d].first, other.ranges[d].first),
                          std::min(ranges[d].second, other.ranges[d].second)});
  return out;
}

Region TensorShape::whole() const {
  Region r;
  for (std::int64_t d : dims) r.ranges.push_back({0, d});
  return r;
}

std::pair<std::int64_t, std::int64_t> block_of(std::int64_t extent, std::size_t i, std::size_t n) {
  const auto e = static_cast<long double>(extent);
  return {static_cast<std::int64_t>(e * static_cast<long double>(i) / static_cast<long double>(n)),
          static_cast<std::int64_t>(e * static_cast<long double>(i + 1) / static_cast<long double>(n))};
}

Placement Placement::replicated(std::vector<std::size_t> devices) { return {Kind::kReplicated, 0, std::move(devices)}; }
Placement Placement::sharded(std::size_t dim, std::vector<std::size_t> devices) {
  return {Kind::kSharded, dim, std::move(devices)};
}
Placement Placement::partial(std::vector<std::size_t> devices) { return {Kind::kPartial, 0, std::move(devices)}; }

bool Placement::holds(std::size_t device) const {
  return std::find(devices.begin(), devices.end(), device) != devices.end();
}

Region Placement::region(const TensorShape& t, std::size_t device) const {
  const auto it = std::find(devices.begin(), devices.end(), device);
  if (it == devices.end()) return {};
  Region r = t.whole();
  if (kind == Kind::kSharded && dim < r.ranges.size())
    r.ranges[dim] = block_of(t.dims[dim], static_cast<std::size_t>(it - devices.begin()), devices.size());
  return r;
}

Result<DistributedTileMap> DistributedTileMap::build(std::vector<std::int64_t> grid, GridPartition partition,
                                                     std::map<std::string, std::pair<TensorShape, Placement>> tensors) {
  Errors errors;
  if (partition.dim >= grid.size())
    errors.push_back({"partition.dim", "must name one of the grid's " + std::to_string(grid.size()) +
                                           " dimensions, got " + std::to_string(partition.dim)});
  if (partition.devices.empty()) errors.push_back({"partition.devices", "must name at least one device"});
  else if (partition.dim < grid.size() && static_cast<std::int64_t>(partition.devices.size()) > grid[partition.dim])
    errors.push_back({"partition.devices", std::to_string(partition.devices.size()) + " devices for " +
                                               std::to_string(grid[partition.dim]) + " tiles along dimension " +
                                               std::to_string(partition.dim) + ": some would compute nothing"});
  for (const auto& [name, tp] : tensors) {
    const auto& [shape, placement] = tp;
    if (placement.devices.empty()) errors.push_back({"tensors." + name + ".devices", "must name at least one device"});
    if (placement.kind == Placement::Kind::kSharded && placement.dim >= shape.dims.size())
      errors.push_back({"tensors." + name + ".dim", "the tensor has " + std::to_string(shape.dims.size()) +
                                                        " dimensions, got " + std::to_string(placement.dim)});
  }
  if (!errors.empty()) return errors;
  DistributedTileMap m;
  m.grid_ = std::move(grid);
  m.partition_ = std::move(partition);
  m.tensors_ = std::move(tensors);
  return m;
}

std::size_t DistributedTileMap::device_of(const std::vector<std::int64_t>& tile) const {
  const std::size_t n = partition_.devices.size();
  const std::int64_t extent = grid_[partition_.dim];
  const std::int64_t t = std::clamp<std::int64_t>(tile[partition_.dim], 0, extent - 1);
  // block i holds [i·extent/n, (i+1)·extent/n): the largest i whose block starts at or before t
  std::size_t i = static_cast<std::size_t>((static_cast<long double>(t) + 1) * static_cast<long double>(n) /
                                           static_cast<long double>(extent));
  while (i > 0 && block_of(extent, i, n).first > t) --i;
  while (i + 1 < n && block_of(extent, i + 1, n).first <= t) ++i;
  return partition_.devices[std::min(i, n - 1)];
}

std::int64_t DistributedTileMap::tiles_on(std::size_t device) const {
  const auto it = std::find(partition_.devices.begin(), partition_.devices.end(), device);
  if (it == partition_.devices.end()) return 0;
  const auto [a, b] = block_of(grid_[partition_.dim], static_cast<std::size_t>(it - partition_.devices.begin()),
                               partition_.devices.size());
  std::int64_t others = 1;
  for (std::size_t d = 0; d < grid_.size(); ++d)
    if (d != partition_.dim) others *= grid_[d];
  return (b - a) * others;
}

}  // namespace tilesight::net
