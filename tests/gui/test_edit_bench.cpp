// `tilesight --bench-edit`: the statistics (hand-computed) and a short run on the default
// example that yields every row. No timing is asserted (speed is measured, not unit-tested).
#include <QtTest>

#include "gui_test_util.h"
#include "ui/edit_bench.h"
#include "ui/main_window.h"

using namespace tilesight::ui;

class EditBenchTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void statsAreMedianNearestRankP95AndMax() {
    // 1..20: median (10 + 11) / 2; p95 the 19th of 20 (nearest rank ceil(0.95 * 20) = 19).
    std::vector<double> ms;
    for (int i = 20; i >= 1; --i) ms.push_back(i);
    const auto s = latency_stats(ms);
    QCOMPARE(s.median, 10.5);
    QCOMPARE(s.p95, 19.0);
    QCOMPARE(s.max, 20.0);
    const auto one = latency_stats({7.0});
    QCOMPARE(one.median, 7.0);
    QCOMPARE(one.p95, 7.0);
    QCOMPARE(latency_stats({}).max, 0.0);
  }

  void aShortRunGivesEveryRowAndLeavesThePlanEdited() {
    MainWindow window(MainWindowOptions{.persist = false});
    test::ResultWaiter waiter(window.session());
    window.session().open(test::example(), test::example_path());
    QVERIFY(waiter.waitReady());
    window.show();
    QString error;
    const auto rows = bench_edits(window, 3, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const auto row = [&](const char* what) -> const EditBenchRow* {
      for (const auto& r : rows)
        if (r.what.trimmed() == QLatin1String(what)) return &r;
      return nullptr;
    };
    // The stages, every view's share of the update, the two totals, each view alone.
    for (const char* what : {"edit itself (undo, panel, DAG)", "engine (worker thread)", "views' setPrediction",
                             "report", "timeline", "envelope", "heatmap", "network", "plan editor", "what-if",
                             "config panel", "frame: layout + paint", "lone edit -> painted",
                             "end of a burst -> painted (debounce)", "report alone (set, layout, paint; CPU)",
                             "timeline alone (set, layout, paint; CPU)"})
      QVERIFY2(row(what), what);
    for (const auto& r : rows)
      QVERIFY2(r.stats.median >= 0 && r.stats.median <= r.stats.p95 && r.stats.p95 <= r.stats.max,
               qPrintable(r.what));
    for (const char* what : {"views' setPrediction", "lone edit -> painted", "report", "timeline"})
      QVERIFY2(row(what)->stats.median > 0, what);
    // The end of a burst waits for the debounce interval after the burst's first run.
    QVERIFY(row("end of a burst -> painted (debounce)")->stats.median >= 0.8 * window.session().debounceMs());
    QCOMPARE(window.session().undoStack().count(), 1);  // typed edits of one label: merged
    QVERIFY(format_edit_bench(rows).contains("lone edit -> painted"));
  }
};

QTEST_MAIN(EditBenchTest)
#include "test_edit_bench.moc"
