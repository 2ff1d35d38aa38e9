#include "tilesight/kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

namespace {

constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;
constexpr std::int64_t kMaxHeadDim = 256;
constexpr std::int64_t kBaseRegisters = 40;  // addresses, loop state, softmax row stats
constexpr std::int64_t kMaxRegisters = 255;
constexpr std::int64_t kProducerWarps = 4;  // fa3's TMA producer warp group
constexpr std::int64_t kProducerRegisters = 40;
// split_kv: true aims at this many tiles: about the SM count of the profiled GPUs (the
// template does not know the GPU, DESIGN.md), as FA2's num_splits heuristic does.
constexpr std::int64_t kSplitTargetTiles = 128;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

bool gqa_folded(const AttentionParams& p) {
  return p.seq_q == 1 && p.heads > p.kv_heads;
}
std::int64_t group_size(const AttentionParams& p) {
  return p.heads / p.kv_heads;
}
// Query rows of one (batch, grid head): decode folds a GQA group's heads into the rows.
std::int64_t query_rows(const AttentionParams& p) {
  return gqa_folded(p) ? group_size(p) : p.seq_q;
}
std::int64_t q_blocks(const AttentionParams& p) {
  return ceil_div(query_rows(p), p.block_m);
}
std::int64_t grid_heads(const AttentionParams& p) {
  return gqa_folded(p) ? p.kv_heads : p.heads;
}

// A flag read as a JSON boolean or 0/1 (corpora write causal as 0/1).
std::optional<bool> read_flag(FieldReader& f, const char* key, bool fallback) {
  if (!f.has(key)) return fallback;
  const auto& v = f.obj.at(key);
  if (v.is_number_integer()) {
    const auto x = f.integer(key, 0, 1);
    if (!x) return std::nullopt;
    return *x != 0;
  }
  return f.boolean(key, fallback);
}

// fa4 (FlashAttention-4, Blackwell): a block owns two 128-row Q tiles (256 rows) that two
// softmax warp groups work on in ping-pong, a correction warp group rescales O in TMEM, one warp
// issues tcgen05.mma and one loads K/V by TMA (16 warps); 128-key tiles, K/V double-buffered.
// The S and O accumulators of both Q tiles fill the 256 KiB of TMEM at head dim 128, so larger
// heads cannot run.
void read_fa4_config(FieldReader& f, AttentionParams& p, Errors& errors) {
  if (auto m = f.string("mma", "tcgen05")) {
    if (*m == "tcgen05")
      p.mma = MmaInstruction::kTcgen05;
    else
      errors.push_back({f.field_path("mma"), "fa4 runs tcgen05 only, got \"" + *m + "\""});
  }
  if (p.head_dim > 128 || p.head_dim % 32 != 0)
    errors.push_back({f.field_path("head_dim"), "fa4 runs head dims 32, 64, 96 and 128 (S and O of two 128-row "
                                                "tiles in 256 KiB of TMEM), got " + std::to_string(p.head_dim)});
  p.block_m = f.integer("block_m", 128, 256, 256).value_or(0);
  p.block_n = f.integer("block_n", 64, 256, 128).value_or(0);
  p.warps = f.integer("warps", 8, 32, 16).value_or(0);
  p.stages = f.integer("stages", 1, 8, 2).value_or(0);
}

void read_kernel_config(FieldReader& f, AttentionParams& p, Errors& errors) {
  if (auto v = f.string("variant", "fa2")) {
    if (*v == "fa2" || *v == "fa3" || *v == "fa4")
      p.variant = *v;
    else
      errors.push_back(
          {f.field_path("variant"), "unknown variant \"" + *v + "\"; known: fa2, fa3, fa4"});
  }
  if (p.variant == "fa4") return read_fa4_config(f, p, errors);
  const bool fa3 = p.variant == "fa3";
  if (auto m = f.string("mma", fa3 ? "wgmma" : "mma_sync")) {
    if (auto t = mma_from_name(*m); t && *t != MmaInstruction::kTcgen05)
      p.mma = *t;
    else
      errors.push_back({f.field_path("mma"), "unknown mma \"" + *m + "\" for " + p.variant + "; known: mma_sync, wgmma"});
  }
  // FA2 library traits (attention_README.md): d <= 64 -> 128x128, d 128 -> 128x64, 4 warps;
  // larger heads 64x64. fa3: 128x128 (64x64 past d 128), 3 warp groups.
  const bool small = p.head_dim <= 64, large = p.head_dim > 128;
  p.block_m = f.integer("block_m", 16, 512, large ? 64 : 128).value_or(0);
  p.block_n = f.integer("block_n", 16, 512, large ? 64 : (fa3 || small ? 128 : 64)).value_or(0);
  p.warps = f.integer("warps", 1, 32, fa3 ? 12 : 4).value_or(0);
  // FA2's library kernel single-buffers K and V in SMEM but issues each load one GEMM phase
  // ahead (the next K during this tile's softmax and PV, V during QK^T): its loads overlap
  // compute as a 2-stage pipeline's do. Its occupancy is register-bound either way.
  p.stages = f.integer("stages", 1, 8, 2).value_or(0);
  // The tensor-core tiles are 16 rows and 16 keys deep (mma.sync m16n8k16; wgmma's k16), so a
  // block is a whole number of them.
  for (const char* key : {"block_m", "block_n"}) {
    const std::int64_t b = std::string(key) == "block_m" ? p.block_m : p.block_n;
    if (b > 0 && b % 16 != 0)
      errors.push_back({f.field_path(key), "must be a multiple of 16 (the tensor-core tile), got " + std::to_string(b)});
  }
  // FlashAttention-3's forward kernels are instantiated for these head dims only (its README).
  if (fa3 && p.head_dim != 64 && p.head_dim != 96 && p.head_dim != 128 && p.head_dim != 192 && p.head_dim != 256)
    errors.push_back({f.field_path("head_dim"),
                      "fa3 runs head dims 64, 96, 128, 192 and 256, got " + std::to_string(p.head_dim)});
  if (fa3 && p.warps <= kProducerWarps)
    errors.push_back({f.field_path("warps"),
                      "fa3 needs a producer warp group plus consumers: more than 4 warps"});
}

// FlashAttention-2's split-KV kernel (flash_fwd_launch_template.h) runs 64-row tiles of 4 warps
// with 256 keys a block at head dims up to 64, 128 up to 128 and 64 beyond (attention_README.md:
// `flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>>`, `<64, 64, 256, 4>`).
constexpr std::int64_t kFa2SplitBlockM = 64;
std::int64_t fa2_split_block_n(std::int64_t head_dim) { return head_dim <= 64 ? 256 : head_dim <= 128 ? 128 : 64; }

// FA2's num_splits_heuristic (flash_api.cpp), as the library runs it: one split when the
// (batch, head, 64-row block) tiles nearly fill twice the SMs; otherwise the fewest splits whose
// wave efficiency (tiles / slots over whole waves) reaches 85% of the best, among the counts
// that change the key blocks per split. Measured grids (attention_README.md,
// llm_decode_kernels.csv): 32 heads at batch 1 split 7 ways at every KV length; 8 GQA heads
// 8 ways at 1024 keys, 32 at 8192, 29 at 32768; batch 8 of 8 heads 4 ways; batch 32 not at all.
constexpr std::int64_t kFa2SplitSlots = 2 * 132;  // twice the SMs of the H100/H200 it is tuned on
std::int64_t fa2_split_count(const AttentionParams& p) {
  const std::int64_t tiles = p.batch * grid_heads(p) * ceil_div(query_rows(p), kFa2SplitBlockM);
  const std::int64_t blocks = ceil_div(p.seq_kv, fa2_split_block_n(p.head_dim));
  if (static_cast<double>(tiles) >= 0.8 * static_cast<double>(kFa2SplitSlots)) return 1;
  const std::int64_t most = std::min<std::int64_t>({128, kFa2SplitSlots, blocks});
  auto eligible = [&](std::int64_t s) { return s == 1 || ceil_div(blocks, s) != ceil_div(blocks, s - 1); };
  auto efficiency = [&](std::int64_t s) {
    const double waves = static_cast<double>(tiles * s) / static_cast<double>(kFa2SplitSlots);
    return waves / std::ceil(waves);
  };
  double best = 0;
  for (std::int64_t s = 1; s <= most; ++s)
    if (eligible(s)) best = std::max(best, efficiency(s));
  for (std::int64_t s = 1; s <= most; ++s)
    if (eligible(s) && efficiency(s) >= 0.85 * best) return s;
  return 1;
}

void read_split(FieldReader& f, AttentionParams& p) {
  const bool fa2_library = attention_fa2_library(p);
  if (f.has("split_kv") && f.obj.at("split_kv").is_boolean())
    p.split_kv = !*f.boolean("split_kv") ? 1 : fa2_library ? fa2_split_count(p) : attention_split_count(p);
  else
    p.split_kv = f.integer("split_kv", 1, 1024, 1).value_or(1);
  // The library's split kernel has tiles of its own, unless the plan names them.
  if (fa2_library && p.split_kv > 1) {
    if (!f.has("block_m")) p.block_m = kFa2SplitBlockM;
    if (!f.has("block_n")) p.block_n = fa2_split_block_n(p.head_dim);
  }
  p.split_kv = std::min(p.split_kv, ceil_div(p.seq_kv, p.block_n));
}

void check_shape(FieldReader& f, const AttentionParams& p, Errors& errors) {
  if (p.heads > 0 && p.kv_heads > 0 && p.heads % p.kv_heads != 0)
    errors.push_back({f.field_path("heads"), std::to_string(p.heads) +
                                                 " heads are not a multiple of kv_heads " +
                                                 std::to_string(p.kv_heads)});
  if (p.head_dim > kMaxHeadDim || p.head_dim % 8 != 0)
    errors.push_back(
        {f.field_path("head_dim"), "unsupported head_dim " + std::to_string(p.head_dim) +
                                       "; FlashAttention kernels take a multiple of 8 up to 256"});
}

}  // namespace

