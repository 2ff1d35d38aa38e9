// Legal orders of the tile-action DAG (§3.3): counting them, and the branch-and-bound search
// for the order with the least steady-state cost (eqs. 4-5).
#include "tilesight/model/action_dag.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

namespace tilesight::model {

ActionDag make_action_dag(const plan::TileProgram& program,
                          const std::vector<std::size_t>& actions) {
  // Edges through an action outside the subset are dropped, not made transitive: the subset
  // is one loop's body, and an action outside it ran in an enclosing iteration already.
  std::unordered_map<std::size_t, std::size_t> local;
  for (std::size_t k = 0; k < actions.size(); ++k) local.emplace(actions[k], k);

  ActionDag dag;
  dag.preds.resize(actions.size());
  for (std::size_t k = 0; k < actions.size(); ++k) {
    if (actions[k] >= program.actions.size()) continue;
    auto& preds = dag.preds[k];
    for (std::size_t dep : program.actions[actions[k]].deps) {
      auto it = local.find(dep);
      if (it == local.end()) continue;
      if (std::find(preds.begin(), preds.end(), it->second) == preds.end())
        preds.push_back(it->second);
    }
    std::sort(preds.begin(), preds.end());
  }
  return dag;
}

namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

// Predecessors of each node as a bit mask. A predecessor that does not exist (or the node
// itself) gets a bit no subset ever holds, so the node is never ready.
std::vector<std::uint64_t> pred_masks(const ActionDag& dag) {
  const std::size_t n = dag.size();
  const std::uint64_t never = std::uint64_t{1} << 63;
  std::vector<std::uint64_t> masks(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t p : dag.preds[i])
      masks[i] |= (p < n && p != i) ? (std::uint64_t{1} << p) : never;
  return masks;
}

}  // namespace

OrderCount count_topological_orders(const ActionDag& dag) {
  const std::size_t n = dag.size();
  if (n > kMaxExactCountNodes) return {.count = 0, .exact = false, .saturated = false};

  // orders[S] = number of legal orders of the down-closed set S as a prefix. Every S with
  // orders[S] > 0 extends to at least one complete order, so an overflow anywhere means the
  // total overflows too.
  const std::vector<std::uint64_t> preds = pred_masks(dag);
  const std::size_t states = std::size_t{1} << n;
  std::vector<std::uint64_t> orders(states, 0);
  orders[0] = 1;
  bool saturated = false;
  for (std::size_t set = 0; set < states; ++set) {
    const std::uint64_t ways = orders[set];
    if (ways == 0) continue;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t bit = std::uint64_t{1} << i;
      if ((set & bit) != 0 || (preds[i] & ~std::uint64_t{set}) != 0) continue;
      std::uint64_t& next = orders[set | bit];
      if (next > kSaturated - ways) {
        next = kSaturated;
        saturated = true;
      } else {
        next += ways;
      }
    }
  }
  return {.count = orders[states - 1], .exact = true, .saturated = saturated};
}

namespace {

// DAGs up to this size get their legal-order count in the method text (a 512 KiB table).
constexpr std::size_t kMethodCountNodes = 16;

// The DAG seen forwards: successors of each action, and how many predecessors each waits
// for. An out-of-range or self predecessor is counted but never placed: that action is never
// ready.
struct ForwardDag {
  std::vector<std::vector<std::size_t>> successors;
  std::vector<std::size_t> missing;

  explicit ForwardDag(const ActionDag& dag) : successors(dag.size()), missing(dag.size(), 0) {
    for (std::size_t i = 0; i < dag.size(); ++i)
      for (std::size_t p : dag.preds[i]) {
        ++missing[i];
        if (p < dag.size() && p != i) successors[p].push_back(i);
      }
  }
};

// Depth-first search over legal orders; the ready actions are tried in index order.
class OrderSearch {
 public:
  OrderSearch(const ActionDag& dag, const PrefixCost& cost, const OrderSearchOptions& options)
      : dag_(dag),
        cost_(cost),
        max_orders_(std::max<std::size_t>(options.max_orders, 1)),
        lower_bound_(options.lower_bound),
        max_cost_calls_(max_orders_ > kNoCap / (dag.size() + 1) ? kNoCap
                                                                : max_orders_ * (dag.size() + 1)),
        forward_(dag),
        placed_(dag.size(), false) {}

  OrderSearchResult run();

 private:
  static constexpr std::size_t kNoCap = std::numeric_limits<std::size_t>::max();

  static OrderSearchResult no_order() {
    OrderSearchResult r;
    r.cost = std::numeric_limits<double>::infinity();
    return r;
  }

  enum class Stop { kNone, kLowerBound, kOrderCap, kCostCallCap };

  void extend();
  void complete(double cost);
  std::string method() const;

