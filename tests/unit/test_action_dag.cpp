// Legal orders of the tile-action DAG (§3.3, eqs. 4-5): counts checked against closed forms,
// and the branch-and-bound search against brute force.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "tilesight/model/action_dag.h"
#include "tilesight/plan/tile_program.h"

using tilesight::model::ActionDag;
using tilesight::model::best_topological_order;
using tilesight::model::count_topological_orders;
using tilesight::model::OrderSearchOptions;
using tilesight::model::PrefixCost;

namespace {

ActionDag antichain(std::size_t n) {
  return ActionDag{std::vector<std::vector<std::size_t>>(n)};
}

ActionDag chain(std::size_t n) {
  ActionDag dag = antichain(n);
  for (std::size_t i = 1; i < n; ++i) dag.preds[i] = {i - 1};
  return dag;
}

// Chain 0..a-1 and chain a..a+b-1, no edges between them.
ActionDag two_chains(std::size_t a, std::size_t b) {
  ActionDag dag = antichain(a + b);
  for (std::size_t i = 1; i < a; ++i) dag.preds[i] = {i - 1};
  for (std::size_t i = a + 1; i < a + b; ++i) dag.preds[i] = {i - 1};
  return dag;
}

// 2 x n grid: node (r, c) = r * n + c depends on (r, c - 1) and (r - 1, c).
ActionDag grid_2xn(std::size_t n) {
  ActionDag dag = antichain(2 * n);
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      auto& preds = dag.preds[r * n + c];
      if (c > 0) preds.push_back(r * n + c - 1);
      if (r > 0) preds.push_back((r - 1) * n + c);
    }
  return dag;
}

// Position-weighted sum: the k-th action (1-based) adds k * weight. Monotone in the prefix
// for non-negative weights; the best order puts heavy actions first.
PrefixCost weighted_position_cost(std::vector<double> weights) {
  return [weights](const std::vector<std::size_t>& prefix) {
    double cost = 0;
    for (std::size_t k = 0; k < prefix.size(); ++k)
      cost += static_cast<double>(k + 1) * weights[prefix[k]];
    return cost;
  };
}

// Brute force: the cost of every legal order, by plain recursion without pruning.
void all_order_costs(const ActionDag& dag, const PrefixCost& cost, std::vector<std::size_t>& prefix,
                     std::vector<bool>& placed, std::vector<double>& out) {
  if (prefix.size() == dag.size()) {
    out.push_back(cost(prefix));
    return;
  }
  for (std::size_t i = 0; i < dag.size(); ++i) {
    if (placed[i]) continue;
    bool ready = true;
    for (std::size_t p : dag.preds[i]) ready = ready && placed[p];
    if (!ready) continue;
    placed[i] = true;
    prefix.push_back(i);
    all_order_costs(dag, cost, prefix, placed, out);
    prefix.pop_back();
    placed[i] = false;
  }
}

std::uint64_t factorial(std::uint64_t n) {
  return n <= 1 ? 1 : n * factorial(n - 1);
}

}  // namespace

TEST_CASE("count_topological_orders: closed forms", "[model]") {
  CHECK(count_topological_orders(antichain(0)).count == 1);
  for (std::size_t n = 1; n <= 12; ++n) CHECK(count_topological_orders(chain(n)).count == 1);
  for (std::size_t n = 1; n <= 10; ++n)
    CHECK(count_topological_orders(antichain(n)).count == factorial(n));

  // Interleavings of two chains: C(a + b, a); C(7, 3) = 35.
  CHECK(count_topological_orders(two_chains(3, 4)).count == 35);
  CHECK(count_topological_orders(two_chains(1, 1)).count == 2);

  // Linear extensions of a 2 x n grid are the Catalan numbers: 2x3 -> 5; 2x6 -> 132, the
  // count the paper reports for MLA decode (§3.4).
  CHECK(count_topological_orders(grid_2xn(3)).count == 5);
  CHECK(count_topological_orders(grid_2xn(6)).count == 132);

  ActionDag diamond{{{}, {0}, {0}, {1, 2}}};  // a -> {b, c} -> d
  CHECK(count_topological_orders(diamond).count == 2);
}

