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

// Where (A - 1/2 - D q) / sqrt(D q (1 - q)) = +-8.3: with u = sqrt(D) and c = 8.3 sqrt(q (1 - q)),
// q u^2 +- c u - (A - 1/2) = 0. The argument falls with D, so below the first root every
// distance hits and past the second every one misses.
SdcmGaussian::SdcmGaussian(double associativity, double capacity_tiles)
    : q_(std::min(1.0, set_share(associativity, capacity_tiles))), one_minus_q_(1.0 - q_), margin0_(associativity - 0.5) {
  const double spread = q_ * one_minus_q_;
  if (!(spread > 0) || !(margin0_ > 0) || !std::isfinite(margin0_)) return;
  const double c = kNormalCdfSaturation * std::sqrt(spread), root = std::sqrt(c * c + 4 * q_ * margin0_);
  const double u_hit = 2 * margin0_ / (c + root), u_miss = (c + root) / (2 * q_);
  constexpr double kMargin = 1e-9;
  sure_hit_ = u_hit * u_hit * (1 - kMargin);
  sure_miss_ = u_miss * u_miss * (1 + kMargin);
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
