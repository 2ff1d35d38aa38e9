// The SDCM cache model against the ncu corpus of the H200 (tests/validation/h200/l2_hit_*.csv).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sdcm_test_spec.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/model/evaluate.h"

using namespace tilesight;
using tilesight::test::sdcm::gemm;

namespace {

std::vector<std::vector<std::string>> read_csv(const std::string& path, std::vector<std::string>& header) {
  std::ifstream f(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (header.empty()) header = cells;
    else rows.push_back(cells);
  }
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
}

struct Scores {
  std::size_t rows = 0;
  double mae = 0, median_dram_error = 0;
};

// The mean of the hit rates' absolute errors (pp) and the median of the DRAM reads' relative ones.
Scores scores_of(const std::vector<double>& abs_err, std::vector<double> dram_err) {
  if (abs_err.empty()) return {};
  std::sort(dram_err.begin(), dram_err.end());
  return {.rows = abs_err.size(),
          .mae = std::accumulate(abs_err.begin(), abs_err.end(), 0.0) / static_cast<double>(abs_err.size()),
          .median_dram_error = dram_err[dram_err.size() / 2]};
}

// A row's shape and tile config as a key; with `shape` false, the tile config alone.
std::string key_of(const std::vector<std::string>& h, const std::vector<std::string>& r, bool shape = true) {
  std::string k = shape ? r[column(h, "M")] + "," + r[column(h, "N")] + "," + r[column(h, "K")] + "," : "config:";
  for (const char* c : {"block_m", "block_n", "block_k", "group_m", "stages", "warps"}) k += r[column(h, c)] + ",";
  return k;
}

bool aligned(const std::vector<std::string>& h, const std::vector<std::string>& r) {
  return std::stoll(r[column(h, "M")]) % 16 == 0 && std::stoll(r[column(h, "N")]) % 16 == 0 &&
         std::stoll(r[column(h, "K")]) % 16 == 0;
}

// Triton's spill count (n_spills) of each row of the timing corpora, and of each config on aligned
// shapes (M, N, K are runtime arguments: one binary for every shape of multiples of 16, and the
// corpora's counts agree there).
std::map<std::string, long> spill_counts(const std::string& dir) {
  std::map<std::string, long> spills;
  for (const char* timed :
       {"triton_gemm.csv", "triton_gemm_heldout3.csv", "triton_gemm_heldout4.csv", "triton_gemm_heldout5.csv",
        "triton_gemm_heldout6.csv"}) {
    std::vector<std::string> th;
    for (const auto& r : read_csv(dir + timed, th)) {
      const long n = std::stol(r[column(th, "n_spills")]);
      spills[key_of(th, r)] = n;
      if (aligned(th, r)) spills[key_of(th, r, false)] = n;
    }
  }
  return spills;
}

// A row's spill count: its own where a timing corpus ran its shape, else its config's on an aligned
// shape, else 0.
long spills_of(const std::map<std::string, long>& spills, const std::vector<std::string>& h,
               const std::vector<std::string>& r) {
  if (auto it = spills.find(key_of(h, r)); it != spills.end()) return it->second;
  if (!aligned(h, r)) return 0;
  auto it = spills.find(key_of(h, r, false));
  return it == spills.end() ? 0 : it->second;
}

// The model's L2 hit rate and DRAM reads on the rows of `files` (tests/validation/h200) that it
// sees: shapes 16-element aligned (others load narrow, README there) and no register spills
// (local memory traffic through L2; the n_spills of triton_gemm.csv and triton_gemm_heldout3-6.csv,
// 0 for configs in none).
Scores score(std::initializer_list<const char*> files) {
  const std::string dir = std::string(TILESIGHT_TEST_SOURCE_DIR) + "/tests/validation/h200/";
  auto spills = spill_counts(dir);
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  const cache::SdcmCacheModel sdcm({.tile_maps = false});
  std::vector<double> abs_err, dram_err;
  for (const char* file : files) {
    std::vector<std::string> h;
    for (const auto& r : read_csv(dir + file, h)) {
      auto at = [&](const char* c) { return std::stoll(r[column(h, c)]); };
      const auto p = gemm(at("M"), at("N"), at("K"), at("block_m"), at("block_n"), at("group_m"), at("stages"), at("warps"));
      if (p.M % 16 || p.N % 16 || p.K % 16 || spills_of(spills, h, r) != 0) continue;
      auto q = p;
      q.block_k = at("block_k");
      const auto t = sdcm.analyze(kernels::lift_gemm(q), *hw);
      abs_err.push_back(std::fabs(100 * t.l2_hit_rate() - std::stod(r[column(h, "l2_hit_pct")])));
      dram_err.push_back(std::fabs(t.dram_read_bytes() / std::stod(r[column(h, "dram_read_bytes")]) - 1));
    }
  }
  return scores_of(abs_err, dram_err);
}

// The same rows' spilling half: aligned shapes whose compiler reported spills, predicted with
// that count (as `tilesight-cli validate` passes n_spills) by the whole model, whose L2 hit rate
// counts the spilled sectors beside the tensors' (cache::local_traffic).
Scores score_spilling(std::initializer_list<const char*> files) {
  const std::string dir = std::string(TILESIGHT_TEST_SOURCE_DIR) + "/tests/validation/h200/";
  auto spills = spill_counts(dir);
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  std::vector<double> abs_err, dram_err;
  for (const char* file : files) {
    std::vector<std::string> h;
    for (const auto& r : read_csv(dir + file, h)) {
      auto at = [&](const char* c) { return std::stoll(r[column(h, c)]); };
      auto p = gemm(at("M"), at("N"), at("K"), at("block_m"), at("block_n"), at("group_m"), at("stages"), at("warps"));
      const long n = spills_of(spills, h, r);
      if (p.M % 16 || p.N % 16 || p.K % 16 || n == 0) continue;
      p.block_k = at("block_k");
      p.spills = n;
      auto pred = model::evaluate(kernels::lift_gemm(p), *hw, {.timeline = false, .diagnosis = false});
      REQUIRE(pred);
      abs_err.push_back(std::fabs(100 * pred->l2_hit_rate - std::stod(r[column(h, "l2_hit_pct")])));
      dram_err.push_back(std::fabs(pred->dram_read_bytes / std::stod(r[column(h, "dram_read_bytes")]) - 1));
    }
  }
  return scores_of(abs_err, dram_err);
}

// Holds scores to regression bounds.
void check(const Scores& s, std::size_t min_rows, double max_mae, double max_dram_error) {
  INFO(s.rows << " rows: MAE " << s.mae << " pp, median DRAM error " << s.median_dram_error);
  CHECK(s.rows > min_rows);
  CHECK(s.mae < max_mae);
  CHECK(s.median_dram_error < max_dram_error);
}

}  // namespace

