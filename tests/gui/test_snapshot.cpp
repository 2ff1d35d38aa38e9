// The screenshot path: the window with every view populated, written as a non-empty PNG.
#include <qcustomplot.h>

#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include "gui_test_util.h"
#include "ui/envelope_view.h"
#include "ui/heatmap_view.h"
#include "ui/main_window.h"
#include "ui/network_view.h"
#include "ui/report_view.h"
#include "ui/snapshot.h"
#include "ui/timeline_view.h"

using namespace tilesight::ui;

class SnapshotTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void writesANonEmptyPngWithEveryViewPopulated() {
    MainWindow window({.persist = false});
    window.session().open(test::example(), test::example_path());
    window.show();
    QVERIFY(wait_for_result(window.session(), test::kTimeoutMs));
    QVERIFY(!window.reportView()->latencyText().isEmpty());
    QVERIFY(window.timelineView()->barCount() > 0);
    QVERIFY(window.envelopeView()->stackCount() > 0);
    QVERIFY(window.heatmapView()->cellCount() > 0 || !window.heatmapView()->message().isEmpty());
    QCOMPARE(window.networkView()->headline(), QString("no cross-device traffic"));
    // In the default layout the envelope's legend gets the width its names need (no
    // "prologu", "steady sta").
    window.envelopeView()->plot()->replot();
    QCPLegend* legend = window.envelopeView()->plot()->legend;
    for (int i = 0; i < legend->itemCount(); ++i) {
      auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
      QVERIFY(item);
      const QCPLayoutElement* element = item;  // the hint is public on the base
      QVERIFY2(item->outerRect().width() >= element->minimumOuterSizeHint().width(),
               qPrintable(QString("%1: %2 < %3").arg(item->plottable()->name()).arg(item->outerRect().width())
                              .arg(element->minimumOuterSizeHint().width())));
    }

    QTemporaryDir dir;
    const QString png = dir.filePath("window.png");
    QCOMPARE(write_snapshot(window, png), QString());
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 1400 && image.height() >= 900);
    QVERIFY(QFileInfo(png).size() > 10000);
  }

  // With TILESIGHT_SNAPSHOT_DIR set, also writes the states a reviewer should look at: a bad
  // edit over the last good prediction, the prologue zoomed in, and a full tile program.
  void writesReviewSnapshotsOnRequest() {
    const QString dir = qEnvironmentVariable("TILESIGHT_SNAPSHOT_DIR");
    if (dir.isEmpty()) QSKIP("set TILESIGHT_SNAPSHOT_DIR to write review snapshots");
    MainWindow window({.persist = false});
    window.session().open(test::example(), test::example_path());
    window.show();
    QVERIFY(wait_for_result(window.session(), test::kTimeoutMs));
    window.timelineView()->zoomTo(0, 1.5);
    QCOMPARE(write_snapshot(window, dir + "/prologue.png"), QString());
    auto bad = window.session().plan();
    bad["params"]["block_n"] = 512;
    bad["params"]["stages"] = 6;
    test::ResultWaiter waiter(window.session());
    window.session().edit(bad);
    QVERIFY(waiter.waitFailed());
    QCOMPARE(write_snapshot(window, dir + "/bad_edit.png"), QString());
    test::ResultWaiter program(window.session());
    window.session().open(test::example("custom_attention_h200.json"),
                          test::example_path("custom_attention_h200.json"));
    QVERIFY(program.waitReady());
    QCoreApplication::processEvents();
    QCOMPARE(write_snapshot(window, dir + "/tile_program.png"), QString());
  }
};

QTEST_MAIN(SnapshotTest)
#include "test_snapshot.moc"
