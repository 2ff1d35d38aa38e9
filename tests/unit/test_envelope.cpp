// The prologue-steady-epilogue envelope (§3.4, eq. 2) and its effective depth (eq. 3), by hand.
#include <catch2/catch.hpp>

#include "tilesight/model/envelope.h"

using tilesight::model::effective_depth;
using tilesight::model::PipelineEnvelope;

TEST_CASE("PipelineEnvelope: eq. 2 by hand", "[model]") {
  // N = 64 iterations, d = 5: 64 - 5 = 59 steady iterations.
  // T = T_pro + 59 * T_steady + T_epi = 2 µs + 59 * 0.5 µs + 1 µs = 2 + 29.5 + 1 = 32.5 µs.
  const PipelineEnvelope env{
      .prologue = 2e-6, .steady = 0.5e-6, .epilogue = 1e-6, .iterations = 64, .depth = 5};
  CHECK(env.steady_iterations() == 59);
  CHECK(env.steady_total() == Approx(29.5e-6));
  CHECK(env.total() == Approx(32.5e-6));
}

TEST_CASE("PipelineEnvelope: fewer iterations than the depth", "[model]") {
  // N = 3 < d = 5: max(N - d, 0) = 0, so T = T_pro + T_epi = 2 + 1 = 3 µs.
  const PipelineEnvelope env{
      .prologue = 2e-6, .steady = 0.5e-6, .epilogue = 1e-6, .iterations = 3, .depth = 5};
  CHECK(env.steady_iterations() == 0);
  CHECK(env.steady_total() == 0);
  CHECK(env.total() == Approx(3e-6));

  // N = d exactly: still no steady iteration.
  const PipelineEnvelope edge{
      .prologue = 2e-6, .steady = 0.5e-6, .epilogue = 1e-6, .iterations = 5, .depth = 5};
  CHECK(edge.total() == Approx(3e-6));
}

TEST_CASE("effective_depth: eq. 3", "[model]") {
  CHECK(effective_depth(3, 2) == 5);  // 3 * 2 - 1
  CHECK(effective_depth(1, 1) == 0);  // no pipelining
  CHECK(effective_depth(4, 1) == 3);
  CHECK(effective_depth(2, 0) == 0);  // never below zero
  static_assert(effective_depth(3, 2) == 5);
}