TEST_CASE("L2 hit rate and DRAM reads against the ncu corpus of the H200", "[cache][validation]") {
  // 1160 Triton GEMM launches under ncu (cold L2), 828 of them clean. Regression bounds, not
  // goals: the model stands at 3.48 pp MAE and 0.1% median DRAM-read error (bias +0.65; 3.52, +0.8 before
  // the hit window grew with the L2 slices' load as lrc_window.py --fine-load measures it,
  // stream_shape.cpp, loaded_hit_merge_ns, l2.hit_merge_load; 3.62, +1.0 before a
  // loop one stage ahead with x of 0.10 or more kept its whole own speed once the launch had run 1000
  // iterations, stream_shape.cpp, runaway_wave; 3.67 before session 40's x sqrt(w) ramp; 3.68 before a
  // one-wave grid of more CTAs than SMs merged by GPC, l2.slot_gpc; 3.84, +1.6 before an SM's path ran at the rate of the SMs the grid keeps busy and a tile with its SM to
  // itself drifted only by the share of its iteration not hidden in the path's queue
  // (stream_shape.cpp, exposed_skew); 3.80, +1.5
  // before loops one stage ahead kept pace while their first wave's footprint over the L2 allowed it
  // (stream_shape.cpp, coupled_rate_sd) and the walk sampled 3 waves, not 2; 4.02, +1.6
  // while one-wave grids' rows of 64 bytes merged by the rules of whole lines, not at the
  // measured l2.short_row_lookups, ncu_wrapped.py --law; 4.08, +1.4 while a GPC's four merges
  // counted readers, not requests (a tile's wrapped copies); 4.06, +1.2
  // while a small grid's reads merged across its partition, not only within a GPC,
  // StreamShape::domain_of_slot; 4.15, +1.3
  // while grids smaller than the GPU took the full grid's slot map, not l2.grid_partition; 4.13, +1.1
  // while a block the other SM group touched since counted from this group's own last touch in the
  // share of it homed here, StreamWalker::touch_all; +0.9 before
  // a store to a line homed in the other partition was looked up there too; 4.14, +0.8
  // while the walk sampled 2 waves, not as many as fit in SdcmOptions::wave_budget_tiles; 4.16 pp while a
  // partition's share of the other group's stream counted blocks its own group had touched in
  // the window, WaveFootprint::mix; 4.18 pp while a lone
  // tile looked up every copy of a wrapped 64-byte row, ncu_wrapped.csv; 4.30 pp while each
  // copy of a wrapped whole-line row a follower tile asked for merged, not only its first request,
  // tests/validation/h200/l2_residuals.py's wrapped rows; 4.43 pp while the
  // waves of tiles with their SM to themselves at 3-5 stages widened as a walk, not linearly,
  // tile_wave_growth, cta_skew.py --growth; 4.47 pp while a
  // partition held l2.bytes / 2 rather than the measured l2.partition_bytes; 4.64 pp while
  // 2-stage loops with one tile an SM had speeds of their own, cta_skew.py --widths; 4.73 pp
  // before an estimated register count snapped to an occupancy boundary; 4.91 pp before the
  // measured windows of the request coalescer, l2.hit_merge_ns and a miss's DRAM latency under
  // load, lrc_window.py; 4.92 pp before a first wave's start spread fell to the measured 0.1
  // iteration, kFirstWaveSpread; 4.89 pp
  // before reads of present blocks merged within the hit window, SdcmOptions::hit_window, and the
  // lockstep spread was chosen again with them; 5.69 pp before the fill window stopped growing
  // with the stages in flight, SdcmOptions::lockstep_iterations;
  // 5.86 pp before followers of a fill in flight were looked up with odds 1 in 4; 6.12 pp before
  // the measured SM-to-partition map, sm_partition.cu; 6.71 pp before the wrapped copies'
  // lookups, ncu_wrapped.csv; 7.07 pp before the tiles' own speeds, tile_rate_sd;
  // tests/validation/h200/l2_residuals.py).
  check(score({"l2_hit_sweep.csv", "l2_hit_corpus.csv"}), 800, 4.0, 0.03);
}

