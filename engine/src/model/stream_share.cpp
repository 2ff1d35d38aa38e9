#include "tilesight/model/stream_share.h"

#include <algorithm>
#include <cmath>

#include "tilesight/util/format.h"

namespace tilesight::model {

namespace {

constexpr double kThreadsPerWarp = 32;

// Registers a block takes from the register file: per warp, in units of register_alloc_unit
// (as occupancy.cpp counts them).
double block_registers(const plan::BlockResources& b, const hw::SmLimits& lim) {
  const double unit = lim.register_alloc_unit > 0 ? lim.register_alloc_unit : 1;
  const double per_warp = std::ceil(static_cast<double>(b.registers_per_thread) * kThreadsPerWarp / unit) * unit;
  return per_warp * static_cast<double>(b.warps);
}

double block_smem(const plan::BlockResources& b, const hw::SmLimits& lim) {
  return static_cast<double>(b.smem_bytes) + lim.smem_reserved_per_block;
}

}  // namespace

const char* sm_sharing_name(SmSharing s) {
  switch (s) {
    case SmSharing::kBeside: return "beside";
    case SmSharing::kTail: return "tail";
    case SmSharing::kShared: return "shared";
  }
  return "beside";
}

bool fits_beside(const plan::BlockResources& host, std::int64_t resident, const plan::BlockResources& guest,
                 const hw::SmLimits& lim) {
  const double r = static_cast<double>(resident);
  return r * block_smem(host, lim) + block_smem(guest, lim) <= lim.smem_bytes_per_sm &&
         r * block_registers(host, lim) + block_registers(guest, lim) <= lim.registers_per_sm &&
         r * static_cast<double>(host.warps) + static_cast<double>(guest.warps) <= lim.max_warps_per_sm &&
         r + 1 <= lim.max_blocks_per_sm;
}

StreamShare share_sms(const ComputeGrid& grid, std::int64_t channels, const hw::HardwareSpec& hw) {
  StreamShare s;
  const double sms = hw.sm_count, resident = static_cast<double>(std::max<std::int64_t>(grid.resident_per_sm, 1));
  const double wave = sms * resident, blocks = static_cast<double>(grid.blocks);
  const bool one_wave = grid.persistent || blocks <= wave;
  s.held_sms = std::min(sms, std::ceil(std::min(blocks, wave) / resident));
  // Free SMs take as many NCCL CTAs as fit (one on an H200: 544 threads x 96 registers take
  // 52224 of 65536); held SMs one each where one fits beside the compute's CTAs.
  std::int64_t per_free = 1;
  while (per_free < 64 && fits_beside(kNcclCta, per_free, kNcclCta, hw.limits)) ++per_free;
  const auto per_free_sm = static_cast<double>(per_free);
  const bool room = fits_beside(grid.block, grid.resident_per_sm, kNcclCta, hw.limits);
  s.nccl_room = (sms - s.held_sms) * per_free_sm + (room ? s.held_sms : 0.0);
  const double ch = static_cast<double>(channels);
  if (ch <= s.nccl_room) {
    s.sharing = SmSharing::kBeside;
    s.why = "NCCL's " + fmt("%.0f", ch) + " CTAs fit beside the compute (room for " + fmt("%.0f", s.nccl_room) +
            "): it loses no SM, only HBM bandwidth";
  } else if (one_wave) {
    // Each of the grid's CTAs runs ceil(blocks / CTAs) rounds of tiles; those of the last,
    // partial round's idle CTAs retire one round early and leave their SMs to NCCL.
    s.sharing = SmSharing::kTail;
    const double ctas = std::max(1.0, std::min(blocks, wave));
    const double rounds = std::ceil(blocks / ctas);
    const double idle_sms = std::floor((ctas * rounds - blocks) / resident);
    s.tail_fraction = idle_sms > 0 ? 1.0 / rounds : 0.0;
    s.tail_share = std::min(1.0, (s.nccl_room + idle_sms * per_free_sm) / ch);
    const double taken = std::min(ch - s.nccl_room, sms - 1);
    s.sm_slowdown = sms / (sms - taken);
    s.why = std::string(grid.persistent ? "the persistent" : "the one-wave") + " compute grid holds " +
            fmt("%.0f", s.held_sms) + " of " + fmt("%.0f", sms) + " SMs until its CTAs retire, with room for " +
            fmt("%.0f", s.nccl_room) + " of NCCL's " + fmt("%.0f", ch) + " CTAs: " +
            (s.tail_fraction > 0 ? "a step starts in its last round of tiles (" + fmt("%.0f", 100 * s.tail_fraction) +
                                       "% of its time, SMs for " + fmt("%.0f", 100 * s.tail_share) + "% of the CTAs)"
                                 : "a step starts when it ends (no partial round)") +
            ", and compute launched beside a step runs " + fmt("%.2f", s.sm_slowdown) + "x slower";
  } else {
    s.sharing = SmSharing::kShared;
    const double taken = std::min(ch - s.nccl_room, sms - 1);
    s.sm_slowdown = sms / (sms - taken);
    s.why = "NCCL's CTAs take " + fmt("%.0f", taken) + " SMs as the compute's waves retire: the compute runs " +
            fmt("%.2f", s.sm_slowdown) + "x slower while a step runs";
  }
  return s;
}

}  // namespace tilesight::model
