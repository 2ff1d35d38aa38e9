// Two streams, one GPU (model/stream_share.h): whether NCCL's CTAs run beside a compute
// kernel is occupancy arithmetic on the H200's limits (65536 registers, 64 warps, 228 KiB of
// shared memory and 32 blocks per SM, 132 SMs); the fused-template check is the two-H200
// corpus (tests/validation/h200x2/fused.csv) and the kernel timeline of stream_timeline.csv,
// where NCCL's kernel beside cuBLAS's persistent GEMM started in the GEMM's last round of tiles.
#include <cmath>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/model/distributed.h"
#include "tilesight/model/stream_share.h"
#include "tilesight/validate/network_corpus.h"

using namespace tilesight;
using namespace tilesight::model;

namespace {

hw::HardwareSpec h200() {
  auto h = hw::load_profile("h200");
  REQUIRE(h.ok());
  return std::move(h).value();
}

// cuBLAS's nvjet 128x256 cooperative kernel: 12 warps, 168 registers a thread (64512 of the
// register file), about 200 KiB of shared memory: one CTA per SM.
constexpr plan::BlockResources kCublasCta{.smem_bytes = 200 * 1024, .registers_per_thread = 168, .warps = 12};

}  // namespace

TEST_CASE("an NCCL CTA fits beside a block only where registers, warps and shared memory remain", "[net][overlap]") {
  const auto gpu = h200();
  // 12 x 32 x 168 = 64512 registers + NCCL's 17 x 32 x 96 = 52224 > 65536.
  CHECK_FALSE(fits_beside(kCublasCta, 1, kNcclCta, gpu.limits));
  // Two small blocks (4 warps x 32 registers = 4096 each): 8192 + 52224 = 60416 <= 65536,
  // 8 + 17 warps <= 64, 2 x 17 KiB + 102.4 KiB of shared memory <= 228 KiB.
  const plan::BlockResources small{.smem_bytes = 16 * 1024, .registers_per_thread = 32, .warps = 4};
  CHECK(fits_beside(small, 2, kNcclCta, gpu.limits));
  // Two NCCL CTAs never share an SM: 2 x 52224 > 65536.
  CHECK_FALSE(fits_beside(kNcclCta, 1, kNcclCta, gpu.limits));
}

TEST_CASE("a persistent GEMM on every SM lets NCCL in at its last round; many waves share; room runs beside",
          "[net][overlap]") {
  const auto gpu = h200();
  // 512 tiles on 132 CTAs: 4 rounds, the last of 116 tiles leaves 16 SMs for 16 channels.
  const auto persistent = share_sms({.blocks = 512, .resident_per_sm = 1, .persistent = true, .block = kCublasCta}, 16, gpu);
  CHECK(persistent.sharing == SmSharing::kTail);
  CHECK(persistent.held_sms == 132);
  CHECK(persistent.nccl_room == 0);
  CHECK(persistent.tail_fraction == Approx(0.25));
  CHECK(persistent.tail_share == Approx(1.0));
  CHECK(persistent.sm_slowdown == Approx(132.0 / 116.0));
  // 24 channels: the 16 idle SMs hold two thirds of them.
  CHECK(share_sms({.blocks = 512, .resident_per_sm = 1, .persistent = true, .block = kCublasCta}, 24, gpu).tail_share ==
        Approx(16.0 / 24.0));
  // 528 tiles divide evenly: every CTA ends at once, no round leaves SMs early.
  CHECK(share_sms({.blocks = 528, .resident_per_sm = 1, .persistent = true, .block = kCublasCta}, 16, gpu).tail_fraction ==
        0);
  // One wave of 128 tiles leaves 4 SMs, one NCCL CTA each: 4 < 16 channels, and no second round.
  const auto one_wave = share_sms({.blocks = 128, .resident_per_sm = 1, .persistent = false, .block = kCublasCta}, 16, gpu);
  CHECK(one_wave.sharing == SmSharing::kTail);
  CHECK(one_wave.nccl_room == 4);
  CHECK(one_wave.tail_fraction == 0);
  // 4 channels fit on those 4 SMs.
  CHECK(share_sms({.blocks = 128, .resident_per_sm = 1, .block = kCublasCta}, 4, gpu).sharing == SmSharing::kBeside);
  // Ten waves: NCCL's 16 CTAs take 16 SMs as blocks retire -> 132 / 116 slower.
  const auto waves = share_sms({.blocks = 1320, .resident_per_sm = 1, .block = kCublasCta}, 16, gpu);
  CHECK(waves.sharing == SmSharing::kShared);
  CHECK(waves.sm_slowdown == Approx(132.0 / 116.0));
  // Small blocks leave room on every SM: beside, nothing taken.
  const plan::BlockResources small{.smem_bytes = 16 * 1024, .registers_per_thread = 32, .warps = 4};
  const auto beside = share_sms({.blocks = 5000, .resident_per_sm = 2, .block = small}, 16, gpu);
  CHECK(beside.sharing == SmSharing::kBeside);
  CHECK(beside.sm_slowdown == 1);
}