TEST_CASE("L2 hit rate and DRAM reads against the corpus measured again another day", "[cache][validation]") {
  // The same 1160 launches profiled again with the same script on another H200 machine,
  // 2026-12-06 (l2_hit_sweep_rerun.csv, l2_hit_corpus_rerun.csv; session 47): the clean rows
  // move by 1.93 pp between the days (median 1.00, p90 4.99; l2_rerun.py), and the model of
  // 8823a0a reads 3.70 pp against the second day (bias +1.3), 3.62 against the first and 3.49
  // against the two days' mean; 3.60, 3.52 and 3.38 since a loop one stage ahead with x of 0.10 or more keeps its whole own speed once the launch has run 1000 iterations (stream_shape.cpp, runaway_wave); 3.57, 3.48 and 3.35 since the hit window grows with the slices' load (loaded_hit_merge_ns). A regression bound, as above.
  check(score({"l2_hit_sweep_rerun.csv", "l2_hit_corpus_rerun.csv"}), 800, 4.0, 0.03);
}

TEST_CASE("L2 hit rate of spilling launches counts their spilled sectors", "[cache][validation]") {
  // The aligned launches the tests above leave out for their register spills: 216 of the
  // corpus (128 x 256 and 256 x 128 tiles on 4 warps, 256 x 256 on 8; 138-196 spill slots),
  // 36 of l2_hit_heldout.csv and 60 of l2_hit_heldout4.csv, where ncu counts 84-97% hits. Every
  // spilled sector is an L2 lookup (cache::local_traffic, from ncu_spills_facts.csv, not these
  // rows): corpus 1.77 pp MAE (bias +1.5; 38.3 pp, bias -38.3, while only the tensors' lookups
  // were counted), held out 2.85, held out 4 1.34 (9.0 and 9.3 pp over all their rows before,
  // 4.13 and 2.74 since); median DRAM-read error 4%, 31% and 21%.
  check(score_spilling({"l2_hit_sweep.csv", "l2_hit_corpus.csv"}), 200, 2.2, 0.08);
  check(score_spilling({"l2_hit_heldout.csv"}), 30, 3.3, 0.4);
  check(score_spilling({"l2_hit_heldout4.csv"}), 50, 1.7, 0.25);
  // l2_hit_heldout5.csv's 60 (measured 2026-12-04 after the model): 2.09 pp (bias +2.0), 23%.
  check(score_spilling({"l2_hit_heldout5.csv"}), 50, 2.5, 0.3);
  // l2_hit_heldout6.csv's 60 (measured 2026-12-05 after the model): 2.41 pp (bias +2.4), 25%.
  check(score_spilling({"l2_hit_heldout6.csv"}), 50, 2.9, 0.35);
}

