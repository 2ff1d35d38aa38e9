// Stochastic distance cache model (SDCM, §3.5.2): the probability that a block comes back
// from an LRU-like set-associative cache after D_T distinct blocks were touched since its
// last use. Every intervening block lands in the block's set with probability A / B_T; the
// block survives while fewer than A of them did.
//
//   exact (eq. 7):     P(h | D_T) = sum_{a=0}^{A-1} C(D_T, a) (A/B_T)^a (1 - A/B_T)^(D_T - a)
//   Gaussian (8-10):   P(h | D_T) = Phi((A - 1/2 - mu) / sigma),
//                      mu = D_T A / B_T,  sigma^2 = D_T (A/B_T)(1 - A/B_T)
//
// Eq. 8 as printed, 1 - Q(|A - 1 - mu| / sigma), is never below 1/2; DESIGN.md corrects it
// to the signed, continuity-corrected form above. Phi is Zelen & Severo's polynomial
// (eq. 10, |error| < 7.5e-8), applied to negative arguments by symmetry.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tilesight::cache {

inline constexpr double kNormalCdfSaturation = 8.3;  // normal_cdf is exactly 0 or 1 past it

// Standard normal CDF by Zelen & Severo (eq. 10); Phi(-x) = 1 - Phi(x).
inline double normal_cdf(double x) {
  // Zelen & Severo (1964), Abramowitz & Stegun 26.2.17 (eq. 10).
  constexpr double p = 0.2316419;
  constexpr double b1 = 0.319381530, b2 = -0.356563782, b3 = 1.781477937, b4 = -1.821255978,
                   b5 = 1.330274429;
  constexpr double inv_sqrt_2pi = 0.398942280401432678;
  const double ax = std::fabs(x);
  if (ax > kNormalCdfSaturation) return x > 0 ? 1.0 : 0.0;  // Q(8.3) < 1e-16: below double resolution of 1 - Q
  const double t = 1.0 / (1.0 + p * ax);
  const double poly = t * (b1 + t * (b2 + t * (b3 + t * (b4 + t * b5))));
  const double upper = inv_sqrt_2pi * std::exp(-0.5 * ax * ax) * poly;  // Q(|x|)
  return x >= 0 ? 1.0 - upper : upper;
}

// Eq. 7. reuse_distance: distinct blocks in between (D_T); capacity_tiles: the cache in
// blocks of the same size (B_T); associativity: ways per set (A). D_T = 0 always hits.
double sdcm_hit_exact(std::int64_t reuse_distance, double associativity, double capacity_tiles);

// Eqs. 8-10 with DESIGN.md's correction; reuse_distance may be fractional (a share of a
// tile). Tends to eq. 7 as D_T grows; see tests/unit/test_sdcm.cpp for the tolerance.
double sdcm_hit_gaussian(double reuse_distance, double associativity, double capacity_tiles);

// sdcm_hit_gaussian for one cache and one block size, its constants computed once (the cache
// model asks it for every access of a wave): the same values, operation for operation.
class SdcmGaussian {
 public:
  SdcmGaussian(double associativity, double capacity_tiles);
  // Reuse distances at or below sure_hit() give exactly 1, at or above sure_miss() exactly 0
  // (past normal_cdf's saturation, with a relative margin of 1e-9): most accesses of a wave
  // are decided without the square root and the exponential.
  double sure_hit() const { return sure_hit_; }
  double sure_miss() const { return sure_miss_; }
  double operator()(double reuse_distance) const {
    if (!(reuse_distance > 0)) return 1.0;
    if (std::isinf(reuse_distance)) return 0.0;
    const double mu = reuse_distance * q_;
    const double var = mu * one_minus_q_;
    const double margin = margin0_ - mu;
    if (var <= 1e-12) return margin > 0 ? 1.0 : 0.0;
    return normal_cdf(margin / std::sqrt(var));
  }

 private:
  double q_, one_minus_q_, margin0_;
  double sure_hit_ = 0, sure_miss_ = std::numeric_limits<double>::infinity();
};

}  // namespace tilesight::cache
