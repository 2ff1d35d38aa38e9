#include "tilesight/kernels/memory_bound.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

namespace {

using namespace plan;

constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;
constexpr std::int64_t kChunk = 1024;  // elements per elementwise tile (128 threads x 8)

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
double d(std::int64_t x) {
  return static_cast<double>(x);
}

bool elementwise(const MemoryBoundParams& p) {
  return p.kernel == "silu_mul" || p.kernel == "add";
}
// Elements one tile covers.
std::int64_t tile_cols(const MemoryBoundParams& p) {
  return elementwise(p) ? std::min(kChunk, p.cols) : p.cols;
}

// CUDA-core flops per element of the reduction pass and of the apply pass, SFU ops per
// element: rmsnorm sum of squares (2) then x * rstd * w (2); layernorm Welford mean/variance
// (4) then (x - mean) * rstd * w + b (4); softmax max (1) and sum (1) over exp (1 flop +
// 1 SFU op) then one multiply by 1/sum; silu_mul x / (1 + exp(-x)) * u (3 + 1 SFU); add 1.
struct OpCosts {
  double reduce, apply, sfu;
};
OpCosts op_costs(const MemoryBoundParams& p) {
  if (p.kernel == "rmsnorm") return {2, 2, 0};
  if (p.kernel == "layernorm") return {4, 4, 0};
  if (p.kernel == "softmax") return {3, 1, 1};
  if (p.kernel == "silu_mul") return {0, 3, 1};
  return {0, 1, 0};
}

std::int64_t weight_vectors(const MemoryBoundParams& p) {
  return p.kernel == "layernorm" ? 2 : p.kernel == "rmsnorm" ? 1 : 0;  // w (and b)
}

void lift_tensors(const MemoryBoundParams& p, TileProgram& prog) {
  const std::vector<std::int64_t> shape = {p.rows, p.cols}, tile = {1, tile_cols(p)};
  prog.tensors = {{"X", shape, p.dtype}};
  prog.accesses = {{"X", tile, Placement::kDdr, {}, ""}};
  if (elementwise(p)) {
    prog.tensors.push_back({"U", shape, p.dtype});
    prog.accesses.push_back({"U", tile, Placement::kDdr, {}, ""});
  }
  if (const std::int64_t nw = weight_vectors(p); nw > 0) {
    // The weight (and bias) vectors are the same for every row: reused along "row" (eq. 6).
    prog.tensors.push_back({"W", {nw, p.cols}, p.dtype});
    prog.accesses.push_back({"W", {nw, p.cols}, Placement::kDdr, {"row"}, ""});
  }
  if (!p.fused) {
    prog.tensors.push_back({"T", shape, p.dtype});
    prog.accesses.push_back({"T", tile, Placement::kDdr, {}, "", true});
  }
  prog.tensors.push_back({"Out", shape, p.dtype});
  prog.accesses.push_back({"Out", tile, Placement::kDdr, {}, "", true});
}


TileAction load(const char* name, const char* tensor, double bytes, DType t) {
  return {.name = name,
          .op = OpKind::kLoad,
          .operands = {tensor},
          .bytes = bytes,
          .result_level = Placement::kRegister,
          .dtype = t};
}

void lift_actions(const MemoryBoundParams& p, TileProgram& prog) {
  const double n = d(tile_cols(p)), b = dtype_bytes(p.dtype);
  const OpCosts c = op_costs(p);
  auto& a = prog.actions;
  a.push_back(load("load_x", "X", n * b, p.dtype));  // 0
  std::vector<std::size_t> apply_deps = {0};
  if (elementwise(p)) {
    a.push_back(load("load_u", "U", n * b, p.dtype));
    apply_deps.push_back(a.size() - 1);
  }
  if (const std::int64_t nw = weight_vectors(p); nw > 0) {
    a.push_back(load("load_w", "W", d(nw) * n * b, p.dtype));
    apply_deps.push_back(a.size() - 1);
  }
  if (c.reduce > 0) {
    // The row reduction (sum of squares, mean/variance, max and sum): CUDA cores plus the
    // block-wide shuffle/shared-memory combine; norms take one rsqrt per row on the SFU.
    a.push_back({.name = "reduce",
                 .op = OpKind::kReduce,
                 .flops = c.reduce * n,
                 .sfu_ops = p.kernel == "softmax" ? c.sfu * n : 1.0,
                 .deps = {0},
                 .dtype = DType::kFP32});
    apply_deps.push_back(a.size() - 1);
  }
  const bool sfu_in_apply = p.kernel == "silu_mul";
  a.push_back({.name = "apply",
               .op = sfu_in_apply ? OpKind::kExp : OpKind::kFused,
               .flops = c.apply * n,
               .sfu_ops = sfu_in_apply ? c.sfu * n : 0.0,
               .deps = apply_deps,
               .dtype = DType::kFP32});
  a.push_back({.name = "store_out",
               .op = OpKind::kStore,
               .operands = {"Out"},
               .bytes = n * b,
               .deps = {a.size() - 1},
               .result_level = Placement::kDdr,
               .dtype = p.dtype});
}

// Eager SiLU then multiply: the first kernel stores SiLU(gate) to T, the second reads T and up.
void lift_unfused_silu_mul(const MemoryBoundParams& p, TileProgram& prog) {
  const double n = d(tile_cols(p)), b = dtype_bytes(p.dtype);
  const OpCosts c = op_costs(p);
  auto& a = prog.actions;
  a.push_back(load("load_x", "X", n * b, p.dtype));  // 0
  a.push_back({.name = "silu", .op = OpKind::kExp, .flops = (c.apply - 1) * n, .sfu_ops = c.sfu * n,
               .deps = {0}, .dtype = DType::kFP32});
  a.push_back({.name = "store_t", .op = OpKind::kStore, .operands = {"T"}, .bytes = n * b, .deps = {1},
               .result_level = Placement::kDdr, .dtype = p.dtype});
  a.push_back(load("load_t", "T", n * b, p.dtype));
  a.back().deps = {2};
  a.push_back(load("load_u", "U", n * b, p.dtype));
  a.push_back({.name = "apply", .op = OpKind::kFused, .flops = n, .deps = {3, 4}, .dtype = DType::kFP32});
  a.push_back({.name = "store_out", .op = OpKind::kStore, .operands = {"Out"}, .bytes = n * b, .deps = {5},
               .result_level = Placement::kDdr, .dtype = p.dtype});
  prog.launches = 2;
}

}  // namespace