TEST_CASE("L2 hit rate and DRAM reads on shapes outside the ncu corpus", "[cache][validation]") {
  // l2_hit_calib.csv (ncu_l2.py --set calib, 2026-11-30): 372 launches on six shapes that are not the
  // corpus's, eight tiles each at 2-5 stages and group_m 1 and 8, measured after the model of this test's
  // first version was fixed; it chose SdcmOptions::lockstep_iterations. The model stands at 4.39 pp MAE
  // (bias +1.59; +1.75 before a one-wave grid of more CTAs than SMs merged by GPC, l2.slot_gpc; 4.79, +3.0 before an SM's path ran at the rate of the SMs the grid keeps busy and a tile
  // with its SM to itself drifted only by its exposed share, stream_shape.cpp, exposed_skew; 4.74, +3.2 before loops one stage ahead kept pace while their first wave's footprint over
  // the L2 allowed it (stream_shape.cpp, coupled_rate_sd) and the walk sampled 3 waves, not 2; 4.75, +2.8
  // before the 64-byte rows' measured share; 5.10, +2.6 while a small grid's reads merged across its
  // partition, not only within a GPC; 5.21, +2.7 while grids smaller than the GPU took the full grid's slot
  // map; 5.16, +2.5 while a block the other group touched since counted from this group's own last touch;
  // 5.14, +2.3 before a store to a line homed in the other partition was looked up there too; 5.12 while
  // the walk sampled 2 waves; +2.1 while a partition's share of the other group's stream counted blocks its
  // own group had touched; 5.48 before tile_wave_growth; 5.53 with a partition of l2.bytes / 2; 5.54 before
  // an estimated register count snapped to an occupancy boundary; 5.73 before the coalescer's measured
  // windows, with which this set chose the spread again; 5.84 before a first wave's measured start spread;
  // bias +2.2, and the same MAE, before reads of present blocks merged within the hit window, bias +3.0,
  // the spread chosen again with them; 7.03 before that window; 7.26 before followers of a fill in flight
  // were looked up with odds 1 in 4, bias +3.6 -> +0.5; 7.59 before the measured SM-to-partition map,
  // docs/cache-model.md) and 0.1% median DRAM-read error.
  check(score({"l2_hit_calib.csv"}), 350, 4.8, 0.03);
}

TEST_CASE("L2 hit rate and DRAM reads on many-wave shapes measured after the model", "[cache][validation]") {
  // l2_hit_heldout.csv (ncu_l2.py --set heldout, 2026-12-02): the Triton corpus's 58 configs on 4096 x 8192
  // x 16384, 12288 x 12288 x 4096 and 3072 x 20480 x 6144, shapes in no other set, measured after the model
  // of that day was fixed. The model stands at 3.58 pp MAE (bias +0.7; 3.75, +1.1 before a loop one stage
  // ahead with x of 0.10 or more kept its whole own speed once the launch had run 1000 iterations,
  // stream_shape.cpp, runaway_wave: 4096 x 8192 x 16384 64 x 128 x 64 77.7 -> 48.5%, ncu 49.1; 3.70
  // before session 40's ramp; 3.95 before an SM's path ran at the rate of the
  // SMs the grid keeps busy and a tile with its SM to itself drifted only by its exposed share,
  // stream_shape.cpp, exposed_skew; 4.47 before loops one stage ahead kept pace
  // while their first wave's footprint over the L2 allowed it (stream_shape.cpp, coupled_rate_sd) and the
  // walk sampled 3 waves, not 2: 12288 x 12288 x 4096 64 x 256 x 64 at 2 stages 39.4 -> 69.9%, ncu 69.1;
  // 4.50 while a block the other group touched since counted from this group's own last touch; 4.51 before
  // a store to a line homed in the other partition was looked up there too; 4.59 while the walk sampled 2
  // waves, not as many as fit in SdcmOptions::wave_budget_tiles; 4.62 while a far-homed line was found in
  // its home partition only after the other group's touch; 4.67 while a partition's share of the other
  // group's stream counted blocks its own group had touched; 4.84 before tile_wave_growth; 5.18 with a
  // partition of l2.bytes / 2; 5.70 while 2-stage loops with one tile an SM had speeds of their own, 5.82
  // with the day's starting model, 54150ab, whose register estimate put some tiles on the wrong side of an
  // occupancy boundary).
  check(score({"l2_hit_heldout.csv"}), 130, 4.1, 0.1);
}

