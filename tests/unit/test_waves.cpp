// Wave decomposition (Algorithm 2, WaveDecompose), by hand.
#include <catch2/catch.hpp>

#include "tilesight/model/waves.h"

using tilesight::model::decompose_waves;

TEST_CASE("decompose_waves: full waves and a tail", "[model]") {
  // 132 SMs x 2 resident = 264 blocks per wave; 1000 = 3 * 264 + 208.
  // The 208 tail blocks spread over all 132 SMs first, so the busiest holds ceil(208/132) = 2.
  const auto w = decompose_waves(1000, 132, 2);
  CHECK(w.blocks == 1000);
  CHECK(w.blocks_per_wave == 264);
  CHECK(w.full_waves == 3);
  CHECK(w.tail_blocks == 208);
  CHECK(w.tail_active_sms == 132);
  CHECK(w.tail_resident == 2);
  CHECK(w.waves() == 4);
}

TEST_CASE("decompose_waves: exactly divisible, no tail", "[model]") {
  const auto w = decompose_waves(528, 132, 2);  // 528 = 2 * 264
  CHECK(w.full_waves == 2);
  CHECK(w.tail_blocks == 0);
  CHECK(w.tail_active_sms == 0);
  CHECK(w.tail_resident == 0);
  CHECK(w.waves() == 2);
}

TEST_CASE("decompose_waves: fewer blocks than SMs", "[model]") {
  // 100 blocks on 132 SMs: no full wave; the tail runs one block on each of 100 SMs.
  const auto w = decompose_waves(100, 132, 2);
  CHECK(w.full_waves == 0);
  CHECK(w.tail_blocks == 100);
  CHECK(w.tail_active_sms == 100);
  CHECK(w.tail_resident == 1);
  CHECK(w.waves() == 1);

  // 200 blocks, 1 resident: a full wave of 132, then 68 on 68 SMs.
  const auto one = decompose_waves(200, 132, 1);
  CHECK(one.full_waves == 1);
  CHECK(one.tail_blocks == 68);
  CHECK(one.tail_active_sms == 68);
  CHECK(one.tail_resident == 1);
}

TEST_CASE("decompose_waves: bad inputs give an empty decomposition", "[model]") {
  for (const auto& w : {decompose_waves(0, 132, 2), decompose_waves(-5, 132, 2),
                        decompose_waves(100, 0, 2), decompose_waves(100, 132, 0)}) {
    CHECK(w.blocks_per_wave == 0);
    CHECK(w.full_waves == 0);
    CHECK(w.tail_blocks == 0);
    CHECK(w.waves() == 0);
  }
}

TEST_CASE("decompose_waves: the SMs a tail's bandwidth is split over", "[model]") {
  // One partial wave of 172 blocks, 2 resident: 132 SMs hold one, 40 of them a second. The
  // device's bandwidth goes to the 172 blocks, so the busiest SM (2 blocks) gets 2/172 of it:
  // as if 172 / 2 = 86 SMs each held 2.
  const auto one_wave = decompose_waves(172, 132, 2);
  CHECK(one_wave.tail_active_sms == 132);
  CHECK(one_wave.tail_resident == 2);
  CHECK(one_wave.tail_bandwidth_sms() == Approx(86.0));
  // One block an SM: the SMs it is active on.
  CHECK(decompose_waves(100, 132, 2).tail_bandwidth_sms() == Approx(100.0));
  // A tail behind full waves (1000 = 3 x 264 + 208): the SMs it is active on, 132.
  CHECK(decompose_waves(1000, 132, 2).tail_bandwidth_sms() == Approx(132.0));
  // No tail: nothing to split.
  CHECK(decompose_waves(528, 132, 2).tail_bandwidth_sms() == Approx(0.0));
}
