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

}  // namespace tilesight::model
