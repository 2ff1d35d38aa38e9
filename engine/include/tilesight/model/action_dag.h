// The dependency DAG of tile actions (§3.3) and its legal topological orders (eqs. 4-5).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tilesight/plan/tile_program.h"

namespace tilesight::model {

struct ActionDag {
  std::vector<std::vector<std::size_t>> preds;  // preds[i]: actions that must precede i

  std::size_t size() const { return preds.size(); }
};

// The sub-DAG induced by `actions` (indices into program.actions, e.g. the actions of one
// loop), re-indexed 0..k-1 in the given order. Only edges between two actions of the subset
// are kept; duplicate and out-of-range deps are dropped.
ActionDag make_action_dag(const plan::TileProgram& program,
                          const std::vector<std::size_t>& actions);

// Number of legal topological orders. Exact (bitmask dynamic programming over the subsets of
// already-placed actions) for DAGs of up to kMaxExactCountNodes actions; saturates at
// UINT64_MAX when the count overflows. Larger DAGs return count 0 with `exact = false`.
// A DAG with a cycle has no legal order: count 0, exact.
struct OrderCount {
  std::uint64_t count = 0;
  bool exact = true;       // false: the DAG was too large to count
  bool saturated = false;  // true: count exceeds 2^64 - 1 and was clamped
};

// The table holds one uint64 per subset: 2^22 * 8 B = 32 MiB at the limit (24 would need
// 128 MiB and seconds in a Debug build, too much for a step inside a cost model).
inline constexpr std::size_t kMaxExactCountNodes = 22;

OrderCount count_topological_orders(const ActionDag& dag);

// Cost of a prefix of an order. Must be monotone: extending a prefix never lowers its cost
// (this is what lets branch-and-bound prune).
using PrefixCost = std::function<double(const std::vector<std::size_t>& prefix)>;

struct OrderSearchOptions {
  std::size_t max_orders = 50000;  // complete orders evaluated before the search stops
  double lower_bound = 0;          // no order can cost less: stop as soon as one reaches it
};

struct OrderSearchResult {
  std::vector<std::size_t> order;  // the best legal order found
  double cost = 0;
  std::size_t orders_evaluated = 0;  // complete orders whose cost was computed
  bool exhaustive = true;            // every legal order was either evaluated or pruned
  std::string method;                // for the report, e.g. "branch-and-bound, 132 orders, exhaustive"
};

// Depth-first enumeration of legal orders with branch-and-bound on the prefix cost; stops at
// the lower bound or after max_orders complete orders (then exhaustive = false). The cost is
// also called at most max_orders * (size() + 1) times, so a search whose complete orders are
// all pruned at the last step still ends (exhaustive = false). A DAG with a cycle gives an
// empty order with infinite cost.
OrderSearchResult best_topological_order(const ActionDag& dag, const PrefixCost& cost,
                                         const OrderSearchOptions& options = {});

}  // namespace tilesight::model
