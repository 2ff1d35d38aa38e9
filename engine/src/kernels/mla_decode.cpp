// lift_mla_decode: FlashMLA's decode kernel as a tile program (mla_decode.h draws the DAG).
#include "tilesight/kernels/mla_decode.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

namespace {

using namespace plan;

constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;
constexpr std::int64_t kSplitTargetTiles = 128;  // as attention_split_count
constexpr std::int64_t kBaseRegisters = 40;      // addresses, loop state, row statistics
constexpr std::int64_t kWarpGroupThreads = 128;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
double d(std::int64_t x) {
  return static_cast<double>(x);
}
std::int64_t kv_blocks(const MlaDecodeParams& p) {
  return ceil_div(p.seq_kv, p.block_n);
}
std::int64_t head_dim(const MlaDecodeParams& p) {
  return p.kv_lora_rank + p.rope_dim;
}

void read_split(FieldReader& f, MlaDecodeParams& p) {
  if (f.has("split_kv") && f.obj.at("split_kv").is_boolean())
    p.split_kv = *f.boolean("split_kv") ? mla_split_count(p) : 1;
  else
    p.split_kv = f.integer("split_kv", 1, 1024, mla_split_count(p)).value_or(1);
  p.split_kv = std::clamp<std::int64_t>(p.split_kv, 1, kv_blocks(p));
}

}  // namespace

Result<MlaDecodeParams> parse_mla_decode_params(const nlohmann::json& params,
                                                const std::string& path) {
  Errors errors;
  if (!params.is_object()) return Error{path, "must be an object, got " + json_type_phrase(params)};
  FieldReader f{params, path, errors};
  f.reject_unknown({"batch", "seq_kv", "heads", "kv_lora_rank", "rope_dim", "block_n", "split_kv", "dtype"});
  MlaDecodeParams p;
  p.batch = f.integer("batch", 1, 65535, 1).value_or(0);
  p.seq_kv = f.integer("seq_kv", 1, kMaxDim).value_or(0);
  p.heads = f.integer("heads", 1, 1024, 128).value_or(0);
  p.kv_lora_rank = f.integer("kv_lora_rank", 64, 1024, 512).value_or(0);
  p.rope_dim = f.integer("rope_dim", 16, 256, 64).value_or(0);
  p.block_n = f.integer("block_n", 16, 256, 64).value_or(0);
  // The latent dim is split between the two warp groups' halves of O in 64-column wgmma
  // tiles; the rope part is one k-slice of the score GEMM.
  if (p.kv_lora_rank % 128 != 0)
    errors.push_back({f.field_path("kv_lora_rank"),
                      "must be a multiple of 128 (two warp groups' halves of 64-column tiles), got " +
                          std::to_string(p.kv_lora_rank)});
  if (p.rope_dim % 16 != 0)
    errors.push_back({f.field_path("rope_dim"), "must be a multiple of 16, got " + std::to_string(p.rope_dim)});
  if (p.block_n % 16 != 0)
    errors.push_back({f.field_path("block_n"), "must be a multiple of 16, got " + std::to_string(p.block_n)});
  if (auto t = f.string("dtype", "bf16")) {
    if (*t == "bf16" || *t == "fp16")
      p.dtype = *dtype_from_name(*t);
    else
      errors.push_back({f.field_path("dtype"), "unknown dtype \"" + *t + "\"; known: bf16, fp16"});
  }
  if (!errors.empty()) return errors;
  read_split(f, p);
  if (!errors.empty()) return errors;
  return p;
}

std::int64_t mla_head_blocks(const MlaDecodeParams& p) {
  return ceil_div(p.heads, kMlaBlockM);
}

std::int64_t mla_split_count(const MlaDecodeParams& p) {
  const std::int64_t tiles = p.batch * mla_head_blocks(p);
  if (tiles >= kSplitTargetTiles) return 1;
  return std::clamp(ceil_div(kSplitTargetTiles, tiles), std::int64_t{1}, kv_blocks(p));
}

// Q (64 x 576), `stages` KV tiles (block_n x 576) and P (64 x block_n) for WG1.
std::int64_t mla_smem_bytes(const MlaDecodeParams& p) {
  const auto b = static_cast<std::int64_t>(dtype_bytes(p.dtype));
  return (kMlaBlockM * head_dim(p) + kMlaStages * p.block_n * head_dim(p) + kMlaBlockM * p.block_n) * b;
}