TEST_CASE("L2 hit rate and DRAM reads on LLM-like shapes measured after the model", "[cache][validation]") {
  // l2_hit_heldout4.csv (ncu_l2.py --set heldout4, 2026-12-02): the Triton corpus's 58 configs on 2048 x
  // 13824 x 5120, 3584 x 18944 x 3584, 32 x 11008 x 4096, 5120 x 5120 x 1536 and 1520 x 7168 x 2048
  // (triton_gemm_heldout4.csv's shapes), measured against the cache model of main 88cc2c0: 4.81 pp MAE on
  // its 230 clean rows (bias -2.4), median DRAM-read error 6.3%; 4.53 pp (bias -1.8) since a partition
  // holds the measured l2.partition_bytes; 4.45 pp (bias -2.0) since tile_wave_growth; 4.23 pp (bias -1.6)
  // since a follower's wrapped copies merge as its first request does (32 x 11008 x 4096); 4.21 pp (-1.7)
  // since wrapped 64-byte rows merge as whole lines while in flight; 3.72 pp (-1.0), median DRAM-read error
  // 3.9%, since a partition's share of the other group's stream leaves out the blocks its own group touched
  // in the window (WaveFootprint::mix: 5120 x 5120 x 1536, whose 31 MB both groups read, read its B 4x from
  // DRAM); worst, group-1 2-stage loops of wide tiles in many waves read 12-26 pp too few hits (3584 x
  // 18944 x 3584 64 x 256 x 64: 34.7% against 60.3%); 3.68 pp (-0.8), 3.4%, since the walk samples as many
  // waves as fit in SdcmOptions::wave_budget_tiles, not 2; 3.56 pp (-0.6), 3.3%, since the three waves
  // before each sample are replayed, not one (walk_stream); 3.54 pp, 3.0%, since a tensor read by one
  // access comes at least its bytes from DRAM; 3.51 pp (-0.45) since a store to a line homed in the other
  // partition is looked up there too; 3.10 pp (+0.3), 5.6% (mean 17% -> 12%) since the share homed here of
  // a block the other group touched since counts from that touch; 3.09 pp since a grid smaller than the GPU
  // takes the small grids' slot map (l2.grid_partition); 3.12 pp (+0.2) since such a grid's reads merge
  // only within a GPC (l2.grid_gpc); 2.65 pp (+0.1), 4.6% since loops one stage ahead kept pace while their
  // first wave's footprint over the L2 allowed it (stream_shape.cpp, coupled_rate_sd) and the walk sampled
  // 3 waves, not 2; 2.55 pp (-0.1) since an SM's path runs at the rate of the SMs the grid keeps busy and
  // a tile with its SM to itself drifts only by its exposed share (stream_shape.cpp, exposed_skew).
  check(score({"l2_hit_heldout4.csv"}), 220, 2.9, 0.1);
}

