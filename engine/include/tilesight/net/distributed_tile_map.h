// DistributedTileMap (§3.6, issue 7): how a tile grid and its tensors are spread over the
// devices of a system. A placement says where each part of a tensor lives:
//
//   replicated  every device of the group holds all of it (weights under data parallelism)
//   sharded     cut into equal contiguous blocks along one dimension, block i on group[i]
//               (A's rows under sequence parallelism, B's columns under tensor parallelism)
//   partial     every device holds a partial sum of all of it, still to be reduced (the
//               output of a row-parallel GEMM, gradients under data parallelism)
//
// A grid partition says which device computes each tile: the grid's `dim` is cut into
// equal blocks of tiles, block i on group[i]. The parallelism kinds name the usual choices:
//
//   tensor    the GEMM's N tiles (column-parallel) or K (row-parallel, output partial)
//   sequence  the M / sequence tiles
//   expert    the expert (batch) dimension of a grouped GEMM
//   data      the batch dimension; weights replicated
//
// Remote accesses are never declared: net/remote_access.h infers them from the placement a
// producer leaves and the placement its consumer needs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilesight/util/result.h"

namespace tilesight::net {

enum class Parallelism { kTensor, kSequence, kExpert, kData };
const char* parallelism_name(Parallelism p);  // "tensor", "sequence", "expert", "data"

// A box of a tensor: per dimension the half-open range [first, last).
struct Region {
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  double elements() const;
  Region intersect(const Region& other) const;  // empty ranges where they do not meet
};

struct TensorShape {
  std::string name;
  std::vector<std::int64_t> dims;
  double element_bytes = 2;
  Region whole() const;
  double bytes() const { return whole().elements() * element_bytes; }
};

struct Placement {
  enum class Kind { kReplicated, kSharded, kPartial };
  Kind kind = Kind::kReplicated;
  std::size_t dim = 0;               // sharded: the dimension cut
  std::vector<std::size_t> devices;  // the group: system device indices, shard i on devices[i]

  static Placement replicated(std::vector<std::size_t> devices);
  static Placement sharded(std::size_t dim, std::vector<std::size_t> devices);
  static Placement partial(std::vector<std::size_t> devices);

  bool holds(std::size_t device) const;
  // The part of `t` that `device` holds (or needs, for a consumer); empty when not in the group.
  Region region(const TensorShape& t, std::size_t device) const;
};

// Block i of n equal contiguous blocks of [0, extent): [i·extent/n, (i+1)·extent/n).
std::pair<std::int64_t, std::int64_t> block_of(std::int64_t extent, std::size_t i, std::size_t n);

struct GridPartition {
  Parallelism kind = Parallelism::kTensor;
  std::size_t dim = 0;               // the grid dimension cut
  std::vector<std::size_t> devices;
};

class DistributedTileMap {
 public:
  // Errors name the field: "partition.dim" past the grid's dimensions, an empty group, a
  // group with more devices than tiles along `dim`, a tensor placed on a dimension it lacks.
  static Result<DistributedTileMap> build(std::vector<std::int64_t> grid, GridPartition partition,
                                          std::map<std::string, std::pair<TensorShape, Placement>> tensors);

  const std::vector<std::int64_t>& grid() const { return grid_; }
  const GridPartition& partition() const { return partition_; }
  std::size_t device_of(const std::vector<std::int64_t>& tile) const;  // the system device
  std::int64_t tiles_on(std::size_t device) const;
  const std::pair<TensorShape, Placement>& tensor(const std::string& name) const { return tensors_.at(name); }
  bool has_tensor(const std::string& name) const { return tensors_.count(name) > 0; }

 private:
  std::vector<std::int64_t> grid_;
  GridPartition partition_;
  std::map<std::string, std::pair<TensorShape, Placement>> tensors_;
};

}  // namespace tilesight::net
