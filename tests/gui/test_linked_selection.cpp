// Linked selection between the plan editor and the timeline: selecting an action in the DAG
// outlines its bars; clicking a bar selects its action in the DAG.
#include <qcustomplot.h>

#include <QtTest>
#include <algorithm>

#include "gui_test_util.h"
#include "ui/main_window.h"
#include "ui/plan_editor.h"
#include "ui/timeline_view.h"

using namespace tilesight;
using namespace tilesight::ui;

class LinkedSelectionTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    window_ = std::make_unique<MainWindow>(MainWindowOptions{.persist = false});
    window_->resize(1400, 900);
    window_->show();
    test::ResultWaiter wait(window_->session());
    window_->session().open(test::example(), test::example_path());
    QVERIFY(wait.waitReady());
  }
  void cleanupTestCase() { window_.reset(); }

  void selectingInTheDagHighlightsBars() {
    window_->planEditor()->selectAction(QStringLiteral("mma"));
    QCOMPARE(window_->timelineView()->highlightedAction(), QStringLiteral("mma"));
    QVERIFY(window_->timelineView()->highlightedBarCount() > 0);
    window_->planEditor()->selectAction(QString());
    QCOMPARE(window_->timelineView()->highlightedBarCount(), 0);
  }

  void clickingABarSelectsItsAction() {
    TimelineView* timeline = window_->timelineView();
    timeline->plot()->replot();
    const auto& events = window_->session().prediction()->timeline;
    const auto& e = events.front();
    const QPointF centre(
        timeline->plot()->xAxis->coordToPixel(timeline->fold().to_view((e.start_us + e.end_us) / 2)),
        timeline->plot()->yAxis->coordToPixel(static_cast<double>(
            std::find(timeline->lanes().begin(), timeline->lanes().end(), e.resource) - timeline->lanes().begin())));
    const auto hit = timeline->eventAt(centre);
    QVERIFY(hit);
    timeline->clickAt(centre);
    const QString action = QString::fromStdString(events[*hit].action);
    QCOMPARE(window_->planEditor()->selectedAction(), action);
    QCOMPARE(timeline->highlightedAction(), action);
  }
};

QTEST_MAIN(LinkedSelectionTest)
#include "test_linked_selection.moc"
