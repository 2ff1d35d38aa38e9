#include "tilesight/plan/tile_program.h"

#include <algorithm>
#include <limits>

namespace tilesight::plan {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Products of extents and trip counts saturate instead of overflowing: validation bounds
// each factor, but a C++-built program may not have been validated yet.
std::int64_t saturating_multiply(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return kInt64Max;
  return product;
}

template <typename Enum, std::size_t N>
std::optional<Enum> enum_from_name(const Enum (&all)[N], std::string_view (*name)(Enum),
                                   std::string_view s) {
  for (Enum e : all)
    if (name(e) == s) return e;
  return std::nullopt;
}

}  // namespace

std::string_view placement_name(Placement p) {
  switch (p) {
    case Placement::kRegister:
      return "register";
    case Placement::kTmem:
      return "tmem";
    case Placement::kSmem:
      return "smem";
    case Placement::kL15:
      return "l15";
    case Placement::kL2:
      return "l2";
    case Placement::kDdr:
      return "ddr";
  }
  return "?";
}

std::optional<Placement> placement_from_name(std::string_view s) {
  return enum_from_name(kAllPlacements, &placement_name, s);
}

std::string_view launch_order_name(LaunchOrderKind k) {
  switch (k) {
    case LaunchOrderKind::kRowMajor:
      return "row_major";
    case LaunchOrderKind::kColumnMajor:
      return "column_major";
    case LaunchOrderKind::kGrouped:
      return "grouped";
    case LaunchOrderKind::kZOrder:
      return "z_order";
  }
  return "?";
}

std::optional<LaunchOrderKind> launch_order_from_name(std::string_view s) {
  return enum_from_name(kAllLaunchOrders, &launch_order_name, s);
}

std::string_view op_name(OpKind op) {
  switch (op) {
    case OpKind::kLoad:
      return "load";
    case OpKind::kStore:
      return "store";
    case OpKind::kMmaTc:
      return "mma_tc";
    case OpKind::kMmaCuda:
      return "mma_cuda";
    case OpKind::kReduce:
      return "reduce";
    case OpKind::kExp:
      return "exp";
    case OpKind::kRescale:
      return "rescale";
    case OpKind::kRemote:
      return "remote";
    case OpKind::kFused:
      return "fused";
  }
  return "?";
}

std::optional<OpKind> op_from_name(std::string_view s) {
  return enum_from_name(kAllOps, &op_name, s);
}

double Tensor::bytes() const {
  double elements = 1;
  for (std::int64_t d : shape) elements *= static_cast<double>(d);
  return elements * dtype_bytes(dtype);
}

std::int64_t TileGrid::tiles() const {
  std::int64_t n = 1;
  for (const GridDim& d : dims) n = saturating_multiply(n, d.extent);
  return n;
}

std::optional<std::size_t> TileGrid::dim_index(std::string_view name) const {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == name) return i;
  return std::nullopt;
}

const Tensor* TileProgram::find_tensor(std::string_view tensor_name) const {
  auto it = std::find_if(tensors.begin(), tensors.end(),
                         [&](const Tensor& t) { return t.name == tensor_name; });
  return it == tensors.end() ? nullptr : &*it;
}

const Loop* TileProgram::find_loop(std::string_view loop_name) const {
  auto it =
      std::find_if(loops.begin(), loops.end(), [&](const Loop& l) { return l.name == loop_name; });
  return it == loops.end() ? nullptr : &*it;
}

std::int64_t TileProgram::executions_per_tile(std::string_view loop) const {
  std::int64_t n = 1;
  // At most loops.size() steps up the parent chain, so an unvalidated cycle cannot hang.
  for (std::size_t step = 0; !loop.empty() && step < loops.size(); ++step) {
    const Loop* l = find_loop(loop);
    if (!l) break;
    n = saturating_multiply(n, l->trip_count);
    loop = l->parent;
  }
  return n;
}

}  // namespace tilesight::plan
