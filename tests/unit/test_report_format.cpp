// The report's byte sizes: binary multiples with their IEC names, three significant digits,
// the convention the app uses too (ui/format.h), checked by hand.
#include <catch2/catch.hpp>

#include "tilesight/report/diagnosis.h"
#include "tilesight/report/text_report.h"

using tilesight::report::format_bytes;

TEST_CASE("format_bytes gives binary sizes with IEC names") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(16384) == "16 KiB");                      // a 128x64 bf16 tile
  CHECK(format_bytes(268435456) == "256 MiB");                 // 2^28
  CHECK(format_bytes(96.0 * 1024 * 1024 + 300e3) == "96.3 MiB");  // 96 MiB + 0.286 MiB
  CHECK(format_bytes(91.6e6) == "87.4 MiB");                   // 91.6e6 / 2^20 = 87.36
  CHECK(format_bytes(1.5 * 1024 * 1024 * 1024) == "1.5 GiB");
  CHECK(format_bytes(139e9) == "129 GiB");                     // 139e9 / 2^30 = 129.45
  // Just under a unit reads as that unit, never "1.02e+03 KiB" or "1000 KiB".
  CHECK(format_bytes(1024 * 1023.9) == "1 MiB");
  CHECK(format_bytes(1000) == "1000 B");
}

TEST_CASE("format_us moves to ms and s before three digits run out") {
  using tilesight::report::format_us;
  CHECK(format_us(12.34) == "12.3 us");
  CHECK(format_us(999.4) == "999 us");
  CHECK(format_us(999.6) == "1 ms");  // not "1e+03 us"
  CHECK(format_us(1250) == "1.25 ms");
  CHECK(format_us(999.4e3) == "999 ms");
  CHECK(format_us(999.6e3) == "1 s");  // not "1e+03 ms"
  CHECK(format_us(4.6e8) == "460 s");  // a 1048576^2 x 65536 GEMM, not "4.6e+05 ms"
}

TEST_CASE("the text report prints DRAM traffic in MiB") {
  tilesight::report::Prediction p;
  p.kernel = "gemm";
  p.hardware = "h200";
  p.blocks = 2048;
  p.waves = 16;
  p.resident_blocks_per_sm = 1;
  p.occupancy_limiter = "shared memory";
  p.dram_bytes = 91.6e6;
  const std::string text = tilesight::report::to_text(p);
  CHECK(text.find("DRAM 87.4 MiB") != std::string::npos);
  CHECK(text.find(" MB") == std::string::npos);
}
