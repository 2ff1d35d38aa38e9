// A collective beside a memory-busy kernel (model/comm_contention.h) against the points of
// tests/validation/h200x2/rs_contention.csv.
#include <catch2/catch.hpp>
#include <cmath>

#include "tilesight/model/comm_contention.h"

using tilesight::model::comm_memory_slowdown;

TEST_CASE("reduce-scatter slowdown read off the measured contention points", "[net][stream]") {
  const double mib = 1 << 20;
  // 64 MiB beside 108 CTAs reading DRAM at 4036 GB/s (0.917 of 4.4 TB/s): 393.6 / 166.8 us.
  CHECK(comm_memory_slowdown(64 * mib, 0.917, 0) == Approx(2.36));
  // ... at 1360 GB/s (0.309): 172.1 / 166.8.
  CHECK(comm_memory_slowdown(64 * mib, 0.309, 0) == Approx(1.03));
  // Below the lightest load measured: as alone.
  CHECK(comm_memory_slowdown(64 * mib, 0.05, 0.1) == Approx(1.0));
  // 8 MiB beside 54 DRAM CTAs (0.563): 1.21; halfway to the next point (0.899, 2.49): 1.85.
  CHECK(comm_memory_slowdown(8 * mib, 0.563, 0) == Approx(1.21));
  CHECK(comm_memory_slowdown(8 * mib, (0.563 + 0.899) / 2, 0) == Approx(1.85));
  // Between the sizes in log(bytes): 22.6 MiB (geometric mean) is the mean of both curves.
  CHECK(comm_memory_slowdown(std::sqrt(8.0 * 64.0) * mib, 0.917, 0) ==
        Approx((comm_memory_slowdown(8 * mib, 0.917, 0) + 2.36) / 2));
  // L2: 108 CTAs at 8084 GB/s (0.929 of 8.7 TB/s): 306.8 / 166.8; the larger of DRAM and L2.
  CHECK(comm_memory_slowdown(64 * mib, 0.309, 0.929) == Approx(1.84));
  CHECK(comm_memory_slowdown(64 * mib, 0.917, 0.929) == Approx(2.36));
}
