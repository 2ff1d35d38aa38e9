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

#include <cstdint>

namespace tilesight::cache {

// Standard normal CDF by Zelen & Severo (eq. 10); Phi(-x) = 1 - Phi(x).
double normal_cdf(double x);

// Eq. 7. reuse_distance: distinct blocks in between (D_T); capacity_tiles: the cache in
// blocks of the same size (B_T); associativity: ways per set (A). D_T = 0 always hits.
double sdcm_hit_exact(std::int64_t reuse_distance, double associativity, double capacity_tiles);

// Eqs. 8-10 with DESIGN.md's correction; reuse_distance may be fractional (a share of a
// tile). Tends to eq. 7 as D_T grows; see tests/unit/test_sdcm.cpp for the tolerance.
double sdcm_hit_gaussian(double reuse_distance, double associativity, double capacity_tiles);

}  // namespace tilesight::cache
