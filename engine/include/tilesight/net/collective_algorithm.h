// Collective algorithms as stage decompositions (STYLE.md rule 5: one small piece each). Each
// turns a request into ordered stages of logical exchanges; the routed cost is the stage
// cost's business (stage_cost.h), the choice the tuner's (collective_cost.h).
//
//   algorithm            collectives                          stages (n ranks, S bytes)
//   ring                 all_gather, reduce_scatter           n-1 of S/n
//                        all_reduce                           2(n-1) of S/n
//   tree                 all_reduce (double binary tree)      pipelined, 2 log2 n levels
//   recursive_doubling   all_reduce / all_gather (n = 2^k)    log2 n of S / of S·2^i/n
//   rabenseifner         all_reduce (n = 2^k)                 halving then doubling
//   recursive_halving    reduce_scatter (n = 2^k)             log2 n of S/2^(i+1)
//   direct               all_to_all                           1 of n(n-1) transfers of S/n
//   pairwise             all_to_all                           n-1 of S/n
//   p2p                  send_recv                            1 of S
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "tilesight/net/exchange.h"

namespace tilesight::net {

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual std::string_view name() const = 0;
  virtual bool supports(Collective c, std::size_t ranks) const = 0;
  virtual std::vector<Stage> stages(const CollectiveRequest& r) const = 0;
  // NCCL implements it (ring, tree, direct all-to-all, p2p): the tuner chooses among these,
  // as NCCL does; the others (MPI's classics) run when a plan names them.
  virtual bool in_nccl() const { return false; }
};

std::unique_ptr<CollectiveAlgorithm> make_ring();
std::unique_ptr<CollectiveAlgorithm> make_double_binary_tree();
std::unique_ptr<CollectiveAlgorithm> make_recursive_doubling();
std::unique_ptr<CollectiveAlgorithm> make_recursive_halving();
std::unique_ptr<CollectiveAlgorithm> make_rabenseifner();
std::unique_ptr<CollectiveAlgorithm> make_direct_all_to_all();
std::unique_ptr<CollectiveAlgorithm> make_pairwise_all_to_all();
std::unique_ptr<CollectiveAlgorithm> make_point_to_point();

// Every algorithm, in the order above.
const std::vector<std::unique_ptr<CollectiveAlgorithm>>& all_algorithms();
const CollectiveAlgorithm* find_algorithm(std::string_view name);
std::vector<std::string_view> algorithm_names();

inline bool is_power_of_two(std::size_t n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace tilesight::net
