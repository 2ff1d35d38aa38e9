// PyTorch's copies around Ulysses' all-to-alls (issue 7): the `copy` kernel of
// kernels/memory_bound.h against the kernels torch ran (tests/validation/h200x2/
// ulysses_timeline.csv), and Ulysses' communication with them against the corpus's `comm`
// rows, which time the copies with the all-to-alls (collectives.py).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/kernels/memory_bound.h"
#include "tilesight/kernels/ulysses.h"
#include "tilesight/model/distributed.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/net/system_profile.h"

using namespace tilesight;

namespace {

net::SystemSpec h200x2() {
  auto s = net::load_system("h200x2");
  REQUIRE(s);
  return *s;
}

double copy_us(double elements, std::int64_t dims, const hw::HardwareSpec& gpu) {
  const auto pred = model::evaluate(
      kernels::lift_memory_bound({.kernel = "copy", .rows = 1, .cols = static_cast<std::int64_t>(elements), .dims = dims}),
      gpu);
  REQUIRE(pred.ok());
  return pred->latency_us - pred->launch_overhead_us;
}

}  // namespace

TEST_CASE("a strided copy is bound by its index arithmetic, a contiguous one by DRAM", "[memory_bound][net]") {
  const auto gpu = h200x2().device;
  // Ulysses at 8192 tokens, 32 heads of 128 on two GPUs: Q/K/V 3 x 4096 x 32 x 128 elements,
  // the output 4096 x 32 x 128. ulysses_timeline.csv (rank 0, CUDA-graph replay under
  // torch.profiler): the 3-dimension permute of Q/K/V 127.0 / 126.2 / 126.4 us, the
  // 5-dimension one 151.6 / 152.0 / 152.8, the output's 3-dimension copies 41.7-43.6 us,
  // its contiguous copy (memcpy128) 15.8-17.0 us. ncu (ulysses_copies_ncu.csv): 54.5 and
  // 78.5 instructions an element, 77-84% of the issue slots busy, 1.4 TB/s of DRAM at 1.5 GHz.
  const double qkv = 3.0 * 4096 * 32 * 128, out = 4096.0 * 32 * 128;
  CHECK(copy_us(qkv, 3, gpu) == Approx(126.5).epsilon(0.2));
  CHECK(copy_us(qkv, 5, gpu) == Approx(152.1).epsilon(0.2));
  CHECK(copy_us(out, 3, gpu) == Approx(42.6).epsilon(0.2));
  CHECK(copy_us(out, 1, gpu) == Approx(16.4).epsilon(0.25));
  // The index arithmetic, not the bytes, sets a strided copy's time: the same bytes take
  // longer with more dimensions, and far longer than the contiguous copy.
  CHECK(copy_us(qkv, 5, gpu) > 1.2 * copy_us(qkv, 3, gpu));
  CHECK(copy_us(out, 3, gpu) > 1.5 * copy_us(out, 1, gpu));
}

TEST_CASE("Ulysses' communication includes torch's permute copies", "[net][corpus]") {
  // fused.csv's `comm` rows (collectives.py: permute, all-to-all, all-to-all back, permute
  // back, copy into place; CUDA-graph replay). Without the copies the model gave 303, 523,
  // 959 us (35-42% fast); ulysses_pieces.csv times the bare all-to-alls at 316, 524, 1012
  // and the copies alone at 183, 360, 713.
  const auto system = h200x2();
  struct Row {
    std::int64_t heads, seq, head_dim;
    bool causal;
    double comm_us;
  } rows[] = {{32, 8192, 128, false, 467.787},
              {32, 16384, 128, false, 870.56},
              {32, 32768, 128, false, 1658.125},
              {32, 16384, 128, true, 870.388},
              {64, 16384, 64, false, 868.501}};
  for (const Row& r : rows) {
    auto p = kernels::parse_ulysses_params({{"batch", 1},
                                            {"heads", r.heads},
                                            {"kv_heads", r.heads},
                                            {"seq_q", r.seq},
                                            {"seq_kv", r.seq},
                                            {"head_dim", r.head_dim},
                                            {"causal", r.causal},
                                            {"devices", 2},
                                            {"overlap", "none"}});
    REQUIRE(p);
    const auto pred = model::evaluate_ulysses(*p, system, {});
    REQUIRE(pred.ok());
    INFO("seq " << r.seq << " heads " << r.heads);
    CHECK(pred->network.comm_us == Approx(r.comm_us).epsilon(0.05));  // 0.8-3.9% fast
  }
}
