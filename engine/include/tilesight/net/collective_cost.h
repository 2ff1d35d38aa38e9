// The cost of a collective: its launch latency plus the ordered sum of its stages
// (T_c = Σ_k T_k, §3.6), and the tuner that picks the algorithm and protocol NCCL runs
// (nccl_tuner.h: NCCL's own latency/bandwidth table where the system gives NCCL's graphs, its
// p2p protocol rule for all-to-all and send/recv), unless the user names them; where NCCL's
// choice is unknown (no "nccl_tuner" in the profile, or an algorithm NCCL lacks) the pair the
// model itself costs least.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tilesight/net/collective_algorithm.h"
#include "tilesight/net/stage_cost.h"
#include "tilesight/util/result.h"

namespace tilesight::net {

struct StageTiming {
  std::string label;
  std::int64_t repeat = 1;  // runs of this stage in a row, evaluated once
  double chunk_bytes = 0;   // bytes per exchange in one run (pipelined stages: the chunk)
  StageCost cost;           // one run
};

struct CollectiveCost {
  Collective collective = Collective::kAllReduce;
  std::string algorithm;
  Protocol protocol = Protocol::kSimple;
  std::size_t ranks = 0;
  double bytes = 0;
  double base_s = 0;   // launch latency of the protocol
  double total_s = 0;  // base + Σ repeat · T_k
  std::int64_t channels = 0;  // NCCL's channels (CTAs per GPU) where the system measures them, else 0
  double send_rate = 0;       // bytes/s those channels send per GPU (0: no channel bound)
  std::vector<StageTiming> stages;

  // nccl-tests' bandwidths: algbw = size / time; busbw = algbw times 2(n-1)/n for
  // all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for send/recv.
  double algbw() const { return total_s > 0 ? bytes / total_s : 0; }
  double busbw() const;
};

CollectiveCost collective_cost(const NetworkHierarchy& net, const CollectiveAlgorithm& algorithm,
                               const CollectiveRequest& request, Protocol protocol);

struct TunerChoice {
  std::optional<std::string> algorithm;  // force one (errors if it cannot run the request)
  std::optional<Protocol> protocol;      // force one
};

// NCCL's (algorithm, protocol) pair, or the one named; errors have the path "params.algorithm"
// when the named algorithm cannot run this collective on this many ranks.
Result<CollectiveCost> tune_collective(const NetworkHierarchy& net, const CollectiveRequest& request,
                                       const TunerChoice& choice = {});

}  // namespace tilesight::net
