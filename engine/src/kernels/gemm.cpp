#include "tilesight/kernels/gemm.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

namespace {

constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;  // CUDA grid and index limits
// Registers a Triton/CUTLASS GEMM needs besides its accumulators: addresses, loop state and
// the operand fragments in flight (wgmma reads operands from shared memory).
constexpr std::int64_t kBaseRegisters = 40;
constexpr std::int64_t kMaxRegisters = 255;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

DType output_dtype(DType in) {
  switch (in) {
    case DType::kFP8: return DType::kBF16;  // e4m3 in, bf16 out (DESIGN.md)
    case DType::kTF32: return DType::kFP32;
    default: return in;
  }
}

void check_unsupported(const nlohmann::json& params, const std::string& path, Errors& errors) {
  // Hopper persistent warp-specialised kernels and split-K come with the calibration issue;
  // until then they are refused rather than silently modelled as a plain launch.
  for (const char* key : {"persistent", "cluster_m", "cluster_n", "raster", "schedule", "split_k"}) {
    if (!params.contains(key)) continue;
    const auto& v = params[key];
    const bool neutral = (v.is_boolean() && !v.get<bool>()) || (v.is_number_integer() && v.get<std::int64_t>() == 1);
    if (!neutral)
      errors.push_back({nest(path, key), "persistent, clustered and split-K GEMMs are not modelled yet"});
  }
}

}  // namespace

Result<GemmParams> parse_gemm_params(const nlohmann::json& params, const std::string& path) {
  Errors errors;
  if (!params.is_object()) return Error{path, "must be an object, got " + json_type_phrase(params)};
  FieldReader f{params, path, errors};
  f.reject_unknown({"M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps",
                    "dtype", "layout", "batch", "persistent", "cluster_m", "cluster_n", "raster",
                    "schedule", "split_k"});
  GemmParams p;
  p.M = f.integer("M", 1, kMaxDim).value_or(0);
  p.N = f.integer("N", 1, kMaxDim).value_or(0);
  p.K = f.integer("K", 1, kMaxDim).value_or(0);
  p.block_m = f.integer("block_m", 1, 1024, 128).value_or(0);
  p.block_n = f.integer("block_n", 1, 1024, 128).value_or(0);
  p.block_k = f.integer("block_k", 1, 1024, 64).value_or(0);
  p.group_m = f.integer("group_m", 1, kMaxDim, 1).value_or(0);
  p.stages = f.integer("stages", 1, 16, 3).value_or(0);
  p.warps = f.integer("warps", 1, 64, 4).value_or(0);
  p.batch = f.integer("batch", 1, 65535, 1).value_or(0);
  if (auto d = f.string("dtype", "bf16")) {
    if (auto t = dtype_from_name(*d)) p.dtype = *t;
    else errors.push_back({f.field_path("dtype"), "unknown dtype \"" + *d + "\"; known: bf16, fp16, fp8, tf32, fp32"});
  }
  if (auto l = f.string("layout", "nn")) {
    if (*l == "nn" || *l == "nt" || *l == "tn" || *l == "tt") p.layout = *l;
    else errors.push_back({f.field_path("layout"), "unknown layout \"" + *l + "\"; known: nn, nt, tn, tt"});
  }
  check_unsupported(params, path, errors);
  if (errors.empty()) {
    const double blocks = static_cast<double>(ceil_div(p.M, p.block_m)) *
                          static_cast<double>(ceil_div(p.N, p.block_n)) * static_cast<double>(p.batch);
    if (blocks > static_cast<double>(kMaxDim))
      errors.push_back({path, "the grid would have " + std::to_string(static_cast<long long>(blocks)) +
                                  " blocks; CUDA allows at most 2147483647"});
  }
  if (!errors.empty()) return errors;
  return p;
}

std::int64_t gemm_smem_bytes(const GemmParams& p) {
  const auto in = static_cast<std::int64_t>(dtype_bytes(p.dtype));
  return p.stages * (p.block_m * p.block_k + p.block_k * p.block_n) * in;
}

// Blocks of 12 or more warps are warp-specialised (DESIGN.md: cuBLAS/CUTLASS run 3 warp
// groups, one a TMA producer that keeps ~40 registers): the accumulators live in the
// consumer warps only, and their epilogue goes out through shared memory without a
// register copy.
namespace {
constexpr std::int64_t kProducerWarps = 4;
constexpr std::int64_t kProducerRegisters = 40;
bool warp_specialised(const GemmParams& p) { return p.warps >= 12; }
std::int64_t consumer_warps(const GemmParams& p) { return warp_specialised(p) ? p.warps - kProducerWarps : p.warps; }
}  // namespace

std::int64_t gemm_registers_needed(const GemmParams& p) {
  const std::int64_t accumulators = ceil_div(p.block_m * p.block_n, consumer_warps(p) * 32);
  return accumulators + (warp_specialised(p) ? 0 : accumulators / 2) + kBaseRegisters;
}