TEST_CASE("count_topological_orders: limits", "[model]") {
  // 20! = 2432902008176640000 < 2^64 - 1 ≈ 1.8e19: exact.
  const auto twenty = count_topological_orders(antichain(20));
  CHECK(twenty.count == 2432902008176640000ULL);
  CHECK(twenty.exact);
  CHECK_FALSE(twenty.saturated);

  // 21! ≈ 5.1e19 > 2^64 - 1: clamped.
  const auto twenty_one = count_topological_orders(antichain(21));
  CHECK(twenty_one.exact);
  CHECK(twenty_one.saturated);
  CHECK(twenty_one.count == std::numeric_limits<std::uint64_t>::max());

  const auto too_big = count_topological_orders(antichain(25));
  CHECK_FALSE(too_big.exact);
  CHECK(too_big.count == 0);
  CHECK_FALSE(count_topological_orders(chain(tilesight::model::kMaxExactCountNodes + 1)).exact);

  ActionDag cycle{{{1}, {0}, {}}};
  CHECK(count_topological_orders(cycle).count == 0);
  ActionDag missing_pred{{{7}, {}}};
  CHECK(count_topological_orders(missing_pred).count == 0);
}

TEST_CASE("make_action_dag keeps the edges inside the subset", "[model]") {
  tilesight::plan::TileProgram program;
  program.actions.resize(5);
  program.actions[1].deps = {0};        // 0 is outside the subset: dropped
  program.actions[2].deps = {1, 1};     // duplicate
  program.actions[3].deps = {2, 1, 9};  // 9 does not exist: dropped
  const ActionDag dag = tilesight::model::make_action_dag(program, {3, 1, 2});
  REQUIRE(dag.size() == 3);
  // Re-indexed in the given order: 3 -> 0, 1 -> 1, 2 -> 2.
  CHECK(dag.preds[0] == std::vector<std::size_t>{1, 2});
  CHECK(dag.preds[1].empty());
  CHECK(dag.preds[2] == std::vector<std::size_t>{1});
  CHECK(count_topological_orders(dag).count == 1);  // 1, 2, 3
}

TEST_CASE("best_topological_order finds the preferred order", "[model]") {
  // Heavy actions first: weights {1, 4, 2, 3} -> order 1, 3, 2, 0; cost 1*4 + 2*3 + 3*2 + 4*1.
  const auto result = best_topological_order(antichain(4), weighted_position_cost({1, 4, 2, 3}));
  CHECK(result.order == std::vector<std::size_t>{1, 3, 2, 0});
  CHECK(result.cost == Approx(20));
  CHECK(result.exhaustive);
  CHECK(result.orders_evaluated <= 24);

  // Diamond: c (2) is heavier than b (1), so it goes first although b has the lower index.
  ActionDag diamond{{{}, {0}, {0}, {1, 2}}};
  const auto d = best_topological_order(diamond, weighted_position_cost({1, 1, 5, 1}));
  CHECK(d.order == std::vector<std::size_t>{0, 2, 1, 3});
  CHECK(d.exhaustive);
}

TEST_CASE("best_topological_order prunes a 2x6 grid", "[model]") {
  const ActionDag dag = grid_2xn(6);
  const PrefixCost cost =
      weighted_position_cost({1, 3, 2, 5, 1, 4, 6, 2, 7, 1, 3, 2});  // row 0, then row 1
  std::vector<std::size_t> prefix;
  std::vector<bool> placed(dag.size(), false);
  std::vector<double> costs;
  all_order_costs(dag, cost, prefix, placed, costs);
  REQUIRE(costs.size() == 132);

  const auto result = best_topological_order(dag, cost);
  CHECK(result.cost == Approx(*std::min_element(costs.begin(), costs.end())));
  CHECK(result.exhaustive);
  CHECK(result.orders_evaluated < 132);
  CHECK(cost(result.order) == Approx(result.cost));
  CHECK_THAT(result.method, Catch::StartsWith("exhaustive branch-and-bound: 132 legal orders"));
  CHECK_THAT(result.method, Catch::EndsWith("evaluated, rest pruned"));
}