  const ActionDag& dag_;
  const PrefixCost& cost_;
  const std::size_t max_orders_;
  const double lower_bound_;
  const std::size_t max_cost_calls_;
  ForwardDag forward_;  // forward_.missing: predecessors not yet placed
  std::vector<bool> placed_;
  std::vector<std::size_t> prefix_;

  OrderSearchResult best_ = no_order();
  bool found_ = false;
  std::size_t cost_calls_ = 0;
  std::size_t pruned_ = 0;
  Stop stop_ = Stop::kNone;
};

void OrderSearch::complete(double cost) {
  ++best_.orders_evaluated;
  if (!found_ || cost < best_.cost) {
    found_ = true;
    best_.cost = cost;
    best_.order = prefix_;
  }
  // eq. 5 asks for the minimum; an order at the caller's lower bound is one.
  if (best_.cost <= lower_bound_ + 1e-12 * std::abs(lower_bound_))
    stop_ = Stop::kLowerBound;
  else if (best_.orders_evaluated >= max_orders_)
    stop_ = Stop::kOrderCap;
}

void OrderSearch::extend() {
  for (std::size_t i = 0; i < dag_.size() && stop_ == Stop::kNone; ++i) {
    if (placed_[i] || forward_.missing[i] != 0) continue;
    if (cost_calls_ >= max_cost_calls_) {
      stop_ = Stop::kCostCallCap;
      return;
    }
    placed_[i] = true;
    for (std::size_t s : forward_.successors[i]) --forward_.missing[s];
    prefix_.push_back(i);

    const double cost = cost_(prefix_);
    ++cost_calls_;
    // The cost is monotone in the prefix, so no completion of this prefix can beat the best.
    if (found_ && cost >= best_.cost)
      ++pruned_;
    else if (prefix_.size() == dag_.size())
      complete(cost);
    else
      extend();

    prefix_.pop_back();
    for (std::size_t s : forward_.successors[i]) ++forward_.missing[s];
    placed_[i] = false;
  }
}

std::string OrderSearch::method() const {
  const std::size_t evaluated = best_.orders_evaluated;
  const auto orders = [](std::uint64_t k, const char* what = "order") {
    return std::to_string(k) + " " + what + (k == 1 ? "" : "s");
  };
  const bool counted = dag_.size() <= kMethodCountNodes;
  const std::uint64_t legal = counted ? count_topological_orders(dag_).count : 0;
  switch (stop_) {
    case Stop::kLowerBound:
      return "stopped at the lower bound after " +
             (counted ? std::to_string(evaluated) + " of " + orders(legal, "legal order")
                      : orders(evaluated));
    case Stop::kOrderCap:
      return "capped at " + orders(max_orders_) + " (not exhaustive)";
    case Stop::kCostCallCap:
      return "capped at " + std::to_string(max_cost_calls_) + " prefix evaluations after " +
             orders(evaluated) + " (not exhaustive)";
    case Stop::kNone:
      break;
  }
  if (!counted)
    return "exhaustive branch-and-bound: " + orders(evaluated) + " evaluated, rest pruned";
  if (pruned_ == 0 && legal == evaluated)
    return "exhaustive: all " + orders(legal, "legal order") + " evaluated";
  return "exhaustive branch-and-bound: " + orders(legal, "legal order") + ", " +
         std::to_string(evaluated) + " evaluated, rest pruned";
}

// Kahn's algorithm: whether any legal order exists (false on a cycle or a missing
// predecessor), so the search never wanders through prefixes that cannot complete.
bool has_legal_order(const ActionDag& dag) {
  ForwardDag forward(dag);
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < dag.size(); ++i)
    if (forward.missing[i] == 0) ready.push_back(i);
  std::size_t placed = 0;
  while (!ready.empty()) {
    const std::size_t i = ready.back();
    ready.pop_back();
    ++placed;
    for (std::size_t s : forward.successors[i])
      if (--forward.missing[s] == 0) ready.push_back(s);
  }
  return placed == dag.size();
}

OrderSearchResult OrderSearch::run() {
  if (!has_legal_order(dag_)) {
    best_.method = "no legal order: the action DAG has a cycle";
    return best_;
  }
  if (dag_.size() == 0) {
    ++cost_calls_;
    complete(cost_(prefix_));
  } else {
    extend();
  }
  // An order at the lower bound is provably optimal: the unvisited rest counts as pruned.
  best_.exhaustive = stop_ == Stop::kNone || stop_ == Stop::kLowerBound;
  best_.method = method();
  return best_;
}

}  // namespace

OrderSearchResult best_topological_order(const ActionDag& dag, const PrefixCost& cost,
                                         const OrderSearchOptions& options) {
  return OrderSearch(dag, cost, options).run();
}

}  // namespace tilesight::model