Result<AttentionParams> parse_attention_params(const nlohmann::json& params,
                                               const std::string& path) {
  Errors errors;
  if (!params.is_object()) return Error{path, "must be an object, got " + json_type_phrase(params)};
  FieldReader f{params, path, errors};
  f.reject_unknown({"batch", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim", "causal", "dtype",
                    "variant", "mma", "block_m", "block_n", "warps", "stages", "split_kv", "registers", "spills"});
  AttentionParams p;
  p.batch = f.integer("batch", 1, 65535, 1).value_or(0);
  p.heads = f.integer("heads", 1, 65535).value_or(0);
  p.kv_heads = f.integer("kv_heads", 1, 65535, p.heads > 0 ? p.heads : 1).value_or(0);
  p.seq_q = f.integer("seq_q", 1, kMaxDim).value_or(0);
  p.seq_kv = f.integer("seq_kv", 1, kMaxDim).value_or(0);
  p.head_dim = f.integer("head_dim", 8, 1 << 20).value_or(0);
  p.causal = read_flag(f, "causal", false).value_or(false);
  p.registers = f.integer("registers", 1, 255, 0).value_or(0);
  p.spills = f.integer("spills", 0, 1 << 20, 0).value_or(0);
  if (auto d = f.string("dtype", "bf16")) {
    if (*d == "bf16" || *d == "fp16")
      p.dtype = *dtype_from_name(*d);
    else
      errors.push_back({f.field_path("dtype"), "unknown dtype \"" + *d + "\"; known: bf16, fp16"});
  }
  check_shape(f, p, errors);
  read_kernel_config(f, p, errors);
  if (!errors.empty()) return errors;
  read_split(f, p);
  if (!errors.empty()) return errors;
  return p;
}

