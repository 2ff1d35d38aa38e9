// One wave of resident tiles on one SM (Algorithm 2, AnalyzeLoop at the root): the tile body's
// actions before its loops (head), the loops' envelopes, and the actions after them (tail).
#pragma once

#include <vector>

#include "tilesight/model/loop_analysis.h"

namespace tilesight::model {

struct WaveTime {
  double active_sms = 0;  // SMs the wave's bandwidth is split over (a tail: WaveDecomposition::tail_bandwidth_sms)
  std::int64_t resident = 0;
  double head = 0;      // tile-body actions before the loops, all resident tiles
  double tail = 0;      // tile-body actions after the loops (epilogue stores)
  double prologue = 0;  // head + loops' prologues
  double staggered_fill = 0;  // of the prologue: what a wave's tiles hide under each other's
                              // work when they start apart (resident > 1): the prefetch fill,
                              // a loop-free tile's or a row walk's first memory latency
  double steady = 0;    // loops' steady iterations
  double epilogue = 0;  // loops' epilogues + tail
  ResourceVector busy;  // seconds each resource is busy on one SM during the wave
  std::vector<LoopAnalysis> loops;
  std::vector<BodyItem> head_items;
  std::vector<BodyItem> tail_items;

  double total() const { return prologue + steady + epilogue; }
};

// `traffic`: the wave's L2/DRAM split (CacheTraffic::at_wave, or the kernel's average);
// `kernel`: the whole kernel's, for what is the kernel's alone (the flush's dirty write-backs),
// null: `traffic`.
WaveTime evaluate_wave(const plan::TileProgram& program, const hw::HardwareSpec& hw,
                       const cache::CacheTraffic& traffic, double active_sms, std::int64_t resident,
                       double clock_factor, std::size_t max_orders, const cache::CacheTraffic* kernel = nullptr);

}  // namespace tilesight::model
