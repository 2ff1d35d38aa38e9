#include "tilesight/cache/sdcm.h"

#include <algorithm>
#include <cmath>

namespace tilesight::cache {

namespace {

// Probability that one intervening block maps to the block's set: A ways out of B_T blocks.
double set_share(double associativity, double capacity_tiles) {
  return capacity_tiles > 0 ? associativity / capacity_tiles : 1.0;
}

}  // namespace

double normal_cdf(double x) {
  // Zelen & Severo (1964), Abramowitz & Stegun 26.2.17 (eq. 10).
  constexpr double p = 0.2316419;
  constexpr double b1 = 0.319381530, b2 = -0.356563782, b3 = 1.781477937, b4 = -1.821255978,
                   b5 = 1.330274429;
  constexpr double inv_sqrt_2pi = 0.398942280401432678;
  const double ax = std::fabs(x);
  if (ax > 8.3) return x > 0 ? 1.0 : 0.0;  // Q(8.3) < 1e-16: below double resolution of 1 - Q
  const double t = 1.0 / (1.0 + p * ax);
  const double poly = t * (b1 + t * (b2 + t * (b3 + t * (b4 + t * b5))));
  const double upper = inv_sqrt_2pi * std::exp(-0.5 * ax * ax) * poly;  // Q(|x|)
  return x >= 0 ? 1.0 - upper : upper;
}

double sdcm_hit_exact(std::int64_t reuse_distance, double associativity, double capacity_tiles) {
  if (reuse_distance <= 0) return 1.0;
  const double q = set_share(associativity, capacity_tiles);
  const double d = static_cast<double>(reuse_distance);
  const auto ways = static_cast<std::int64_t>(std::floor(associativity));
  if (reuse_distance < ways) return 1.0;  // fewer blocks than ways cannot evict it
  if (q >= 1.0) return 0.0;               // every block lands in the set: a fully associative cache of A
  // Sum the binomial terms in log space: C(D, a) overflows long before D reaches a GEMM's.
  const double log_q = std::log(q), log_1q = std::log1p(-q);
  const double lg_d1 = std::lgamma(d + 1);
  double sum = 0;
  for (std::int64_t a = 0; a < ways; ++a) {
    const double ad = static_cast<double>(a);
    sum += std::exp(lg_d1 - std::lgamma(ad + 1) - std::lgamma(d - ad + 1) + ad * log_q + (d - ad) * log_1q);
  }
  return std::clamp(sum, 0.0, 1.0);
}

double sdcm_hit_gaussian(double reuse_distance, double associativity, double capacity_tiles) {
  if (!(reuse_distance > 0)) return 1.0;
  if (std::isinf(reuse_distance)) return 0.0;
  const double q = std::min(1.0, set_share(associativity, capacity_tiles));
  const double mu = reuse_distance * q;
  const double var = reuse_distance * q * (1.0 - q);
  const double margin = associativity - 0.5 - mu;  // continuity-corrected: fewer than A land
  if (var <= 1e-12) return margin > 0 ? 1.0 : 0.0;
  return normal_cdf(margin / std::sqrt(var));
}

}  // namespace tilesight::cache