std::int64_t gemm_registers_per_thread(const GemmParams& p) {
  const std::int64_t consumer = std::min(kMaxRegisters, gemm_registers_needed(p));
  if (!warp_specialised(p)) return consumer;
  // The block's register file is what occupancy sees: the average over its threads.
  return ceil_div(consumer * consumer_warps(p) + kProducerRegisters * kProducerWarps, p.warps);
}

double gemm_spill_bytes_per_iteration(const GemmParams& p) {
  const std::int64_t spilled = gemm_registers_needed(p) - kMaxRegisters;
  if (spilled <= 0) return 0;
  // Each spilled 4-byte register of every thread is stored and reloaded once per iteration.
  return 2.0 * 4.0 * static_cast<double>(spilled) * static_cast<double>(consumer_warps(p) * 32);
}

plan::TileProgram lift_gemm(const GemmParams& p) {
  using namespace plan;
  const DType out = output_dtype(p.dtype);
  const double in_b = dtype_bytes(p.dtype), out_b = dtype_bytes(out);
  const bool ta = p.layout[0] == 't', tb = p.layout[1] == 't';
  const bool batched = p.batch > 1;
  auto shape = [&](std::int64_t r, std::int64_t c) {
    return batched ? std::vector<std::int64_t>{p.batch, r, c} : std::vector<std::int64_t>{r, c};
  };
  TileProgram prog;
  prog.kernel = "gemm";
  prog.name = "gemm M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K) +
              (batched ? " batch=" + std::to_string(p.batch) : "") + " " + std::string(dtype_name(p.dtype)) +
              " tile " + std::to_string(p.block_m) + "x" + std::to_string(p.block_n) + "x" +
              std::to_string(p.block_k);
  prog.tensors = {{"A", ta ? shape(p.K, p.M) : shape(p.M, p.K), p.dtype},
                  {"B", tb ? shape(p.N, p.K) : shape(p.K, p.N), p.dtype},
                  {"C", shape(p.M, p.N), out}};
  if (batched) prog.grid.dims.push_back({"batch", p.batch});
  prog.grid.dims.push_back({"m", ceil_div(p.M, p.block_m)});
  prog.grid.dims.push_back({"n", ceil_div(p.N, p.block_n)});
  prog.grid.order = p.group_m > 1 ? LaunchOrder{LaunchOrderKind::kGrouped, p.group_m} : LaunchOrder{};
  // A tiles are reused across the N tiles of a row, B tiles across the M tiles of a column (eq. 6).
  prog.accesses = {{"A", ta ? shape(p.block_k, p.block_m) : shape(p.block_m, p.block_k), Placement::kDdr, {"n"}, "k"},
                   {"B", tb ? shape(p.block_n, p.block_k) : shape(p.block_k, p.block_n), Placement::kDdr, {"m"}, "k"},
                   {"C", shape(p.block_m, p.block_n), Placement::kDdr, {}, "", true}};
  for (auto& a : prog.accesses)
    if (batched) a.tile_shape[0] = 1;
  prog.loops = {{"k", ceil_div(p.K, p.block_k), p.stages, ""}};
  const double a_bytes = static_cast<double>(p.block_m * p.block_k) * in_b;
  const double b_bytes = static_cast<double>(p.block_k * p.block_n) * in_b;
  const bool tensor_core = p.dtype != DType::kFP32;  // fp32 GEMMs run on CUDA cores (SIMT)
  prog.actions = {
      {.name = "load_a", .op = OpKind::kLoad, .operands = {"A"}, .bytes = a_bytes,
       .result_level = Placement::kSmem, .loop = "k", .dtype = p.dtype},
      {.name = "load_b", .op = OpKind::kLoad, .operands = {"B"}, .bytes = b_bytes,
       .result_level = Placement::kSmem, .loop = "k", .dtype = p.dtype},
      {.name = "mma", .op = tensor_core ? OpKind::kMmaTc : OpKind::kMmaCuda, .operands = {"A", "B"},
       .flops = 2.0 * static_cast<double>(p.block_m * p.block_n * p.block_k), .bytes = a_bytes + b_bytes,
       .local_bytes = gemm_spill_bytes_per_iteration(p), .deps = {0, 1},
       .result_level = Placement::kRegister, .loop = "k", .dtype = p.dtype},
      {.name = "store_c", .op = OpKind::kStore, .operands = {"C"},
       .bytes = static_cast<double>(p.block_m * p.block_n) * out_b, .deps = {2},
       .result_level = Placement::kDdr, .dtype = out},
  };
  prog.resources = {gemm_smem_bytes(p), gemm_registers_per_thread(p), p.warps};
  return prog;
}

}  // namespace tilesight::kernels
