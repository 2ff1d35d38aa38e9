// The logical exchanges of §3.6: a collective is an ordered list of stages, each a set of
// (source, destination, bytes) transfers that run at the same time. Ranks are positions in
// the communicator's group; the stage cost maps them to devices and routes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tilesight/net/protocol.h"

namespace tilesight::net {

struct Exchange {
  std::size_t src = 0;  // rank that owns or produces the tensor tile
  std::size_t dst = 0;  // rank whose tile wave consumes it
  double bytes = 0;
};

struct Stage {
  std::string label;               // "ring step", "recursive halving 2", ...
  std::vector<Exchange> exchanges;
  std::int64_t repeat = 1;         // identical stages in a row: evaluated once (§3.6)
  // A pipelined stage (tree): its exchanges carry the whole payload, which is cut into C
  // chunks that flow through `pipeline_fill` + 1 levels; it runs C + pipeline_fill times with
  // bytes / C each, C chosen to minimise the time (the α-β optimum of a pipelined tree).
  std::int64_t pipeline_fill = 0;
};

// What a communicator is asked to do: `bytes` as nccl-tests reports "size" (DESIGN.md).
struct CollectiveRequest {
  Collective collective = Collective::kAllReduce;
  std::vector<std::size_t> group;  // devices of the system, rank i -> group[i]
  double bytes = 0;
  // Node of each rank (ranks whose routes cross no network link share a node); empty or all
  // equal on one node. A ring uses it to run one channel per GPU of a node, each leaving the
  // node through a different GPU's NIC, as NCCL's rings do over rails.
  std::vector<std::size_t> node;
  std::size_t ranks() const { return group.size(); }
};

}  // namespace tilesight::net