TEST_CASE("L2 hit rate and DRAM reads on five more LLM-like shapes measured after the model", "[cache][validation]") {
  // l2_hit_heldout5.csv (ncu_l2.py --set heldout5, 2026-12-04, session 34): the Triton corpus's 58 configs
  // on 6144 x 17920 x 5120, 2048 x 3072 x 8192, 4608 x 14336 x 3584, 768 x 24576 x 6144 and 10240 x 4096 x
  // 11008 (triton_gemm_heldout5.csv's shapes), chosen before they were measured, against the cache model of
  // main 44edd21 with nothing changed after: 4.16 pp MAE on its 230 clean rows (bias +1.0), median
  // DRAM-read error 2.7%. Group 1 carries three quarters of the error (5.7 pp against 2.4 for group 8):
  // 2-stage loops of wide tiles in many waves read 12-23 pp too few hits (4608 x 14336 x 3584 64 x 256 x
  // 64: 44.7% against 67.6%; their tiles start together, docs/cache-model.md, "Convoys that hold or part")
  // and 3-5-stage loops of BLOCK_K 32 12-18 pp too many. 3.78 pp (+1.2), 2.0% since loops one stage ahead
  // kept pace while their first wave's footprint over the L2 allowed it (stream_shape.cpp, coupled_rate_sd)
  // and the walk sampled 3 waves, not 2 (both weighed on this set too; their constants are read off the CTA
  // traces, cta_skew.py --coupling); 3.62 pp (+0.9) since an SM's path runs at the rate of the SMs the
  // grid keeps busy and a tile with its SM to itself drifts only by its exposed share (exposed_skew); 3.56
  // since session 40's ramp; 3.58 (+0.8) since a loop one stage ahead with x of 0.10 or more keeps its whole own speed once the launch has run 1000 iterations (stream_shape.cpp, runaway_wave):
  // 6144 x 17920 x 5120 64 x 256 x 64 at 2 stages, whose traced waves hold, 59.4 -> 44.3%, ncu 57.9.
  check(score({"l2_hit_heldout5.csv"}), 220, 4.0, 0.1);
}

TEST_CASE("L2 hit rate and DRAM reads on a sixth held-out set measured after the model", "[cache][validation]") {
  // l2_hit_heldout6.csv (ncu_l2.py --set heldout6, 2026-12-05, session 39): the Triton corpus's 58 configs
  // on 3072 x 8192 x 8192, 1536 x 28672 x 4096, 8192 x 5120 x 13824, 512 x 16384 x 16384 and 2560 x 10240
  // x 2560 (triton_gemm_heldout6.csv's shapes), chosen in session 36 against the cache model of main
  // 71f273d and measured against it with nothing changed (main 7fef349 carries the same model): 3.67 pp
  // MAE on its 230 clean rows (bias +1.3), median DRAM-read error 3.5%. Group 1 carries two thirds of the
  // error (4.5 pp against 2.7 for group 8). Worst: group-1 loops of 2-3 stages on 512 x 16384 x 16384 (two
  // waves) count 12-24 pp more hits than the model gives; on 8192 x 5120 x 13824 the model gives 14-22 pp
  // too many (64 x 128 x 64 group 1 at 2 stages: 85.5% against 63.3%). 3.49 since session 40's ramp;
  // 3.41 (+1.3) since a loop one stage ahead with x of 0.10 or more keeps its whole own speed once the launch has run 1000 iterations (stream_shape.cpp, runaway_wave) (that row 70.3%).
  check(score({"l2_hit_heldout6.csv"}), 220, 4.0, 0.1);
}

TEST_CASE("L2 hit rate and DRAM reads on the waves set measured after the model", "[cache][validation]") {
  // l2_hit_waves.csv (ncu_l2.py --set waves, H200, 2026-12-06, session 41): the Triton corpus's 58
  // configs on 1024, 2048 and 4096 x 16384 x 16384 (held out 6's 512-row shape in 2-125 waves),
  // chosen in session 39 and measured against main 2fe9b9b's model with nothing changed: 5.34 pp MAE
  // on its 138 rows without spills (their configs' counts in the timing corpora; bias +3.7),
  // median DRAM-read error 5.2%. The model's error grows with the waves
  // (3.4, 5.4, 7.1 pp at M = 1024, 2048, 4096): ncu's hit rate falls with them for group-1 2-stage
  // loops the model holds flat, those with no own speed too (64 x 128 x 32, 4 warps: 65.9, 60.4,
  // 37.9% against 61.6, 64.4, 66.8), where the traces show the partition sides parting
  // (docs/cache-model.md, session 41). 4.98 pp (+3.2), 4.8% since a loop one stage ahead with x of 0.10 or more keeps its whole own speed once the launch has run 1000 iterations (stream_shape.cpp, runaway_wave):
  // 4096 x 16384 x 16384 64 x 64 x 32 73.0 -> 46.2%, ncu 40.9.
  check(score({"l2_hit_waves.csv"}), 130, 5.4, 0.07);
}

