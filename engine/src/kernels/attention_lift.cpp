// lift_attention: the FlashAttention forward as a tile program (paper §3.1, Table 2; the
// hand-written resources/examples/custom_attention_h200.json is the same structure).
#include <algorithm>
#include <utility>

#include "tilesight/kernels/attention.h"

namespace tilesight::kernels {

namespace {

using namespace plan;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
double d(std::int64_t x) {
  return static_cast<double>(x);
}

bool folded(const AttentionParams& p) {
  return p.seq_q == 1 && p.heads > p.kv_heads;
}

std::string program_name(const AttentionParams& p) {
  std::string n =
      "attention " + p.variant + " b=" + std::to_string(p.batch) + " h=" + std::to_string(p.heads);
  if (p.kv_heads != p.heads) n += "/" + std::to_string(p.kv_heads);
  n += " sq=" + std::to_string(p.seq_q) + " skv=" + std::to_string(p.seq_kv) +
       " d=" + std::to_string(p.head_dim) + (p.causal ? " causal" : "") + " " +
       std::string(dtype_name(p.dtype)) + " tile " + std::to_string(p.block_m) + "x" +
       std::to_string(p.block_n) + " " + std::string(mma_name(p.mma));
  if (p.split_kv > 1) n += " split-kv " + std::to_string(p.split_kv);
  return n;
}

// Grid (row-major, q_block fastest as FA2's grid x): [split,] batch, kv_head, [group,] q_block.
// The heads of a GQA group are their own dim so K/V reuse across them is visible (eq. 6);
// decode folds the group into the query rows instead.
void lift_grid(const AttentionParams& p, TileProgram& prog) {
  const std::int64_t group = p.heads / p.kv_heads;
  if (p.split_kv > 1) prog.grid.dims.push_back({"split", p.split_kv});
  prog.grid.dims.push_back({"batch", p.batch});
  prog.grid.dims.push_back({"kv_head", p.kv_heads});
  if (group > 1 && !folded(p)) prog.grid.dims.push_back({"group", group});
  const std::int64_t rows = folded(p) ? group : p.seq_q;
  prog.grid.dims.push_back({"q_block", ceil_div(rows, p.block_m)});
}

void lift_tensors(const AttentionParams& p, TileProgram& prog) {
  const bool split = p.split_kv > 1;
  const std::int64_t bm = attention_rows_per_tile(p);
  const std::vector<std::int64_t> q_tile = folded(p)
                                               ? std::vector<std::int64_t>{1, bm, 1, p.head_dim}
                                               : std::vector<std::int64_t>{1, 1, bm, p.head_dim};
  prog.tensors = {{"Q", {p.batch, p.heads, p.seq_q, p.head_dim}, p.dtype},
                  {"K", {p.batch, p.kv_heads, p.seq_kv, p.head_dim}, p.dtype},
                  {"V", {p.batch, p.kv_heads, p.seq_kv, p.head_dim}, p.dtype}};
  std::vector<std::string> kv_reuse = {"q_block"};
  if (p.heads > p.kv_heads && !folded(p)) kv_reuse.push_back("group");
  prog.accesses = {{"Q", q_tile, Placement::kDdr, {}, ""},
                   {"K", {1, 1, p.block_n, p.head_dim}, Placement::kDdr, kv_reuse, "kv"},
                   {"V", {1, 1, p.block_n, p.head_dim}, Placement::kDdr, kv_reuse, "kv"}};
  if (split) {
    // Partial O (fp32) per split; the combine kernel reads them and writes O once.
    prog.tensors.push_back(
        {"O_partial", {p.split_kv, p.batch, p.heads, p.seq_q, p.head_dim}, DType::kFP32});
    auto partial_tile = q_tile;
    partial_tile.insert(partial_tile.begin(), 1);
    prog.accesses.push_back({"O_partial", partial_tile, Placement::kDdr, {}, "", true});
  }
  prog.tensors.push_back({"O", {p.batch, p.heads, p.seq_q, p.head_dim}, p.dtype});
  prog.accesses.push_back({"O", q_tile, Placement::kDdr,
                           split ? std::vector<std::string>{"split"} : std::vector<std::string>{},
                           "", true});
}

// How a wgmma kernel's warp groups share a tile (Triton's Hopper layout): wgmma is m64, so a
// block_m-row tile has block_m / 64 row slices; warp groups beyond them form col_groups. What
// Triton issues for those (ncu_attention_split.py: the loop's PTX and ncu, 64-row tiles on 8
// warps at head_dim 64): every column group computes the whole S of its rows (QK^T once per
// group, at half the key block's width an instruction), runs the softmax on all of it, and
// takes its share of O's columns in PV (P from its own registers): 12 m64n32k16 a group per
// key block at block_n 64 where the 4-warp tile issues 8 m64n64k16, and ncu's tensor pipe busy
// 1.5x as long. Nothing crosses the groups (no more bar.sync than the 4-warp loop's).
struct WgmmaSplit {
  std::int64_t row_slices = 1, col_groups = 1;
};
WgmmaSplit wgmma_split(const AttentionParams& p) {
  const std::int64_t slices = std::max<std::int64_t>(1, ceil_div(p.block_m, 64));
  if (p.variant != "fa2") return {slices, 1};  // fa3: each consumer warp group owns its rows
  const std::int64_t groups = std::max<std::int64_t>(1, p.warps / 4);
  return {slices, std::max<std::int64_t>(1, groups / slices)};
}

// Triton's FlashAttention loop on Hopper issues far more CUDA-core work than the online
// softmax's nominal FLOP. ncu_attention_issue.csv counts its FMA- and ALU-pipe warp
// instructions over twelve tile configs of a problem outside the corpus (head dims 64, 128,
// block_n 32-128, block_m 64, 128, 4 and 8 warps); per 32 scores of an iteration they are
//   4.04 + 1.29 d / block_n + 0.11 * 32 / block_n + 0.80 d / block_m
// (least squares over the ten row-split configs, residuals within 0.15): the per-score work
// (scale-subtract, max, sum, the bf16 pack of P), the O rescale per O element, the row
// statistics per row and the K/V copies' address work per copied element. A warp instruction
// is one issue slot of 32 lanes, 2 FLOP each in the profile's CUDA-core units. A 64-row tile on
// 8 warps computes every score's exp in both column groups: XU 2.13 instructions per score
// against 1.07 row-split, FMA + ALU 10.5 and 12.4 per 32 scores where the formula with its
// per-score term doubled gives 10.2 and 12.3. The three softmax actions hold 3 FLOP per score
// and 1 per O element nominally; the rest goes to exp, whose CUDA-core and SFU work wait on
// each other within a warp (Loop::warp_serial_sfu).
bool triton_softmax(const AttentionParams& p) {
  return p.variant == "fa2" && p.mma == MmaInstruction::kWgmma;
}
double wgmma_softmax_extra_flops(const AttentionParams& p, double exp_copies) {
  if (!triton_softmax(p)) return 0;
  const double bm = d(p.block_m), bn = d(p.block_n), hd = d(p.head_dim), scores = bm * bn;
  const double instructions = (4.04 * exp_copies * scores + 1.29 * bm * hd + 0.11 * 32.0 * bm + 0.80 * bn * hd) / 32.0;
  return 64.0 * instructions - (3.0 * scores + bm * hd);
}

// One key block of the online softmax (FA2 Algorithm 1): S = QK^T on tensor cores, the row
// max (1 flop/score), exp of the shifted scores on the SFU (1 scale-subtract flop + 1 exp per
// score), the running sum (1 flop/score) and the O rescale (1 flop per O element, one exp per
// row), then O += PV. Per-execution costs; bm is the tile's allocated rows: tensor cores
// compute the whole padded tile even where a decode tile has fewer useful rows.
void lift_kv_loop(const AttentionParams& p, TileProgram& prog) {
  const double in_b = dtype_bytes(p.dtype), bm = d(p.block_m), bn = d(p.block_n),
               hd = d(p.head_dim);
  const double scores = bm * bn, k_bytes = bn * hd * in_b, q_bytes = bm * hd * in_b;
  // Every warp runs the chain in order: PV waits for exp and rescale. fa2 without warp
  // specialisation; fa3 as cuDNN's sm90 kernel does it (cudnn_sdpa_sass_d64.csv: each consumer
  // warp group waits on its QK^T at once, runs its softmax, then issues PV and waits on it): the
  // ping-pong is between its two warp groups (Loop::chain_groups), not inside one.
  const std::vector<std::size_t> pv_deps = {5, 6, 2};
  auto mma = [&](const char* name, std::vector<std::string> ops, double bytes, std::vector<std::size_t> deps) {
    return TileAction{.name = name, .op = OpKind::kMmaTc, .operands = std::move(ops), .flops = 2.0 * scores * hd,
                      .bytes = bytes, .deps = std::move(deps), .result_level = Placement::kRegister, .loop = "kv",
                      .dtype = p.dtype, .mma = p.mma};
  };
  auto cuda = [&](const char* name, OpKind op, double flops, double sfu, std::vector<std::size_t> deps) {
    return TileAction{.name = name, .op = op, .flops = flops, .sfu_ops = sfu, .deps = std::move(deps),
                      .loop = "kv", .dtype = DType::kFP32};
  };
  for (const auto& [name, t] : {std::pair{"load_k", "K"}, std::pair{"load_v", "V"}})  // 1, 2
    prog.actions.push_back({.name = name, .op = OpKind::kLoad,
                            .operands = {t}, .bytes = k_bytes, .result_level = Placement::kSmem, .loop = "kv",
                            .dtype = p.dtype});
  // wgmma operand traffic: each 64-row slice's wgmma reads all of its B tile from SMEM, and
  // each column group computes QK^T whole (wgmma_split), reading Q and all of K.
  const WgmmaSplit split = wgmma_split(p);
  const double qk_copies = p.mma == MmaInstruction::kWgmma ? d(split.col_groups) : 1.0;
  const double qk_bytes = p.mma == MmaInstruction::kWgmma ? qk_copies * (q_bytes + k_bytes * d(split.row_slices))
                                                          : q_bytes + k_bytes;
  const double pv_bytes = p.mma == MmaInstruction::kWgmma ? k_bytes * d(split.row_slices) : k_bytes;
  prog.actions.push_back(mma("gemm_qk", {"Q", "K"}, qk_bytes, {0, 1}));  // 3
  prog.actions.back().flops *= qk_copies;
  prog.actions.push_back(cuda("rowmax", OpKind::kReduce, scores, 0, {3}));        // 4
  // Triton's column-split tile computes each exp in both column groups (ncu_attention_issue.csv).
  const double exp_copies = triton_softmax(p) && split.col_groups > 1 ? 2.0 : 1.0;
  prog.actions.push_back(cuda("exp", OpKind::kExp, scores + wgmma_softmax_extra_flops(p, exp_copies),
                              exp_copies * scores, {4}));  // 5
  prog.actions.push_back(cuda("rescale", OpKind::kRescale, scores + bm * hd, bm, {4, 5}));  // 6
  prog.actions.push_back(mma("gemm_pv", {"V"}, pv_bytes, pv_deps));                         // 7
  prog.actions.back().local_bytes = attention_spill_bytes_per_iteration(p);
}

// fa4 (Blackwell, §3.2): S = QK^T lands in TMEM; the softmax warp groups load S from TMEM
// (fp32), write P back over it (bf16) for the PV MMA to read as its A operand, and the
// correction warp group loads and stores the fp32 O accumulator in TMEM to rescale it. Those
// TMEM loads and stores are the tile's TMEM traffic; the MMAs read Q/K/V from SMEM, each of the
// block's two 128-row Q tiles its own tcgen05.mma (K and V are read once per Q tile). As fa3,
// the two Q tiles ping-pong: PV of one waits for S and V, the other's softmax runs meanwhile.
void lift_fa4_loop(const AttentionParams& p, TileProgram& prog) {
  const double in_b = dtype_bytes(p.dtype), bm = d(p.block_m), bn = d(p.block_n), hd = d(p.head_dim);
  const double scores = bm * bn, k_bytes = bn * hd * in_b, q_tiles = std::max(1.0, bm / 128.0);
  for (const auto& [name, t] : {std::pair{"load_k", "K"}, std::pair{"load_v", "V"}})  // 1, 2
    prog.actions.push_back({.name = name, .op = OpKind::kLoad, .operands = {t}, .bytes = k_bytes,
                            .result_level = Placement::kSmem, .loop = "kv", .dtype = p.dtype});
  auto mma = [&](const char* name, std::vector<std::string> ops, double bytes, std::vector<std::size_t> deps) {
    return TileAction{.name = name, .op = OpKind::kMmaTc, .operands = std::move(ops), .flops = 2.0 * scores * hd,
                      .bytes = bytes, .deps = std::move(deps), .loop = "kv", .dtype = p.dtype, .mma = p.mma};
  };
  auto tmem = [&](const char* name, OpKind op, double flops, double sfu, double bytes, std::vector<std::size_t> deps) {
    return TileAction{.name = name, .op = op, .flops = flops, .bytes = bytes, .sfu_ops = sfu, .deps = std::move(deps),
                      .result_level = Placement::kTmem, .loop = "kv", .dtype = DType::kFP32};
  };
  prog.actions.push_back(mma("gemm_qk", {"Q", "K"}, bm * hd * in_b + q_tiles * k_bytes, {1}));  // 3
  prog.actions.push_back(tmem("rowmax", OpKind::kReduce, scores, 0, scores * 4.0, {3}));  // 4: load S
  prog.actions.push_back(tmem("exp", OpKind::kExp, scores, scores, scores * in_b, {4}));  // 5: store P
  prog.actions.push_back(tmem("rescale", OpKind::kRescale, bm * hd, bm, 2.0 * bm * hd * 4.0, {4}));  // 6: O ld+st
  prog.actions.push_back(mma("gemm_pv", {"V"}, q_tiles * k_bytes, {3, 2}));  // 7
}

// After the loop: O (or the fp32 partial plus its row log-sum-exp) goes out; split-KV adds the
// combine kernel, which per split tile reads its partial and writes 1/split of O.
void lift_epilogue(const AttentionParams& p, TileProgram& prog) {
  const double bm = d(attention_rows_per_tile(p)), hd = d(p.head_dim), out_b = dtype_bytes(p.dtype);
  if (p.split_kv == 1) {
    prog.actions.push_back({.name = "store_o",
                            .op = OpKind::kStore,
                            .operands = {"O"},
                            .bytes = bm * hd * out_b,
                            .deps = {7},
                            .result_level = Placement::kDdr,
                            .dtype = p.dtype});
    return;
  }
  const double partial = bm * hd * 4.0 + bm * 4.0;
  prog.actions.push_back({.name = "store_partial",
                          .op = OpKind::kStore,
                          .operands = {"O_partial"},
                          .bytes = partial,
                          .deps = {7},
                          .result_level = Placement::kDdr,
                          .dtype = DType::kFP32});
  // The combine kernel reads the splits' partials one split after another, each load waiting for
  // the one before (FA2's flash_fwd_splitkv_combine_kernel loops over the splits), from L2 where
  // the split tiles just wrote them: an L2 round trip a split. Measured (llm_decode_kernels.csv,
  // attention_sdpa.csv): 4.3 us at 7-8 splits, 9.1-9.4 us at 29-32, 0.20 us a split, where the
  // H200's L2 latency is 0.21 us.
  prog.actions.push_back({.name = "combine_partials",
                          .op = OpKind::kLoad,
                          .operands = {"O_partial"},
                          .bytes = partial,
                          .chained_l2_loads = static_cast<double>(p.split_kv - 1),
                          .deps = {8},
                          .result_level = Placement::kRegister,
                          .dtype = DType::kFP32});
  prog.actions.push_back({.name = "store_o",
                          .op = OpKind::kStore,
                          .operands = {"O"},
                          .bytes = bm * hd * out_b / d(p.split_kv),
                          .deps = {9},
                          .result_level = Placement::kDdr,
                          .dtype = p.dtype});
  prog.launches = 2;
}

}  // namespace

plan::TileProgram lift_attention(const AttentionParams& p) {
  TileProgram prog;
  prog.kernel = "attention";
  prog.name = program_name(p);
  lift_grid(p, prog);
  lift_tensors(p, prog);
  const std::int64_t blocks = attention_kv_blocks(p);
  prog.loops = {{"kv", std::max<std::int64_t>(1, ceil_div(blocks, p.split_kv)), p.stages, ""}};
  // fa2 structure (FlashAttention-2, Triton's tutorial kernel: no warp specialisation): QK^T,
  // softmax and PV run in order in every warp, and the SM's resident blocks do not hide one's
  // softmax under another's GEMMs (FA3 §3.1: FA2's softmax and GEMMs are sequential). On the
  // H200 corpora the serial sum matches FA2 at d 64 and d 128 within a few percent where the
  // overlapped chain is 1.4-1.6x fast (docs/attention-model.md).
  prog.loops[0].overlap_resident = p.variant != "fa2";
  prog.loops[0].producer_warps = p.variant != "fa2";
  // fa3 (cuDNN sm90): each consumer warp group of 64 rows runs the chain on its rows, the two
  // chains interleaved, and named barriers let one group's softmax run at a time (one warp per
  // scheduler): cudnn_sdpa_sass_d64.csv, BAR.SYNC 0x4/0x5 around the ex2 section.
  if (p.variant == "fa3")
    prog.loops[0].chain_groups =
        std::max<std::int64_t>(1, std::min<std::int64_t>(p.block_m / 64, (p.warps - 4) / 4));
  prog.loops[0].warp_serial_sfu = triton_softmax(p) || prog.loops[0].chain_groups > 1;
  // Triton's loop issues the next key block's K and V copies after its chain (the PV left
  // running) and waits for them at the top of the next iteration (ncu_attention_split_ptx.csv:
  // cp.async.wait_group 0 at 2 stages, 2 at 3).
  prog.loops[0].copies_after_chain = triton_softmax(p);
  // FA2's library kernels (mma.sync) wait for K and V one GEMM phase after issuing each.
  prog.loops[0].loads_wait_apart = attention_fa2_library(p);
  // Causal tiles differ in length: the block scheduler's makespan sees each one (waves).
  if (const auto trips = attention_kv_blocks_per_q_block(p);
      p.split_kv == 1 && trips.size() > 1 && trips.front() != trips.back()) {
    prog.loops[0].trips_dim = "q_block";
    prog.loops[0].trips = trips;
  }
  const double q_bytes = d(attention_rows_per_tile(p) * p.head_dim) * dtype_bytes(p.dtype);
  prog.actions.push_back({.name = "load_q",
                          .op = OpKind::kLoad,
                          .operands = {"Q"},
                          .bytes = q_bytes,
                          .result_level = Placement::kSmem,
                          .dtype = p.dtype});  // 0
  if (p.variant == "fa4")
    lift_fa4_loop(p, prog);
  else
    lift_kv_loop(p, prog);
  lift_epilogue(p, prog);
  // fa3 (FA3, cuDNN's sm90 kernel): persistent, one block per SM walking tiles with the
  // TMA pipeline kept full across them (attention_README.md: grid 132 x 384 threads). Its
  // scheduler walks the query blocks of a head first, then heads, then batches (FA3's
  // StaticPersistentTileScheduler splits the tile index m-block first): the grid's last dim
  // fastest, raster n, so the CTAs in flight share their head's K/V.
  // fa3's blocks take their next tile from a global counter (cuDNN: one ATOMG.ADD per tile in
  // cudnn_sdpa_sass_d64.csv): the causal grid's unequal tiles go to whichever block frees first.
  // Its consumers release Q's buffer only after a tile's loop, so each tile waits for its Q
  // load (head_per_tile); the code outside the loop holds 2.3% of the consumers' samples at 32
  // key blocks a tile (0.9 us a tile at d 64, 1.2 at d 128).
  prog.schedule = {.persistent = p.variant == "fa3" || p.variant == "fa4",
                   .dynamic = p.variant == "fa3",
                   .head_per_tile = p.variant == "fa3",
                   .raster = plan::Raster::kN};
  prog.resources = {attention_smem_bytes(p), attention_registers_per_thread(p), p.warps};
  return prog;
}

}  // namespace tilesight::kernels