const std::vector<std::string>& memory_bound_names() {
  static const std::vector<std::string> names = {"rmsnorm", "layernorm", "softmax", "silu_mul",
                                                 "add"};
  return names;
}

Result<MemoryBoundParams> parse_memory_bound_params(const std::string& kernel,
                                                    const nlohmann::json& params,
                                                    const std::string& path) {
  Errors errors;
  if (!params.is_object()) return Error{path, "must be an object, got " + json_type_phrase(params)};
  FieldReader f{params, path, errors};
  if (kernel == "silu_mul")
    f.reject_unknown({"rows", "cols", "dtype", "fused"});
  else
    f.reject_unknown({"rows", "cols", "dtype"});
  MemoryBoundParams p{.kernel = kernel};
  p.fused = f.boolean("fused", true).value_or(true);
  p.rows = f.integer("rows", 1, kMaxDim).value_or(0);
  p.cols = f.integer("cols", 1, kMaxDim).value_or(0);
  if (auto s = f.string("dtype", "bf16")) {
    if (auto t = dtype_from_name(*s);
        t && (*t == DType::kBF16 || *t == DType::kFP16 || *t == DType::kFP32))
      p.dtype = *t;
    else
      errors.push_back(
          {f.field_path("dtype"), "unknown dtype \"" + *s + "\"; known: bf16, fp16, fp32"});
  }
  if (!errors.empty()) return errors;
  return p;
}

double memory_bound_bytes(const MemoryBoundParams& p) {
  const double elems = d(p.rows) * d(p.cols), b = dtype_bytes(p.dtype);
  const double streams = elementwise(p) ? 3.0 : 2.0;  // inputs + output
  return streams * elems * b + d(weight_vectors(p) * p.cols) * b;
}

plan::TileProgram lift_memory_bound(const MemoryBoundParams& p) {
  TileProgram prog;
  prog.kernel = p.kernel;
  prog.name = p.kernel + " " + std::to_string(p.rows) + "x" + std::to_string(p.cols) + " " +
              std::string(dtype_name(p.dtype));
  prog.grid.dims = {{"row", p.rows}};
  if (elementwise(p)) prog.grid.dims.push_back({"chunk", ceil_div(p.cols, kChunk)});
  lift_tensors(p, prog);
  if (p.fused)
    lift_actions(p, prog);
  else
    lift_unfused_silu_mul(p, prog);
  // PyTorch's launch shapes (attention_README.md): 128 threads for the norms and the
  // elementwise ops, 1024 for softmax; rows are held in registers, no shared-memory staging.
  const std::int64_t warps = p.kernel == "softmax" ? 32 : 4;
  prog.resources = {0, 32, warps};
  return prog;
}

}  // namespace tilesight::kernels