std::int64_t attention_rows_per_tile(const AttentionParams& p) {
  return std::min(p.block_m, query_rows(p));
}

// Causal: query block i sees keys up to the end of its rows, aligned bottom-right (FA2 >= 2.1:
// offset seq_kv - seq_q), rounded up to whole key blocks (the masked diagonal band). The grid's
// tiles differ (block i walks ~i+1 blocks): the loop's trip count is their average (the total
// work), and the per-block counts go with it (Loop::trips) so that the wave model sees the
// longest tiles finish last (small causal grids end with the last query block,
// attention_README.md).
std::int64_t attention_kv_blocks(const AttentionParams& p) {
  const auto per_block = attention_kv_blocks_per_q_block(p);
  double sum = 0;
  for (auto n : per_block) sum += static_cast<double>(n);
  return std::max<std::int64_t>(1, std::llround(sum / static_cast<double>(per_block.size())));
}

// A query block with no key to see (offset < 0) still runs one block to write its zeros.
std::vector<std::int64_t> attention_kv_blocks_per_q_block(const AttentionParams& p) {
  const std::int64_t all = ceil_div(p.seq_kv, p.block_n), nq = q_blocks(p);
  if (!p.causal || gqa_folded(p)) return std::vector<std::int64_t>(static_cast<std::size_t>(nq), all);
  const std::int64_t offset = p.seq_kv - p.seq_q;
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < nq; ++i) {
    const std::int64_t last = std::clamp(offset + (i + 1) * p.block_m, std::int64_t{0}, p.seq_kv);
    out.push_back(std::max<std::int64_t>(1, ceil_div(last, p.block_n)));
  }
  return out;
}

