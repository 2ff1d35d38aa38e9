#include "tilesight/kernels/memory_bound.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

namespace {

using namespace plan;

constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;
constexpr std::int64_t kChunk = 1024;  // elements per elementwise tile (128 threads x 8)
constexpr std::int64_t kStridedChunk = 512;  // elementwise_kernel<128, 4>: 128 threads x 4

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
double d(std::int64_t x) {
  return static_cast<double>(x);
}

bool elementwise(const MemoryBoundParams& p) {
  return p.kernel == "silu_mul" || p.kernel == "add" || p.kernel == "copy";
}
bool strided_copy(const MemoryBoundParams& p) {
  return p.kernel == "copy" && p.dims > 1;
}
// Eager SiLU x up on the halves of one tensor of more than one row: non-vectorised kernels.
bool strided_silu_mul(const MemoryBoundParams& p) {
  return p.kernel == "silu_mul" && !p.fused && p.strided && p.rows > 1;
}
// PyTorch's softmax of rows up to 2048 elements and 4 KiB runs softmax_warp_forward: one warp a
// row (two of up to 128 elements), four warps a 128-thread block, the row in registers and
// reduced by shuffles (tests/validation/h200/ncu_softmaxw_facts.csv: grid rows / 4, block 128).
bool softmax_warp(const MemoryBoundParams& p) {
  return p.kernel == "softmax" && p.cols <= 2048 && d(p.cols) * dtype_bytes(p.dtype) <= 4096;
}
// Rows one tile (a block) covers.
std::int64_t tile_rows(const MemoryBoundParams& p) {
  return softmax_warp(p) ? (p.cols <= 128 ? 8 : 4) : 1;
}
// Elements one tile covers along a row.
std::int64_t tile_cols(const MemoryBoundParams& p) {
  return elementwise(p) ? std::min(strided_copy(p) || strided_silu_mul(p) ? kStridedChunk : kChunk, p.cols) : p.cols;
}

// Issue slots of PyTorch's kernels: thread instructions per element plus a fixed count per
// row (the block reductions, the row's setup), from ncu's smsp__inst_executed on the H200
// (tests/validation/h200/ncu_norms_facts.csv: warp instructions x 32 over elements, at two
// row lengths to separate the per-row part). Instruction counts are facts of the compiled
// kernel, as registers are; they hold for any size. One instruction takes one CUDA-core issue
// slot, the slot of one FMA (2 FLOP of the profile's CUDA-core rate).
//   rmsnorm   vectorized_layer_norm_kernel: 11.76 / element + 15 892 / row (4096: 15.64, 8192: 13.70)
//   layernorm the same kernel with mean and bias: 29.51 / element + 37 028 / row (38.55, 34.03)
//   softmax   cunn_SoftMaxForwardReg (rows of up to 8192): 75.24 + 17 367 / row (79.48, 77.36);
//             cunn_SoftMaxForwardSmem (longer rows): 47.09 + the same per row (14336: 48.30);
//             softmax_warp_forward (rows of up to 2048, ncu_softmaxw_facts.csv): 38.0 + 1406 / row
//             (512: 40.75, 1024: 39.38, 2048: 38.69)
//   silu_mul  eager: SiLU 24.12 then the multiply 7.38 (two kernels, 31.50 together)
//   add       7.38 / element
//   copy      strided (elementwise_kernel<128, 4>, direct_copy_kernel_cuda): 54.5 / element
//             with 3 dimensions, 78.5 with 5 (tests/validation/h200x2/ulysses_copies_ncu.csv:
//             Ulysses' permute copies, 18 registers, 77-84% of issue slots busy): 18.5 + 12
//             per dimension (each dimension one integer divmod and a stride multiply-add per
//             operand); contiguous (cudaMemcpyAsync's kernel) none counted: bandwidth-bound
// SFU: softmax one exp2 per element, silu one; the norms one rsqrt per row.
struct OpCosts {
  double reduce, apply, per_row, sfu;  // instructions per element (reduce, apply), per row
};
OpCosts op_costs(const MemoryBoundParams& p) {
  if (p.kernel == "rmsnorm") return {5.88, 5.88, 15892, 0};
  if (p.kernel == "layernorm") return {14.755, 14.755, 37028, 0};
  if (softmax_warp(p)) {
    // The kernel is instantiated for the next power of two of the row (1536 runs 2048's loop,
    // its registers and occupancy, the elements past the row masked off), and issues at its
    // measured share of the cycles: 53.8% at 2048 (6 blocks an SM), 76.5% at 1024 (10), 79.6%
    // at 512 and below (16) (ncu's smsp__issue_active, the mean of 16384 and 65536 rows), so
    // each instruction holds 1 / that share of an issue slot.
    const double issue = p.cols > 1024 ? 0.538 : p.cols > 512 ? 0.765 : 0.796;
    return {19.0 / issue, 19.0 / issue, 1406 / issue, 1};
  }
  if (p.kernel == "softmax") {
    const double per_element = p.cols <= 8192 ? 75.24 : 47.09;
    return {per_element / 2, per_element / 2, 17367, 1};
  }
  // Strided halves (tests/validation/h200/ncu_stridedew_facts.csv, 8-2048 rows of 4096-14336):
  // SiLU 66.0 instructions an element, issued in 75.1% of the cycles where the GPU is full
  // (2048 rows); the multiply's 55.75 (64.4%) go to its own kernel (strided_mul_costs).
  if (strided_silu_mul(p)) return {0, 66.0 / 0.751, 0, 1};
  if (p.kernel == "silu_mul") return {0, 24.12, 0, 1};
  if (p.kernel == "copy") {
    // Issued in 77% of the cycles with 3 dimensions, 84% with 5 (ulysses_copies_ncu.csv's
    // smsp__issue_active): each instruction holds 1 / that share of an issue slot.
    const double issue = p.dims > 3 ? 0.84 : 0.77;
    return {0, strided_copy(p) ? (18.5 + 12.0 * d(p.dims)) / issue : 0.0, 0, 0};
  }
  return {0, 7.38, 0, 0};
}
constexpr double kFlopsPerInstruction = 2.0;  // an issue slot, counted as one FMA

// Registers per thread of PyTorch's kernels (ncu launch__registers_per_thread,
// tests/validation/h200/ncu_norms_facts.csv), where they bind the occupancy: softmax's register
// kernel holds 8 elements per thread past 4096 columns (cunn_SoftMaxForwardReg<..., 8>), 37
// registers, so one 1024-thread block per SM instead of two (30 at 4096 columns; the
// shared-memory kernel of longer rows 32). The norms (27, 32) reach 16 blocks either way. The
// elementwise kernels' 32-40 (12 of 16 blocks for add and the multiply) are left at 32: with
// their measured 34 the three norms sets move by at most 0.08 points (2026-11-30).
std::int64_t registers_per_thread(const MemoryBoundParams& p) {
  // softmax_warp_forward holds its row in registers: 32, 48, 80 at 512, 1024, 2048 columns
  // (ncu_softmaxw_facts.csv; 16, 10, 6 blocks an SM).
  if (softmax_warp(p)) return p.cols <= 512 ? 32 : p.cols <= 1024 ? 48 : 80;  // by the padded row
  if (p.kernel == "softmax") return p.cols <= 4096 ? 30 : p.cols <= 8192 ? 37 : 32;
  if (p.kernel == "rmsnorm") return 27;
  if (p.kernel == "copy") return 18;  // ulysses_copies_ncu.csv
  return 32;
}

// PyTorch's norm kernels walk each row twice (row_walk below); the others read it once.
bool row_walk(const MemoryBoundParams& p) {
  return p.kernel == "rmsnorm" || p.kernel == "layernorm";
}

std::int64_t weight_vectors(const MemoryBoundParams& p) {
  return p.kernel == "layernorm" ? 2 : p.kernel == "rmsnorm" ? 1 : 0;  // w (and b)
}

void lift_tensors(const MemoryBoundParams& p, TileProgram& prog) {
  const std::vector<std::int64_t> shape = {p.rows, p.cols}, tile = {tile_rows(p), tile_cols(p)};
  prog.tensors = {{"X", shape, p.dtype}};
  prog.accesses = {{"X", tile, Placement::kDdr, {}, ""}};
  // The norms' second pass reads the row again once the first has reduced it: half a tile
  // later in the walk's lockstep (each step of the lifted walk is one step of either pass),
  // so the rows in flight touch 1.5 rows of new bytes each in between (X, the re-read X of
  // rows ahead, Out). Whether it still finds the row in L2 is the cache model's answer:
  // ncu_norms_facts.csv reads X once from DRAM at 4096 and 65536 x 4096, 1.74 times at
  // 16384 x 8192 and twice at 2048 x 14336.
  if (row_walk(p)) prog.accesses.push_back({"X", tile, Placement::kDdr, {}, "", false, 0.5});
  if (elementwise(p) && p.kernel != "copy") {
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

// The norm kernels' row walk (PyTorch's vectorized_layer_norm_kernel, 128 threads): each
// thread loads 4 elements at a time and walks its row in a plain loop, first to reduce, then,
// after the block-wide combine, to normalise (X again and the weight chunk). Nothing prefetches
// the next vector, so every step waits a memory latency: norm_rows.csv (rows 1 and 132, cols
// 1024-24576, none in the corpus) climbs 0.75-0.77 us per 512 columns after do_bench's flush
// (a DRAM latency for X, one for the weights) and 0.35 us warm (two L2 latencies).
constexpr std::int64_t kNormThreads = 128, kNormVector = 4;
std::int64_t walk_steps(const MemoryBoundParams& p) {
  return ceil_div(p.cols, kNormThreads * kNormVector);
}

void lift_row_walk(const MemoryBoundParams& p, TileProgram& prog) {
  const std::int64_t steps = walk_steps(p);
  const double n = d(p.cols) / d(steps), b = dtype_bytes(p.dtype);  // elements per step
  const OpCosts c = op_costs(p);
  prog.loops.push_back({.name = "walk", .trip_count = steps, .register_loads = true});
  auto& a = prog.actions;
  a.push_back(load("load_x", "X", n * b, p.dtype));  // 0
  a.back().loop = "walk";
  a.push_back({.name = "reduce", .op = OpKind::kReduce, .flops = kFlopsPerInstruction * c.reduce * n,
               .deps = {0}, .loop = "walk", .dtype = DType::kFP32});  // 1
  // The second pass's loads wait for the first pass (through the block combine): the weight
  // chunk and the re-read of X, from L2 or DRAM as the cache model finds the row.
  a.push_back(load("load_w", "W", d(weight_vectors(p)) * n * b, p.dtype));  // 2
  a.back().deps = {1};
  a.back().loop = "walk";
  a.push_back(load("reload_x", "X", n * b, p.dtype));  // 3
  a.back().deps = {1};
  a.back().revisit = true;
  a.back().loop = "walk";
  a.push_back({.name = "apply", .op = OpKind::kFused, .flops = kFlopsPerInstruction * c.apply * n,
               .deps = {2, 3}, .loop = "walk", .dtype = DType::kFP32});  // 4
  a.push_back({.name = "store_out", .op = OpKind::kStore, .operands = {"Out"}, .bytes = n * b,
               .deps = {4}, .result_level = Placement::kDdr, .loop = "walk", .dtype = p.dtype});  // 5
  // The block-wide combine of the row's partial sums and the one rsqrt, once per row.
  a.push_back({.name = "combine", .op = OpKind::kReduce, .flops = kFlopsPerInstruction * c.per_row,
               .sfu_ops = 1.0, .deps = {1}, .dtype = DType::kFP32});
}

void lift_actions(const MemoryBoundParams& p, TileProgram& prog) {
  const double n = d(tile_rows(p) * tile_cols(p)), b = dtype_bytes(p.dtype);
  const OpCosts c = op_costs(p);
  auto& a = prog.actions;
  a.push_back(load("load_x", "X", n * b, p.dtype));  // 0
  std::vector<std::size_t> apply_deps = {0};
  if (elementwise(p) && p.kernel != "copy") {
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
                 .flops = kFlopsPerInstruction * (c.reduce * n + c.per_row * d(tile_rows(p))),
                 .sfu_ops = p.kernel == "softmax" ? c.sfu * n : 1.0,
                 .deps = {0},
                 .dtype = DType::kFP32});
    apply_deps.push_back(a.size() - 1);
  }
  const bool sfu_in_apply = p.kernel == "silu_mul";
  a.push_back({.name = "apply",
               .op = sfu_in_apply ? OpKind::kExp : OpKind::kFused,
               .flops = kFlopsPerInstruction * c.apply * n,
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
  a.push_back({.name = "silu", .op = OpKind::kExp, .flops = kFlopsPerInstruction * c.apply * n,
               .sfu_ops = c.sfu * n, .deps = {0}, .dtype = DType::kFP32});
  a.push_back({.name = "store_t", .op = OpKind::kStore, .operands = {"T"}, .bytes = n * b, .deps = {1},
               .result_level = Placement::kDdr, .dtype = p.dtype});
  a.push_back(load("load_t", "T", n * b, p.dtype));
  a.back().deps = {2};
  a.push_back(load("load_u", "U", n * b, p.dtype));
  // The multiply: add's vectorised count, or on strided halves 55.75 instructions an element at
  // its 64.4% issue share (ncu_stridedew_facts.csv).
  const double mul = strided_silu_mul(p) ? 55.75 / 0.644 : op_costs({.kernel = "add"}).apply;
  a.push_back({.name = "apply", .op = OpKind::kFused, .flops = kFlopsPerInstruction * mul * n,
               .deps = {3, 4}, .dtype = DType::kFP32});
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
    f.reject_unknown({"rows", "cols", "dtype", "fused", "strided"});
  else
    f.reject_unknown({"rows", "cols", "dtype"});
  MemoryBoundParams p{.kernel = kernel};
  p.fused = f.boolean("fused", true).value_or(true);
  p.strided = f.boolean("strided", false).value_or(false);
  if (p.strided && p.fused)
    errors.push_back({f.field_path("strided"), "strided halves run eager (two kernels): needs \"fused\": false"});
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
  const double streams = elementwise(p) && p.kernel != "copy" ? 3.0 : 2.0;  // inputs + output
  return streams * elems * b + d(weight_vectors(p) * p.cols) * b;
}

plan::TileProgram lift_memory_bound(const MemoryBoundParams& p) {
  TileProgram prog;
  prog.kernel = p.kernel;
  prog.name = p.kernel + " " + std::to_string(p.rows) + "x" + std::to_string(p.cols) + " " +
              std::string(dtype_name(p.dtype));
  prog.grid.dims = {{"row", ceil_div(p.rows, tile_rows(p))}};
  if (elementwise(p)) prog.grid.dims.push_back({"chunk", ceil_div(p.cols, tile_cols(p))});
  lift_tensors(p, prog);
  if (row_walk(p))
    lift_row_walk(p, prog);
  else if (p.fused)
    lift_actions(p, prog);
  else
    lift_unfused_silu_mul(p, prog);
  // PyTorch's launch shapes (attention_README.md): 128 threads for the norms, the elementwise
  // ops and the warp softmax, 1024 for the block softmax; rows are held in registers, no
  // shared-memory staging.
  const std::int64_t warps = p.kernel == "softmax" && !softmax_warp(p) ? 32 : 4;
  prog.resources = {0, registers_per_thread(p), warps};
  return prog;
}

}  // namespace tilesight::kernels
