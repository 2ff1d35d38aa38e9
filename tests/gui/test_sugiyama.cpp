// The plan editor's layered layout (ui/layout/sugiyama.h) on small graphs whose layers and
// crossings are counted by hand.
#include <QTest>

#include "ui/layout/sugiyama.h"

using namespace tilesight::ui::layout;

class TestSugiyama : public QObject {
  Q_OBJECT

 private slots:
  void longestPathPutsANodeBelowItsDeepestDependency() {
    // 0 -> 1 -> 2 and 0 -> 2: node 2 waits for 1, so it is on layer 2, not 1.
    const auto layers = longest_path_layers(3, {{0, 1}, {1, 2}, {0, 2}});
    QCOMPARE(layers, (std::vector<std::size_t>{0, 1, 2}));
    // Two sources, one sink: both sources on layer 0.
    QCOMPARE(longest_path_layers(3, {{0, 2}, {1, 2}}), (std::vector<std::size_t>{0, 0, 1}));
  }

  void aCycleDoesNotHang() {
    const auto layers = longest_path_layers(3, {{0, 1}, {1, 2}, {2, 1}});
    QCOMPARE(layers.size(), std::size_t{3});
    const auto layout = sugiyama_layout(3, {{0, 1}, {1, 2}, {2, 1}});
    QCOMPARE(layout.position.size(), std::size_t{3});
    QCOMPARE(layout.edge_routes.size(), std::size_t{3});
  }

  void crossingsCountedByHand() {
    // a b c over d e f with a->f, b->e, c->d: every pair of the three edges crosses: 3.
    Layering l;
    l.layer = {0, 0, 0, 1, 1, 1};
    l.rows = {{0, 1, 2}, {3, 4, 5}};
    l.segments = {{0, 5}, {1, 4}, {2, 3}};
    QCOMPARE(count_crossings(l), 3);
    // K3,3 in any order: one crossing per pair of top nodes and pair of bottom nodes: 3*3 = 9.
    l.segments.clear();
    for (std::size_t u = 0; u < 3; ++u)
      for (std::size_t v = 3; v < 6; ++v) l.segments.emplace_back(u, v);
    QCOMPARE(count_crossings(l), 9);
    // Edges sharing an end never cross: a->d, a->e.
    l.segments = {{0, 3}, {0, 4}};
    QCOMPARE(count_crossings(l), 0);
  }

  void barycentreUntanglesAReversedMatching() {
    // Input order gives 3 crossings (above); one sweep orders the bottom row f e d: 0.
    const auto l = reduce_crossings(6, {{0, 5}, {1, 4}, {2, 3}});
    QCOMPARE(count_crossings(l), 0);
    QCOMPARE(l.rows[1], (std::vector<std::size_t>{5, 4, 3}));
  }

  void twoCrossedPairsUntangle() {
    // 0 1 over 2 3, edges 0->3, 1->2, then 2->4, 3->5 below: 1 + 0 crossings as given,
    // 0 after the sweeps.
    const auto l = reduce_crossings(6, {{0, 3}, {1, 2}, {2, 4}, {3, 5}});
    QCOMPARE(count_crossings(l), 0);
  }

  void k33KeepsItsNineCrossings() {
    std::vector<Edge> edges;
    for (std::size_t u = 0; u < 3; ++u)
      for (std::size_t v = 3; v < 6; ++v) edges.push_back({u, v});
    QCOMPARE(sugiyama_layout(6, edges).crossings, 9);
  }

  void longEdgesBendThroughDummyNodes() {
    // A GEMM tile body: load_a, load_b -> mma -> store_c, and load_b -> store_c directly.
    const auto layout = sugiyama_layout(4, {{0, 2}, {1, 2}, {2, 3}, {1, 3}});
    QCOMPARE(layout.layer, (std::vector<std::size_t>{0, 0, 1, 2}));
    QCOMPARE(layout.layer_count, std::size_t{3});
    QCOMPARE(layout.edge_routes[3].size(), std::size_t{3});  // load_b, dummy, store_c
    QCOMPARE(layout.edge_routes[0].size(), std::size_t{2});
    QCOMPARE(layout.crossings, 0);
  }

  void coordinatesKeepNodesApartAndLayersOnRows() {
    const LayoutOptions options{.node_width = 100, .node_gap = 20, .layer_gap = 80};
    const auto layout = sugiyama_layout(5, {{0, 3}, {1, 3}, {2, 4}, {1, 4}}, options);
    for (std::size_t a = 0; a < 5; ++a) {
      QCOMPARE(layout.position[a].y, static_cast<double>(layout.layer[a]) * 80.0);
      for (std::size_t b = a + 1; b < 5; ++b)
        if (layout.layer[a] == layout.layer[b])
          QVERIFY(std::abs(layout.position[a].x - layout.position[b].x) >= 120.0 - 1e-9);
    }
    // The single child of two parents sits between them.
    const auto& p = layout.position;
    QVERIFY(p[3].x >= std::min(p[0].x, p[1].x) - 1e-9 && p[3].x <= std::max(p[0].x, p[1].x) + 1e-9);
  }

  void emptyGraph() {
    const auto layout = sugiyama_layout(0, {});
    QCOMPARE(layout.layer_count, std::size_t{0});
    QVERIFY(layout.position.empty());
  }
};

QTEST_APPLESS_MAIN(TestSugiyama)
#include "test_sugiyama.moc"