namespace {

// The cuBLAS corpus's kernels under ncu (l2_hit_cublas.csv, ncu_cublas_l2.py): each row's gemm
// parameters are those cublas_params.py read from the kernel's name (cublas_gemm_params.csv for
// torch.matmul, cublas_gemm_linear_params.csv for F.linear), as l2_cublas.py predicts them.
// Rows whose kernel under ncu was not the recorded one are skipped.
Scores score_cublas() {
  const std::string dir = std::string(TILESIGHT_TEST_SOURCE_DIR) + "/tests/validation/h200/";
  std::map<std::string, nlohmann::json> params;
  for (const auto& [file, set] : {std::pair{"cublas_gemm_params.csv", "matmul"}, {"cublas_gemm_linear_params.csv", "linear"}}) {
    std::vector<std::string> h;
    for (const auto& r : read_csv(dir + file, h)) {
      auto cell = [&](const char* c) { return r[column(h, c)]; };
      nlohmann::json p = {{"dtype", cell("dtype")}, {"persistent", cell("persistent") == "1"},
                          {"raster", cell("raster")}, {"schedule", cell("schedule")}};
      for (const char* c : {"M", "N", "K", "block_m", "block_n", "block_k", "stages", "warps", "cluster_m",
                            "cluster_n", "split_k"})
        p[c] = std::stoll(cell(c));
      if (column(h, "layout") < h.size()) p["layout"] = cell("layout");
      else if (cell("dtype") == "fp8") p["layout"] = "nt";  // torch._scaled_mm takes B column-major
      params[std::string(set) + "," + cell("dtype") + "," + cell("M") + "," + cell("N") + "," + cell("K")] = p;
    }
  }
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  std::vector<std::string> h;
  std::vector<double> abs_err, dram_err;
  for (const auto& r : read_csv(dir + "l2_hit_cublas.csv", h)) {
    auto cell = [&](const char* c) { return r[column(h, c)]; };
    const auto known = params.find(cell("set") + "," + cell("dtype") + "," + cell("M") + "," + cell("N") + "," + cell("K"));
    if (cell("same_kernel") != "1" || known == params.end()) continue;
    const auto g = kernels::parse_gemm_params(known->second);
    REQUIRE(g);
    const auto p = model::evaluate(kernels::lift_gemm(*g), *hw, {.timeline = false, .diagnosis = false});
    REQUIRE(p);
    abs_err.push_back(std::fabs(100 * p->l2_hit_rate - std::stod(cell("l2_hit_pct"))));
    dram_err.push_back(std::fabs(p->dram_read_bytes / std::stod(cell("dram_read_bytes")) - 1));
  }
  return scores_of(abs_err, dram_err);
}

}  // namespace

TEST_CASE("L2 hit rate and DRAM reads of cuBLAS's persistent clustered kernels", "[cache][validation]") {
  // l2_hit_cublas.csv (ncu_cublas_l2.py, 2026-12-02): the 144 calls of the cuBLAS corpus (92
  // torch.matmul in bf16, fp16 and fp8, 52 F.linear), split-K reductions included. 6.27 pp MAE
  // (bias -0.2), median DRAM-read error 1.8% with a plain raster; 5.20 pp (bias -4.1), 1.2%
  // since the walk is cuBLAS's measured serpentine groups (cublas_order.py), an SM's path
  // carries its share of a multicast and a multicast's followers are not lookups
  // (docs/cache-model.md, "cuBLAS's order, watched"); 5.10 pp (bias -3.9) with the measured
  // l2.partition_bytes (l2_retention.cu); 3.69 pp (bias -1.3), 1.3% since a multicast is
  // measured (ncu_tma_multicast.csv): one lookup a cluster, never merged, the followers asking
  // nothing. Worst: the skinny 448 x 64 and 32 x 64 kernels read 16-18 pp too few hits, the
  // 128 x 128 x 64 6-stage ones 10-12 too many; 3.54 pp (bias -1.1) since a TMA box's rows
  // past the tensor's edge are looked up as tma_oob.cu measures, not wrapped; 3.49 pp (bias
  // -1.0) since a partition's share of the other group's stream leaves out what its own touched;
  // 3.24 pp (-1.04) since the walk samples as many waves as fit in SdcmOptions::wave_budget_tiles;
  // 3.05 pp (-0.57) since a store to a line homed in the other partition is looked up there too;
  // 2.96 pp (-0.36) since the share homed here of a block the other group touched since counts
  // from that touch; 2.77 pp (-0.85) since an SM's path runs at the rate of the SMs the grid keeps
  // busy and a tile with its SM to itself drifts only by its exposed share (exposed_skew).
  check(score_cublas(), 140, 3.1, 0.03);
}