TEST_CASE("stream overlap with cuBLAS's persistent GEMM hides the all-gather under one round of tiles", "[net][overlap]") {
  // ag_gemm 8192^3 on h200x2: the own 4096-row piece (32 x 16 = 512 tiles of 128x256 on 132
  // CTAs: 4 rounds, 16 SMs idle in the last) lets NCCL's 24 all-gather CTAs in for its last
  // quarter, 16 of 24 at once: for 1/6 of a piece the all-gather runs beside it, slowed by the
  // GEMM's DRAM/L2 traffic (model/comm_contention.h: between 1 and the 2.49x measured beside
  // a saturated DRAM), so less than 1/6 of a piece is hidden; the other piece waits for the data.
  nlohmann::json params = validate::cublas_tile_params();
  params.update({{"M", 8192}, {"N", 8192}, {"K", 8192}, {"dtype", "bf16"}, {"devices", 2}, {"overlap", "stream"}});
  auto p = predict_distributed({{"kernel", "ag_gemm"}, {"hardware", "h200x2"}, {"params", params}}, "", {.timeline = false});
  REQUIRE(p.ok());
  const auto& n = p->network;
  CHECK(n.comm_sms == 24);
  const double beside = n.compute_us / 2 / 6;  // the span the two share
  const double hidden = n.overlap_rate * n.comm_us;  // the all-gather's work done in it
  CHECK(p->latency_us == Approx(n.comm_us + n.compute_us + p->launch_overhead_us - hidden).epsilon(1e-6));
  CHECK(beside / hidden > 1.0);
  CHECK(beside / hidden < 2.49);
  CHECK(p->diagnosis.front().find("last round of tiles") != std::string::npos);
}

TEST_CASE("gemm_rs chunks: each chunk's own reduce-scatter; bad chunks name their JSON path", "[net][overlap]") {
  nlohmann::json params = validate::cublas_tile_params();
  params.update({{"M", 8192}, {"N", 8192}, {"K", 8192}, {"dtype", "bf16"}, {"devices", 2}, {"overlap", "stream"},
                 {"chunks", 4}});
  auto p = predict_distributed({{"kernel", "gemm_rs"}, {"hardware", "h200x2"}, {"params", params}}, "", {.timeline = false});
  REQUIRE(p.ok());
  // Four 2048-row pieces and four reduce-scatters of 32 MiB, each but the last let in during
  // the next piece's last round: less than the two in series, more than the longer lane.
  const double serial = p->network.comm_us + p->network.compute_us + p->launch_overhead_us;
  CHECK(p->latency_us < serial - 1);
  CHECK(p->latency_us > std::max(p->network.comm_us, p->network.compute_us));
  auto rs = predict_distributed(
      {{"kernel", "reduce_scatter"}, {"hardware", "h200x2"}, {"params", {{"bytes", 8192LL * 8192 * 2 / 4}, {"devices", 2}}}},
      "", {.timeline = false});
  REQUIRE(rs.ok());
  CHECK(p->network.comm_us == Approx(4 * rs->latency_us).epsilon(1e-6));

  params["chunks"] = 3;  // 8192 rows are not 3 x 2 equal pieces
  auto uneven = predict_distributed({{"kernel", "gemm_rs"}, {"hardware", "h200x2"}, {"params", params}}, "", {});
  REQUIRE_FALSE(uneven.ok());
  CHECK(uneven.errors()[0].path == "params.M");
  params["chunks"] = 4;
  auto ag = predict_distributed({{"kernel", "ag_gemm"}, {"hardware", "h200x2"}, {"params", params}}, "", {});
  REQUIRE_FALSE(ag.ok());
  CHECK(ag.errors()[0].path == "params.chunks");
}
