// Remote tensor accesses inferred from placement (§3.6, issue 7): what moving a tensor from
// where its producer leaves it to where its consumer needs it takes, as logical exchanges
// (s, d, b), and the collective they form when they form one.
//
//   produced            consumed               exchanges (n devices, S bytes)   collective
//   sharded on dim i    replicated             n(n-1) of S/n                    all_gather (S)
//   sharded on dim i    sharded on dim j != i  n(n-1) of S/n^2                  all_to_all (S/n)
//   partial             sharded                n(n-1) of S/n                    reduce_scatter (S)
//   partial             replicated             n(n-1) of S                      all_reduce (S)
//   anything            what it already holds  none
//   one device          one other device       1 of S                           send_recv (S)
//
// Sizes in parentheses are nccl-tests' "size" (DESIGN.md). A device that needs a replicated
// tensor it does not hold takes equal parts from every holder. Exchanges that form no
// collective are one stage of point-to-point transfers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tilesight/net/collective_cost.h"
#include "tilesight/net/distributed_tile_map.h"

namespace tilesight::net {

struct RemoteAccess {
  std::vector<Exchange> exchanges;  // src and dst are system device indices
  // "none", "send_recv", "all_gather", "all_to_all", "reduce_scatter", "all_reduce", or
  // "exchanges" (point-to-point transfers that form no collective)
  std::string pattern = "none";
  std::optional<CollectiveRequest> collective;
  double bytes() const;  // Σ exchange bytes
};

// Errors: a consumer that needs partial sums ("consumed.kind"), a sharded consumer of a
// different group size than a partial producer's, a device index past the system.
Result<RemoteAccess> infer_remote_access(const TensorShape& tensor, const Placement& produced,
                                         const Placement& consumed);

// Seconds on `net`: the tuned collective, or one launch plus one stage of the exchanges
// (eq. 11, Simple), or 0 for none.
Result<double> remote_access_seconds(const NetworkHierarchy& net, const RemoteAccess& access);

}  // namespace tilesight::net