TEST_CASE("best_topological_order: a constant cost evaluates every order once", "[model]") {
  // Nothing beats the first order, but nothing is strictly worse before the end either: each
  // later complete order ties and is pruned at its last action.
  const auto result = best_topological_order(
      grid_2xn(3), [](const std::vector<std::size_t>& p) { return p.empty() ? 0.0 : 1.0; },
      {.max_orders = 100, .lower_bound = 0.5});
  CHECK(result.orders_evaluated == 1);
  CHECK(result.exhaustive);
  CHECK(result.method == "exhaustive branch-and-bound: 5 legal orders, 1 evaluated, rest pruned");

  const auto all =
      best_topological_order(grid_2xn(3), [](const std::vector<std::size_t>&) { return -1.0; },
                             {.max_orders = 100, .lower_bound = -2});
  CHECK(all.orders_evaluated == 1);  // -1 >= -1: ties prune
}

TEST_CASE("best_topological_order: the cap stops a 40-action antichain", "[model]") {
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> weights(40);
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<double>(i + 1);
  const auto capped = best_topological_order(antichain(40), weighted_position_cost(weights),
                                             {.max_orders = 200, .lower_bound = 0});
  CHECK_FALSE(capped.exhaustive);
  CHECK(capped.orders_evaluated <= 200);
  CHECK(capped.order.size() == 40);
  CHECK_THAT(capped.method, Catch::StartsWith("capped at "));
  CHECK_THAT(capped.method, Catch::EndsWith("(not exhaustive)"));

  // Every complete order after the first ties and is pruned at its last action, so only the
  // bound on cost calls can stop this one.
  const auto tied = best_topological_order(
      antichain(40),
      [](const std::vector<std::size_t>& p) { return static_cast<double>(p.size()); },
      {.max_orders = 200, .lower_bound = 0});
  CHECK_FALSE(tied.exhaustive);
  CHECK(tied.orders_evaluated == 1);
  CHECK(tied.method == "capped at 8200 prefix evaluations after 1 order (not exhaustive)");

  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
  CHECK(seconds.count() < 5.0);
}

TEST_CASE("best_topological_order stops at the lower bound", "[model]") {
  // Weights already in decreasing order: the first order tried (index order) is the best,
  // 1*5 + 2*4 + 3*3 + 4*2 + 5*1 = 35.
  const auto result = best_topological_order(antichain(5), weighted_position_cost({5, 4, 3, 2, 1}),
                                             {.max_orders = 50000, .lower_bound = 35});
  CHECK(result.orders_evaluated == 1);
  CHECK(result.cost == Approx(35));
  CHECK(result.exhaustive);
  CHECK(result.method == "stopped at the lower bound after 1 of 120 legal orders");
}

TEST_CASE("best_topological_order: empty DAG, full enumeration, cycle", "[model]") {
  const auto empty = best_topological_order(antichain(0), weighted_position_cost({}),
                                            {.max_orders = 10, .lower_bound = -1});
  CHECK(empty.order.empty());
  CHECK(empty.orders_evaluated == 1);
  CHECK(empty.exhaustive);

  // Partial prefixes cost nothing and each complete order, in the lexicographic order DFS
  // visits them, is cheaper than the one before: nothing can be pruned.
  const auto all = best_topological_order(antichain(3),
                                          [](const std::vector<std::size_t>& p) {
                                            if (p.size() < 3) return -1e9;
                                            return -static_cast<double>(p[0] * 9 + p[1] * 3 + p[2]);
                                          },
                                          {.max_orders = 100, .lower_bound = -1e9});
  CHECK(all.order == std::vector<std::size_t>{2, 1, 0});
  CHECK(all.orders_evaluated == 6);
  CHECK(all.method == "exhaustive: all 6 legal orders evaluated");

  // The same cost on 4 actions (24 orders) with room for 10: the order cap stops it.
  const auto capped =
      best_topological_order(antichain(4),
                             [](const std::vector<std::size_t>& p) {
                               if (p.size() < 4) return -1e9;
                               return -static_cast<double>(p[0] * 64 + p[1] * 16 + p[2] * 4 + p[3]);
                             },
                             {.max_orders = 10, .lower_bound = -1e9});
  CHECK(capped.orders_evaluated == 10);
  CHECK_FALSE(capped.exhaustive);
  CHECK(capped.method == "capped at 10 orders (not exhaustive)");

  ActionDag cycle{{{1}, {0}}};
  const auto none = best_topological_order(cycle, weighted_position_cost({1, 1}));
  CHECK(none.order.empty());
  CHECK(none.orders_evaluated == 0);
  CHECK(none.method == "no legal order: the action DAG has a cycle");
}