bool attention_fa2_library(const AttentionParams& p) {
  return p.variant == "fa2" && p.mma == MmaInstruction::kMmaSync;
}

std::int64_t attention_split_count(const AttentionParams& p) {
  const std::int64_t tiles = p.batch * grid_heads(p) * q_blocks(p);
  if (tiles >= kSplitTargetTiles) return 1;
  return std::clamp(ceil_div(kSplitTargetTiles, tiles), std::int64_t{1},
                    std::min<std::int64_t>(ceil_div(p.seq_kv, p.block_n), 128));
}

// Q + stages x (K, V). FA2's library kernels (mma.sync) hold one K and one V tile (Kernel_traits:
// kSmemKVSize = 2 x kBlockN x kHeadDim) whatever the pipeline depth they emulate: the split-KV
// kernel's 64 x 128 tile at head dim 128 takes 80 KiB, two CTAs an SM.
std::int64_t attention_smem_bytes(const AttentionParams& p) {
  const auto in = static_cast<std::int64_t>(dtype_bytes(p.dtype));
  const std::int64_t buffers = attention_fa2_library(p) ? 1 : p.stages;
  return (p.block_m * p.head_dim + buffers * 2 * p.block_n * p.head_dim) * in;
}

namespace {
std::int64_t consumer_warps(const AttentionParams& p) {
  return p.variant == "fa3" ? p.warps - kProducerWarps : p.warps;
}
// fa4 splits the register file by warp group (setmaxnreg, as FlashAttention-4 does): each
// softmax thread owns one TMEM lane, i.e. one row of S (block_n fp32) plus P's packing, row
// statistics and addresses (64); the correction warp group 80, the MMA/TMA/epilogue warps 48.
// O stays in TMEM. The block's average is what occupancy sees: 128 at block_n 128, 16 warps.
std::int64_t fa4_registers(const AttentionParams& p) {
  const std::int64_t groups = std::max<std::int64_t>(3, p.warps / 4), softmax = p.block_n + 64;
  return ceil_div(2 * softmax + 80 + 48 * (groups - 3), groups);
}
}  // namespace

// Per consumer thread: the fp32 O accumulator (block_m x d) and the score tile S/P
// (block_m x block_n) spread over the consumer warps, plus a fixed working set.
std::int64_t attention_registers_needed(const AttentionParams& p) {
  if (p.variant == "fa4") return fa4_registers(p);
  return ceil_div(p.block_m * (p.head_dim + p.block_n), consumer_warps(p) * 32) + kBaseRegisters;
}

std::int64_t attention_registers_per_thread(const AttentionParams& p) {
  if (p.registers > 0) return p.registers;
  const std::int64_t consumer = std::min(kMaxRegisters, attention_registers_needed(p));
  if (p.variant != "fa3") return consumer;  // fa4: every warp group allocates the softmax's count
  return ceil_div(consumer * consumer_warps(p) + kProducerRegisters * kProducerWarps, p.warps);
}

// As the gemm template's spill term: each spilled 4-byte register of every consumer thread is
// stored and reloaded once per key block.
double attention_spill_bytes_per_iteration(const AttentionParams& p) {
  const std::int64_t spilled = p.spills > 0 ? p.spills : attention_registers_needed(p) - kMaxRegisters;
  if (spilled <= 0) return 0;
  return 2.0 * 4.0 * static_cast<double>(spilled) * static_cast<double>(consumer_warps(p) * 32);
}

}  // namespace tilesight::kernels
