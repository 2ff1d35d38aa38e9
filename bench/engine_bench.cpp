// Google Benchmark timings of the engine's hot paths, on the shipped H200 profile:
//   - the full cache model (sdcm_cache_model.h) of an 8192 x 8192 x 8192 bf16 GEMM with
//     128 x 128 x 64 tiles (issue 3's target: at most 200 us on the 2-core development box),
//     with and without the per-cell tile maps the GUI's heatmap reads;
//   - the cache model of an rmsnorm of 16 k and of 8 M rows: the same cost;
//   - a whole prediction (lift, occupancy, cache model, pipeline envelope), as a tile-config
//     search issues it: no timeline, no diagnosis.
// The cache model's memo is off, so each iteration does the whole analysis; a search that
// revisits a config pays less (SdcmOptions::memo).
//
//   build/bin/tilesight_bench [--benchmark_filter=CacheModel] [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>

#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/kernels/memory_bound.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/util/allocator.h"

using namespace tilesight;

namespace {

const hw::HardwareSpec& h200() {
  static const hw::HardwareSpec spec = [] {
    auto loaded = hw::load_profile("h200");
    if (!loaded) {
      std::cerr << "tilesight_bench: " << loaded.error_text("; ") << "\n";
      std::exit(2);
    }
    return *loaded;
  }();
  return spec;
}

kernels::GemmParams square_gemm(std::int64_t size, std::int64_t group_m) {
  kernels::GemmParams p;
  p.M = p.N = p.K = size;
  p.block_m = p.block_n = 128;
  p.block_k = 64;
  p.group_m = group_m;
  p.stages = 3;
  p.warps = 8;
  return p;
}

// The whole cache analysis of `program` each iteration, its hit rate as a counter.
void time_cache_model(benchmark::State& state, const plan::TileProgram& program, bool tile_maps) {
  const cache::SdcmCacheModel sdcm({.tile_maps = tile_maps, .memo = false});
  double hit = 0;
  for (auto _ : state) {
    auto traffic = sdcm.analyze(program, h200());
    benchmark::DoNotOptimize(traffic);  // not a double: GCC's register constraint garbles one
    hit = traffic.l2_hit_rate();
  }
  state.counters["l2_hit_rate"] = hit;
}

// Arguments: the GEMM's size, its group_m, whether the tile maps are filled.
void CacheModel(benchmark::State& state) {
  time_cache_model(state, kernels::lift_gemm(square_gemm(state.range(0), state.range(1))), state.range(2) != 0);
}
BENCHMARK(CacheModel)
    ->ArgNames({"size", "group_m", "tile_maps"})
    ->Args({8192, 8, 0})
    ->Args({8192, 8, 1})
    ->Args({8192, 1, 0})
    ->Args({4096, 8, 0})
    ->Unit(benchmark::kMicrosecond);

// Argument: the rows of an rmsnorm of 4096 columns. The walk's cost follows the blocks its
// sampled waves touch, not the tensor's (SdcmOptions::dense_keys): 16 k and 8 M rows cost alike.
void CacheModelNorm(benchmark::State& state) {
  time_cache_model(state, kernels::lift_memory_bound({.kernel = "rmsnorm", .rows = state.range(0), .cols = 4096}), false);
}
BENCHMARK(CacheModelNorm)->ArgName("rows")->Arg(16384)->Arg(8000000)->Unit(benchmark::kMicrosecond);

// Arguments: the GEMM's size and group_m.
void Predict(benchmark::State& state) {
  const auto program = kernels::lift_gemm(square_gemm(state.range(0), state.range(1)));
  const cache::SdcmCacheModel sdcm({.tile_maps = false, .memo = false});
  double latency = 0;
  for (auto _ : state) {
    auto pred = model::evaluate(program, h200(), {.cache_model = &sdcm, .timeline = false, .diagnosis = false});
    if (!pred) {
      state.SkipWithError(pred.error_text("; ").c_str());
      break;
    }
    benchmark::DoNotOptimize(pred);  // not a double: GCC's register constraint garbles one
    latency = pred->latency_us;
  }
  state.counters["latency_us"] = latency;
}
BENCHMARK(Predict)->ArgNames({"size", "group_m"})->Args({8192, 8})->Args({4096, 8})->Unit(benchmark::kMicrosecond);

}  // namespace

// As the CLI and the GUI run the engine (util/allocator.h).
int main(int argc, char** argv) {
  tilesight::keep_freed_memory();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
