#include "tilesight/kernels/gemm.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"
#include "gemm_registers.h"

namespace tilesight::kernels {

namespace {

constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;  // CUDA grid and index limits

DType output_dtype(DType in) {
  switch (in) {
    case DType::kFP8: return DType::kBF16;  // e4m3 in, bf16 out (DESIGN.md)
    case DType::kTF32: return DType::kFP32;
    default: return in;
  }
}

// Reads the Hopper persistent/cluster/split-K options (DESIGN.md's gemm parameters).
void read_schedule(FieldReader& f, GemmParams& p, Errors& errors) {
  p.persistent = f.boolean("persistent", false).value_or(false);
  p.cluster_m = f.integer("cluster_m", 1, 16, 1).value_or(1);
  p.cluster_n = f.integer("cluster_n", 1, 16, 1).value_or(1);
  p.split_k = f.integer("split_k", 1, 1024, 1).value_or(1);
  p.swizzle = f.integer("swizzle", 0, kMaxDim, 0).value_or(0);
  if (auto r = f.string("raster", "m")) {
    if (*r == "m" || *r == "n") p.raster = *r;
    else errors.push_back({f.field_path("raster"), "unknown raster \"" + *r + "\"; known: m, n"});
  }
  if (auto s = f.string("schedule", "cooperative")) {
    if (*s == "cooperative" || *s == "pingpong") p.schedule = *s;
    else errors.push_back({f.field_path("schedule"), "unknown schedule \"" + *s + "\"; known: cooperative, pingpong"});
  }
  if (p.cluster_m * p.cluster_n > 16)
    errors.push_back({f.field_path("cluster_m"), "a cluster of " + std::to_string(p.cluster_m * p.cluster_n) +
                                                     " blocks exceeds the 16 a Hopper GPU allows"});
}

}  // namespace

Result<GemmParams> parse_gemm_params(const nlohmann::json& params, const std::string& path) {
  Errors errors;
  if (!params.is_object()) return Error{path, "must be an object, got " + json_type_phrase(params)};
  FieldReader f{params, path, errors};
  f.reject_unknown({"M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps",
                    "dtype", "layout", "batch", "persistent", "cluster_m", "cluster_n", "raster",
                    "schedule", "split_k", "swizzle", "registers", "spills", "lda", "ldb"});
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
  p.registers = f.integer("registers", 1, 255, 0).value_or(0);
  p.spills = f.integer("spills", 0, 1 << 20, 0).value_or(0);
  p.lda = f.integer("lda", 1, kMaxDim, 0).value_or(0);
  p.ldb = f.integer("ldb", 1, kMaxDim, 0).value_or(0);
  if (auto d = f.string("dtype", "bf16")) {
    if (auto t = dtype_from_name(*d)) p.dtype = *t;
    else errors.push_back({f.field_path("dtype"), "unknown dtype \"" + *d + "\"; known: bf16, fp16, fp8, tf32, fp32"});
  }
  if (auto l = f.string("layout", "nn")) {
    if (*l == "nn" || *l == "nt" || *l == "tn" || *l == "tt") p.layout = *l;
    else errors.push_back({f.field_path("layout"), "unknown layout \"" + *l + "\"; known: nn, nt, tn, tt"});
  }
  read_schedule(f, p, errors);
  if (errors.empty()) {
    // A row stride shorter than a row would overlap the rows.
    const bool ta = p.layout[0] == 't', tb = p.layout[1] == 't';
    if (p.lda > 0 && p.lda < (ta ? p.M : p.K))
      errors.push_back({f.field_path("lda"), "must be at least " + std::string(ta ? "M" : "K") + " (" +
                                                 std::to_string(ta ? p.M : p.K) + ") for layout \"" + p.layout +
                                                 "\", got " + std::to_string(p.lda)});
    if (p.ldb > 0 && p.ldb < (tb ? p.K : p.N))
      errors.push_back({f.field_path("ldb"), "must be at least " + std::string(tb ? "K" : "N") + " (" +
                                                 std::to_string(tb ? p.K : p.N) + ") for layout \"" + p.layout +
                                                 "\", got " + std::to_string(p.ldb)});
  }
  if (errors.empty()) {
    const double blocks = static_cast<double>(ceil_div(p.M, p.block_m)) *
                          static_cast<double>(ceil_div(p.N, p.block_n)) * static_cast<double>(p.batch) *
                          static_cast<double>(p.split_k);
    if (blocks > static_cast<double>(kMaxDim))
      errors.push_back({path, "the grid would have " + std::to_string(static_cast<long long>(blocks)) +
                                  " blocks; CUDA allows at most 2147483647"});
  }
  if (!errors.empty()) return errors;
  return p;
}

// An operand whose rows cannot be proved 16-byte aligned cannot be copied with 16-byte vectors
// (cp.async, TMA), and is loaded element by element through registers into one shared-memory
// buffer; the pipeline's stages then prefetch only the other operand. What "proved" means
// depends on the compiler:
// - Warp-specialised TMA kernels (cuBLAS, CUTLASS: 12 warps or persistent) need 16-byte
//   aligned strides, which the library checks at run time.
// - Triton specialises integer arguments divisible by 16 and otherwise assumes nothing, so a
//   leading dimension that is not a multiple of 16 elements is loaded element-wise (the
//   recorded shared memory of the corpus's 3000x5000x2048 kernels is stages x A + 1 x B).
namespace {
bool rows_via_registers(const GemmParams& p, std::int64_t leading_dim) {
  if (warp_specialised(p) || p.persistent)
    return (leading_dim * static_cast<std::int64_t>(dtype_bytes(p.dtype) * 8)) % 128 != 0;
  return leading_dim % 16 != 0;
}
}  // namespace

// Sectors one warp's element-wise load touches. Triton spreads a warp's 32 lanes along the
// operand's contiguous dimension when it can prove that dimension's indices contiguous: 64
// nearly consecutive bytes, 2.45 sectors on average (ncu on 2500x7000x3000, A:
// tests/validation/h200/ncu_gemm_facts.csv). The tutorial kernel wraps the M and N indices
// modulo M and N, so an operand contiguous along M or N whose extent is not a multiple of 16
// loses that proof and its lanes spread over 32 rows: 32 sectors (3000x5000x2048, B; the
// compiled layout puts the 32 lanes of a warp along K). K indices are never wrapped.
namespace {
bool gemm_lanes_contiguous(bool contiguous_along_k, std::int64_t contiguous_extent) {
  return contiguous_along_k || contiguous_extent % 16 == 0;
}
double gemm_lane_sectors(bool contiguous) { return contiguous ? 2.45 : 32.0; }
// Cache lines those sectors lie in: 64 nearly consecutive bytes cross into a second 128-byte
// line about half the time (1.5); 32 rows are 32 lines.
double gemm_lane_lines(bool contiguous) { return contiguous ? 1.5 : 32.0; }

// Sectors of a staged tile whose lanes spread over its rows (hw_profiles/calibrate/
// staged_l1.py): each row's run of cols elements, plus the sector a run crosses into when it
// does not start on a 32-byte boundary, which a row stride of s bytes leaves 1 - gcd(s, 32) /
// 32 of the rows (every other row for the corpus's strides of 16 mod 32).
double gemm_tile_sectors(std::int64_t rows, std::int64_t cols, std::int64_t leading_dim, double elem) {
  const auto stride = static_cast<std::int64_t>(static_cast<double>(leading_dim) * elem);
  const double offset_rows = 1.0 - static_cast<double>(std::gcd(stride, std::int64_t{32})) / 32.0;
  return static_cast<double>(rows) * (static_cast<double>(cols) * elem / 32.0 + offset_rows);
}
// What those rows hold in L1 while one sector's reuses run: a warp reads one column of 32 rows
// an instruction, the loads of a sector's 16 columns follow one another, so each row keeps
// about its current line, 1.25 lines (160 bytes) whatever the tile's width. Calibrated on the
// configs of staged_l1.csv whose resident tiles outgrow L1 with two or more tiles an SM (64 x
// 64 x 128, 128 x 64 x 128, 128 x 64 x 64: reuses lost 0.26-0.33, 0.20-0.24, 0.08; the rule
// 0.30, 0.30, 0.07). One tile an SM at BLOCK_K 128 loses 0.05-0.53 where the rule gives none;
// the tile's whole width (its sectors) in place of the window fits those better but sends
// wider tiles' predictions 1.3-2x over (spill_timing.csv: 26.7% MAPE against 22.2%).
double gemm_l1_window_bytes(std::int64_t rows) { return static_cast<double>(rows) * 160.0; }
}  // namespace

std::int64_t gemm_lda(const GemmParams& p) { return p.lda > 0 ? p.lda : p.layout[0] == 't' ? p.M : p.K; }
std::int64_t gemm_ldb(const GemmParams& p) { return p.ldb > 0 ? p.ldb : p.layout[1] == 't' ? p.K : p.N; }
bool gemm_a_via_registers(const GemmParams& p) { return rows_via_registers(p, gemm_lda(p)); }
bool gemm_b_via_registers(const GemmParams& p) { return rows_via_registers(p, gemm_ldb(p)); }

std::int64_t gemm_smem_bytes(const GemmParams& p) {
  const auto in = static_cast<std::int64_t>(dtype_bytes(p.dtype));
  const std::int64_t a = p.block_m * p.block_k * (gemm_a_via_registers(p) ? 1 : p.stages);
  const std::int64_t b = p.block_k * p.block_n * (gemm_b_via_registers(p) ? 1 : p.stages);
  return (a + b) * in;
}

namespace {

// Shared-memory bytes a K iteration's wgmma instructions read. Each m64nNk16 reads its 64x16
// slice of A and its 16xN slice of B from shared memory, so A is read once per instruction
// column (BLOCK_N / N) and B once per 64-row block. The warp groups split the tile along M
// first (64 rows each at least), then along N; N is at most 256.
// The SASS of hw_profiles/calibrate/mma_rate.py's loops: 64x64 tiles of 8 warps issue
// m64n32k16, 64x128 ones m64n64k16, 128x64 ones m64n64k16 (h200/mma_rate.csv's hgmma column).
std::int64_t gemm_mma_n(const GemmParams& p) {
  const std::int64_t groups = std::max<std::int64_t>(1, consumer_warps(p) / 4);
  const std::int64_t along_m = std::max<std::int64_t>(1, std::min(groups, p.block_m / 64));
  const std::int64_t along_n = std::max<std::int64_t>(1, groups / along_m);
  return std::max<std::int64_t>(8, std::min<std::int64_t>(256, p.block_n / along_n));
}
// Whether ptxas serialises the loop's wgmma (warning C7515, WARPGROUP.DEPBAR 0 behind every
// wgmma): Triton's tiles 256 wide with at most 128 rows on 8 warps whose B sits K-major in
// shared memory, as B stored N x K puts it (layout "nt") and as 8-bit wgmma takes B whatever
// its layout. Compile facts of the MMA-only loops of hw_profiles/calibrate/mma_rate.py (22
// tiles at 4 and 8 warps): with B K-major, bf16 (h200/mma_rate_nt.csv) and fp8
// (h200/mma_rate_fp8.csv), 64x256 and 128x256 on 8 warps at BLOCK_K 32-128 serialise, and no
// other tile; with B N-major (bf16, the corpus's layout) none does. The corpora's kernels agree
// (h200/wgmma_sass_nt_corpus.txt: 5 of 58 bf16 configs with B stored N x K, these;
// wgmma_sass_fp8_corpus.txt: 7 of 53; 256x256 on 8 warps does not; wgmma_sass_bf16_corpus.txt,
// B stored K x N: none of 55).
bool gemm_serial_mma(const GemmParams& p) {
  const bool b_k_major = p.layout[1] == 't' || dtype_bytes(p.dtype) == 1;
  return b_k_major && !warp_specialised(p) && !p.persistent && p.warps == 8 && p.block_n == 256 && p.block_m <= 128;
}
double gemm_mma_smem_bytes(const GemmParams& p, double a_bytes, double b_bytes) {
  const double a_reads = static_cast<double>(ceil_div(p.block_n, gemm_mma_n(p)));
  const double b_reads = static_cast<double>(std::max<std::int64_t>(1, p.block_m / 64));
  return a_bytes * a_reads + b_bytes * b_reads;
}

// An operand stored K-contiguous (A row-major, B transposed) gives each row's reads of an
// iteration BLOCK_K elements in a run, and the tiles in flight read the same columns of other
// rows: runs of BLOCK_K x dtype bytes (dram_locality.csv). Stored the other way, the tiles
// side by side cover whole rows together (0: long runs), unless a row is shorter than the tile
// (N = 16 under BLOCK_N 64-256): the tile then asks for the row again and again (Triton wraps
// its columns), each copy a run of the row's bytes. 4096 x 16 x 4096 (triton_gemm.csv): 0.60
// us an iteration with 64 x 128 x 64 tiles, 0.97 with 64 x 256 x 64, where 512 and 1024
// requests of 32 bytes at l2.requests_per_s take 0.46 and 0.92.
double gemm_dram_run_bytes(const GemmParams& p, bool k_contiguous, std::int64_t extent, std::int64_t block) {
  if (!k_contiguous) return extent < block ? static_cast<double>(extent) * dtype_bytes(p.dtype) : 0.0;
  if (p.K <= p.block_k) return 0;
  return static_cast<double>(p.block_k) * dtype_bytes(p.dtype);
}

std::string program_name(const GemmParams& p) {
  std::string n = "gemm M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K) +
                  (p.batch > 1 ? " batch=" + std::to_string(p.batch) : "") + " " + std::string(dtype_name(p.dtype)) +
                  " tile " + std::to_string(p.block_m) + "x" + std::to_string(p.block_n) + "x" +
                  std::to_string(p.block_k);
  if (p.persistent) n += " persistent " + p.schedule;
  if (p.cluster_m * p.cluster_n > 1) n += " cluster " + std::to_string(p.cluster_m) + "x" + std::to_string(p.cluster_n);
  if (p.split_k > 1) n += " split-k " + std::to_string(p.split_k);
  return n;
}

}  // namespace

plan::TileProgram lift_gemm(const GemmParams& p) {
  using namespace plan;
  const DType out = output_dtype(p.dtype);
  const bool split = p.split_k > 1;
  const DType partial = split ? DType::kFP32 : out;  // split-K partials are kept in fp32
  const double in_b = dtype_bytes(p.dtype), out_b = dtype_bytes(out);
  const bool ta = p.layout[0] == 't', tb = p.layout[1] == 't';
  const bool batched = p.batch > 1;
  auto shape = [&](std::int64_t r, std::int64_t c) {
    return batched ? std::vector<std::int64_t>{p.batch, r, c} : std::vector<std::int64_t>{r, c};
  };
  TileProgram prog;
  prog.kernel = "gemm";
  prog.name = program_name(p);
  prog.tensors = {{"A", ta ? shape(p.K, p.M) : shape(p.M, p.K), p.dtype},
                  {"B", tb ? shape(p.N, p.K) : shape(p.K, p.N), p.dtype},
                  {"C", shape(p.M, p.N), partial}};
  if (split) prog.grid.dims.push_back({"split", p.split_k});
  if (batched) prog.grid.dims.push_back({"batch", p.batch});
  prog.grid.dims.push_back({"m", ceil_div(p.M, p.block_m)});
  prog.grid.dims.push_back({"n", ceil_div(p.N, p.block_n)});
  prog.grid.order = p.group_m > 1 ? LaunchOrder{LaunchOrderKind::kGrouped, p.group_m} : LaunchOrder{};
  prog.schedule = {.persistent = p.persistent, .epilogue_overlap = p.persistent && p.schedule == "pingpong",
                   .raster = p.raster == "n" ? Raster::kN : Raster::kM, .swizzle = p.swizzle,
                   .cluster_rows = p.cluster_m, .cluster_cols = p.cluster_n};
  // A tiles are reused across the N tiles of a row, B tiles across the M tiles of a column (eq. 6).
  auto tile = [&](std::int64_t r, std::int64_t c) {
    auto t = shape(r, c);
    if (batched) t[0] = 1;
    return t;
  };
  prog.accesses = {{"A", ta ? tile(p.block_k, p.block_m) : tile(p.block_m, p.block_k), Placement::kDdr, {"n"}, "k"},
                   {"B", tb ? tile(p.block_n, p.block_k) : tile(p.block_k, p.block_n), Placement::kDdr, {"m"}, "k"},
                   {"C", tile(p.block_m, p.block_n), Placement::kDdr, split ? std::vector<std::string>{"split"}
                                                                           : std::vector<std::string>{}, "", true}};
  // Persistent kernels (cuBLAS's nvjet, CUTLASS) load A and B as TMA boxes.
  for (std::size_t i = 0; i < 2; ++i) prog.accesses[i].tma_box = p.persistent;
  prog.loops = {{"k", ceil_div(ceil_div(p.K, p.block_k), p.split_k), p.stages, ""}};
  prog.loops[0].producer_warps = warp_specialised(p) || p.persistent;
  prog.loops[0].serial_mma = gemm_serial_mma(p);
  const double a_bytes = static_cast<double>(p.block_m * p.block_k) * in_b;
  const double b_bytes = static_cast<double>(p.block_k * p.block_n) * in_b;
  const double c_tile = static_cast<double>(p.block_m * p.block_n);
  const bool tensor_core = p.dtype != DType::kFP32;  // fp32 GEMMs run on CUDA cores (SIMT)
  const bool a_lanes = gemm_lanes_contiguous(!ta, p.M), b_lanes = gemm_lanes_contiguous(tb, p.N);
  const double spill_bytes = gemm_spill_bytes_per_iteration(p);
  // Staged loads whose lanes spread over the rows of K reuse each row's sectors from L1; the
  // other operand's cp.async copies pass through L1 and evict as many.
  const bool a_rows = gemm_a_via_registers(p) && !a_lanes, b_rows = gemm_b_via_registers(p) && !b_lanes;
  const double a_l1 = a_rows ? gemm_tile_sectors(p.block_k, p.block_m, gemm_lda(p), in_b) : 0.0;
  const double b_l1 = b_rows ? gemm_tile_sectors(p.block_k, p.block_n, gemm_ldb(p), in_b) : 0.0;
  const double a_copied = gemm_a_via_registers(p) ? 0.0 : a_bytes / 32.0;
  const double b_copied = gemm_b_via_registers(p) ? 0.0 : b_bytes / 32.0;
  const double mma_smem = tensor_core ? gemm_mma_smem_bytes(p, a_bytes, b_bytes) : a_bytes + b_bytes;
  prog.actions = {
      {.name = "load_a", .op = OpKind::kLoad, .operands = {"A"}, .bytes = a_bytes,
       .multicast = static_cast<double>(p.cluster_n), .via_registers = gemm_a_via_registers(p),
       .lane_sectors = gemm_a_via_registers(p) ? gemm_lane_sectors(a_lanes) : 0.0,
       .lane_lines = gemm_a_via_registers(p) ? gemm_lane_lines(a_lanes) : 0.0,
       .l1_tile_sectors = a_l1, .l1_window_bytes = a_rows ? gemm_l1_window_bytes(p.block_k) : 0.0,
       .l1_displacing_sectors = a_rows ? b_copied : 0.0,
       .l1_beside_bytes = a_rows ? b_copied * 32.0 + mma_smem : 0.0,
       .dram_run_bytes = gemm_dram_run_bytes(p, !ta, p.M, p.block_m), .result_level = Placement::kSmem, .loop = "k", .dtype = p.dtype},
      {.name = "load_b", .op = OpKind::kLoad, .operands = {"B"}, .bytes = b_bytes,
       .multicast = static_cast<double>(p.cluster_m), .via_registers = gemm_b_via_registers(p),
       .lane_sectors = gemm_b_via_registers(p) ? gemm_lane_sectors(b_lanes) : 0.0,
       .lane_lines = gemm_b_via_registers(p) ? gemm_lane_lines(b_lanes) : 0.0,
       .l1_tile_sectors = b_l1, .l1_window_bytes = b_rows ? gemm_l1_window_bytes(p.block_k) : 0.0,
       .l1_displacing_sectors = b_rows ? a_copied : 0.0,
       .l1_beside_bytes = b_rows && !a_rows ? a_copied * 32.0 + mma_smem : 0.0,
       .dram_run_bytes = gemm_dram_run_bytes(p, tb, p.N, p.block_n), .result_level = Placement::kSmem, .loop = "k", .dtype = p.dtype},
      {.name = "mma", .op = tensor_core ? OpKind::kMmaTc : OpKind::kMmaCuda, .operands = {"A", "B"},
       .flops = 2.0 * c_tile * static_cast<double>(p.block_k),
       .bytes = mma_smem,
       .local_bytes = spill_bytes,
       .local_reloads = gemm_loop_reloads(p),
       .accumulator_spills = spill_bytes > 0 && gemm_accumulators_overflow(p),
       .deps = {0, 1},
       .result_level = Placement::kRegister, .loop = "k", .dtype = p.dtype,
       .mma_n = tensor_core ? static_cast<double>(gemm_mma_n(p)) : 0.0},
      {.name = "store_c", .op = OpKind::kStore, .operands = {"C"}, .bytes = c_tile * dtype_bytes(partial),
       .deps = {2}, .result_level = Placement::kDdr, .dtype = partial},
  };
  if (split) {
    // The reduction kernel reads every split's fp32 partial tile back and writes C once: per
    // split tile, its own partial in and 1/split_k of the output tile out.
    prog.tensors.push_back({"C_out", shape(p.M, p.N), out});
    prog.accesses.push_back({"C_out", tile(p.block_m, p.block_n), Placement::kDdr, {"split"}, "", true});
    prog.actions.push_back({.name = "reduce_partials", .op = OpKind::kLoad, .operands = {"C"},
                            .bytes = c_tile * 4.0, .deps = {3}, .result_level = Placement::kRegister,
                            .dtype = DType::kFP32});
    prog.actions.push_back({.name = "store_out", .op = OpKind::kStore, .operands = {"C_out"},
                            .bytes = c_tile * out_b / static_cast<double>(p.split_k), .deps = {4},
                            .result_level = Placement::kDdr, .dtype = out});
    prog.launches = 2;
  }
  prog.resources = {gemm_smem_bytes(p), gemm_registers_per_thread(p), p.warps};
  return prog;
}

}  // namespace tilesight::kernels