// WG0 holds its half of the fp32 O (64 x rank/2) and the score tile (64 x block_n) over 128
// threads; WG1 only its half of O. The block allocates WG0's count for every thread.
std::int64_t mla_registers_per_thread(const MlaDecodeParams& p) {
  const std::int64_t o_half = kMlaBlockM * p.kv_lora_rank / 2, scores = kMlaBlockM * p.block_n;
  return std::min<std::int64_t>(255, ceil_div(o_half + scores, kWarpGroupThreads) + kBaseRegisters);
}

namespace {

std::string program_name(const MlaDecodeParams& p) {
  std::string n = "mla_decode b=" + std::to_string(p.batch) + " h=" + std::to_string(p.heads) +
                  " skv=" + std::to_string(p.seq_kv) + " d=" + std::to_string(p.kv_lora_rank) + "+" +
                  std::to_string(p.rope_dim) + " " + std::string(dtype_name(p.dtype)) + " tile " +
                  std::to_string(kMlaBlockM) + "x" + std::to_string(p.block_n);
  if (p.split_kv > 1) n += " split-kv " + std::to_string(p.split_kv);
  return n;
}

// Grid [split,] batch, head_block (fastest, as FlashMLA's grid x): the head blocks of a batch
// element run side by side and share each KV tile through L2.
void lift_grid_and_tensors(const MlaDecodeParams& p, TileProgram& prog) {
  if (p.split_kv > 1) prog.grid.dims.push_back({"split", p.split_kv});
  prog.grid.dims.push_back({"batch", p.batch});
  prog.grid.dims.push_back({"head_block", mla_head_blocks(p)});
  const std::int64_t rows = std::min(p.heads, kMlaBlockM);
  prog.tensors = {{"Q", {p.batch, p.heads, head_dim(p)}, p.dtype},
                  {"KV_latent", {p.batch, p.seq_kv, p.kv_lora_rank}, p.dtype},
                  {"KV_rope", {p.batch, p.seq_kv, p.rope_dim}, p.dtype}};
  prog.accesses = {{"Q", {1, rows, head_dim(p)}, Placement::kDdr, {}, ""},
                   {"KV_latent", {1, p.block_n, p.kv_lora_rank}, Placement::kDdr, {"head_block"}, "kv"},
                   {"KV_rope", {1, p.block_n, p.rope_dim}, Placement::kDdr, {"head_block"}, "kv"}};
  std::vector<std::string> o_reuse;
  if (p.split_kv > 1) {
    prog.tensors.push_back({"O_partial", {p.split_kv, p.batch, p.heads, p.kv_lora_rank}, DType::kFP32});
    prog.accesses.push_back({"O_partial", {1, 1, rows, p.kv_lora_rank}, Placement::kDdr, {}, "", true});
    o_reuse = {"split"};
  }
  prog.tensors.push_back({"O", {p.batch, p.heads, p.kv_lora_rank}, p.dtype});
  prog.accesses.push_back({"O", {1, rows, p.kv_lora_rank}, Placement::kDdr, o_reuse, "", true});
}

// One KV tile (indices 1-11; load_q is 0). Per-execution costs: the score GEMM runs over the
// padded 64 rows with k = rank + rope in two slices (latent, rope); softmax as attention's
// (max 1 flop/score, exp 1 flop + 1 SFU op, sum 1 flop); the O rescale 1 flop per element of
// O and one exp per row; each PV half is 2 x 64 x block_n x rank/2 flops.
void lift_kv_loop(const MlaDecodeParams& p, TileProgram& prog) {
  const double b = dtype_bytes(p.dtype), bm = d(kMlaBlockM), bn = d(p.block_n), rank = d(p.kv_lora_rank),
               rope = d(p.rope_dim), scores = bm * bn;
  auto load = [&](const char* name, const char* tensor, double cols) {
    return TileAction{.name = name, .op = OpKind::kLoad, .operands = {tensor}, .bytes = bn * cols * b,
                      .result_level = Placement::kSmem, .loop = "kv", .dtype = p.dtype};
  };
  auto mma = [&](const char* name, std::vector<std::string> ops, double flops, double bytes,
                 std::vector<std::size_t> deps) {
    return TileAction{.name = name, .op = OpKind::kMmaTc, .operands = std::move(ops), .flops = flops,
                      .bytes = bytes, .deps = std::move(deps), .loop = "kv", .dtype = p.dtype,
                      .mma = MmaInstruction::kWgmma};
  };
  auto cuda = [&](const char* name, OpKind op, double flops, double sfu, std::vector<std::size_t> deps) {
    return TileAction{.name = name, .op = op, .flops = flops, .sfu_ops = sfu, .deps = std::move(deps),
                      .loop = "kv", .dtype = DType::kFP32};
  };
  auto& a = prog.actions;
  a.push_back(load("load_kv_latent", "KV_latent", rank));                                    // 1
  a.push_back(load("load_kv_rope", "KV_rope", rope));                                        // 2
  a.push_back(mma("gemm_qk_latent", {"Q", "KV_latent"}, 2 * scores * rank, (bm + bn) * rank * b, {1}));  // 3
  a.push_back(mma("gemm_qk_rope", {"Q", "KV_rope"}, 2 * scores * rope, (bm + bn) * rope * b, {2, 3}));   // 4
  a.push_back(cuda("rowmax", OpKind::kReduce, scores, 0, {4}));                              // 5
  a.push_back(cuda("exp", OpKind::kExp, scores, scores, {5}));                               // 6
  a.push_back(cuda("rowsum", OpKind::kReduce, scores, 0, {6}));                              // 7
  a.push_back({.name = "share_p", .op = OpKind::kFused, .bytes = scores * b, .deps = {6},
               .result_level = Placement::kSmem, .loop = "kv", .dtype = p.dtype});           // 8
  a.push_back(cuda("rescale_o", OpKind::kRescale, bm * rank, bm, {5}));                      // 9
  // WG0's A operand (P) comes from registers; WG1's from SMEM, after share_p.
  a.push_back(mma("gemm_pv_wg0", {"KV_latent"}, scores * rank, bn * rank / 2 * b, {6, 9, 1}));  // 10
  a.push_back(mma("gemm_pv_wg1", {"KV_latent"}, scores * rank, (bm * bn + bn * rank / 2) * b, {8, 9, 1}));  // 11
}

// After the loop: O (bf16), or the fp32 partial + log-sum-exp per row and the combine kernel,
// which per block reads its partial and writes 1/split of O.
void lift_epilogue(const MlaDecodeParams& p, TileProgram& prog) {
  const double rows = d(std::min(p.heads, kMlaBlockM)), rank = d(p.kv_lora_rank);
  const std::vector<std::size_t> done = {7, 10, 11};
  auto& a = prog.actions;
  if (p.split_kv == 1) {
    a.push_back({.name = "store_o", .op = OpKind::kStore, .operands = {"O"}, .bytes = rows * rank * dtype_bytes(p.dtype),
                 .deps = done, .result_level = Placement::kDdr, .dtype = p.dtype});
    return;
  }
  const double partial = rows * rank * 4.0 + rows * 4.0;
  a.push_back({.name = "store_partial", .op = OpKind::kStore, .operands = {"O_partial"}, .bytes = partial,
               .deps = done, .result_level = Placement::kDdr, .dtype = DType::kFP32});
  a.push_back({.name = "combine_partials", .op = OpKind::kLoad, .operands = {"O_partial"}, .bytes = partial,
               .deps = {12}, .result_level = Placement::kRegister, .dtype = DType::kFP32});
  a.push_back({.name = "store_o", .op = OpKind::kStore, .operands = {"O"},
               .bytes = rows * rank * dtype_bytes(p.dtype) / d(p.split_kv), .deps = {13},
               .result_level = Placement::kDdr, .dtype = p.dtype});
  prog.launches = 2;
}

}  // namespace

plan::TileProgram lift_mla_decode(const MlaDecodeParams& p) {
  TileProgram prog;
  prog.kernel = "mla_decode";
  prog.name = program_name(p);
  lift_grid_and_tensors(p, prog);
  prog.loops = {{"kv", std::max<std::int64_t>(1, ceil_div(kv_blocks(p), p.split_kv)), kMlaStages, ""}};
  prog.actions.push_back({.name = "load_q", .op = OpKind::kLoad, .operands = {"Q"},
                          .bytes = d(std::min(p.heads, kMlaBlockM) * head_dim(p)) * dtype_bytes(p.dtype),
                          .result_level = Placement::kSmem, .dtype = p.dtype});  // 0
  lift_kv_loop(p, prog);
  lift_epilogue(p, prog);
  prog.resources = {mla_smem_bytes(p), mla_registers_per_thread(p), kMlaWarps};
  return prog;
}

}  // namespace tilesight::kernels
