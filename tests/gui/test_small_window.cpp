// The main window at 1280x800 (a laptop) and at its default 1600x1000, with every example:
// no view forces the window past 1280x800 (the lanes drawn in the timeline's place made it
// 913 px tall, the ulysses form 1314 px wide), the report's utilisation table fits its width,
// the plan editor's tools fit its tool bar and its drawing has the room, the network lanes'
// summary keeps each collective's busbw in view.
#include <QDir>
#include <QDockWidget>
#include <QGraphicsView>
#include <QHeaderView>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>

#include "gui_test_util.h"
#include "ui/elided_lines.h"
#include "ui/format.h"
#include "ui/network_view.h"
#include "ui/plan_editor.h"
#include "ui/report_view.h"
#include "ui/utilization_model.h"

using namespace tilesight;
using namespace tilesight::ui;

namespace {

QString size_text(const QSize& s) {
  return QStringLiteral("%1x%2").arg(s.width()).arg(s.height());
}

// What asks for the room: each dock's and the centre's minimum size.
QString minimum_sizes(MainWindow& window) {
  QStringList parts{
      QStringLiteral("window %1").arg(size_text(window.minimumSizeHint())),
      QStringLiteral("centre %1").arg(size_text(window.centralWidget()->minimumSizeHint()))};
  for (auto* dock : window.findChildren<QDockWidget*>())
    if (dock->isVisible())
      parts << QStringLiteral("%1 %2").arg(dock->windowTitle(), size_text(dock->minimumSizeHint()));
  return parts.join(QStringLiteral(", "));
}

// A window shown at `size`; an invalid size: 1280x800 with the dock `narrow` squeezed to its
// 250 px minimum. Null if the window was never exposed.
std::unique_ptr<MainWindow> shown_window(QSize size, const char* narrow = nullptr) {
  auto window = test::quiet_window();
  window->resize(size.isValid() ? size : QSize(1280, 800));
  window->show();
  if (!QTest::qWaitForWindowExposed(window.get())) return nullptr;
  if (!size.isValid() && narrow) {
    auto* dock = window->findChild<QDockWidget*>(QString::fromLatin1(narrow));
    window->resizeDocks({dock}, {MainWindow::kReportMinWidth}, Qt::Horizontal);
  }
  return window;
}

void open_example(MainWindow& window, const QString& name) {
  test::ResultWaiter wait(window.session());
  window.session().open(test::example(qPrintable(name)), test::example_path(qPrintable(name)));
  QVERIFY2(wait.waitReady(), qPrintable(name));
  QTest::qWait(20);  // the deferred fits after the layout
  QCoreApplication::processEvents();
}

// The tool bar's buttons all on it: no overflow (») menu.
bool tools_fit(PlanEditor& editor) {
  auto* bar = editor.findChild<QToolBar*>();
  if (!bar) return false;
  for (QAction* action : bar->actions()) {
    QWidget* button = bar->widgetForAction(action);
    if (!button || !button->isVisible() || !bar->rect().contains(button->geometry())) return false;
  }
  auto* more = bar->findChild<QToolButton*>(QStringLiteral("qt_toolbar_ext_button"));
  return !more || !more->isVisible();
}

}  // namespace

class SmallWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void everyExampleFitsA1280x800Window() {
    auto window = shown_window(QSize(1280, 800));
    QVERIFY(window);
    const QStringList examples =
        QDir(QFileInfo(test::example_path()).absolutePath())
            .entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    QVERIFY(examples.size() >= 20);
    for (const QString& name : examples) {
      open_example(*window, name);
      const QSize min = window->minimumSizeHint();
      QVERIFY2(min.width() <= 1280 && min.height() <= 800,
               qPrintable(name + ": " + minimum_sizes(*window)));
      QVERIFY2(window->size() == QSize(1280, 800),
               qPrintable(name + ": " + size_text(window->size()) + "; " + minimum_sizes(*window)));
    }
  }

  // The report's three columns fit its table, the bars keep their minimum width and each name
  // fits its column: whole names in the default layouts of 1600x1000 and 1280x800 (the report
  // 440 and 352 px wide), the timeline's lane names (SMEM, L2) in a report narrowed to its
  // minimum, 250 px (the utilisation column was cut off there).
  void theUtilisationTableFitsTheReport() {
    for (const QSize size : {QSize(1280, 800), QSize(1600, 1000), QSize()}) {
      auto window = shown_window(size, "report");
      QVERIFY(window);
      const bool narrowed = !size.isValid();
      for (const char* name : {"gemm_h200.json", "attention_fa4_b200.json"}) {
        open_example(*window, name);
        ReportView* report = window->reportView();
        if (narrowed) QCOMPARE(report->width(), MainWindow::kReportMinWidth);
        QTableView* table = report->utilizationTable();
        QHeaderView* header = table->horizontalHeader();
        const QString where = QStringLiteral("%1 at %2")
                                  .arg(name, narrowed ? QStringLiteral("250 px") : size_text(size));
        int sum = 0;
        for (int c = 0; c < header->count(); ++c) sum += header->sectionSize(c);
        QVERIFY2(sum <= table->viewport()->width(),
                 qPrintable(QStringLiteral("%1: columns %2 px in %3")
                                .arg(where)
                                .arg(sum)
                                .arg(table->viewport()->width())));
        QVERIFY2(header->sectionSize(UtilizationModel::kUtilization) >= report->minimumBarsWidth(),
                 qPrintable(QStringLiteral("%1: %2 + %3 + %4 px in %5, bars at least %6")
                                .arg(where)
                                .arg(header->sectionSize(0))
                                .arg(header->sectionSize(1))
                                .arg(header->sectionSize(2))
                                .arg(table->viewport()->width())
                                .arg(report->minimumBarsWidth())));
        const QFontMetrics header_fm(header->font());
        QVERIFY2(header_fm.horizontalAdvance(QStringLiteral("Utilisation")) <
                     header->sectionSize(UtilizationModel::kUtilization),
                 qPrintable(where));
        UtilizationModel* model = report->utilizationModel();
        QCOMPARE(model->shortNames(), narrowed);
        QFont bold = table->font();
        bold.setBold(true);
        for (int row = 0; row < model->rowCount(); ++row) {
          const QString text = model->index(row, UtilizationModel::kResource).data().toString();
          QVERIFY2(QFontMetrics(bold).horizontalAdvance(text) + 6 <=
                       header->sectionSize(UtilizationModel::kResource),
                   qPrintable(where + ": " + text));
          const QString tip =
              model->index(row, UtilizationModel::kResource).data(Qt::ToolTipRole).toString();
          QVERIFY2(tip.startsWith(to_qstring(resource_label(model->resourceAt(row)))),
                   qPrintable(tip));
        }
      }
    }
  }

  // The plan editor's tools on its tool bar, none in an overflow menu: words where the dock
  // has room (the default layouts), icons in a dock narrowed to 250 px (Overview and Fit went
  // into a » menu). Its drawing has most of the dock until an action is selected (the empty
  // form took 190 of 440 px); then the form opens under it.
  void thePlanEditorsToolsAndDrawingFit() {
    for (const QSize size : {QSize(1280, 800), QSize(1600, 1000), QSize()}) {
      auto window = shown_window(size, "plan_editor");
      QVERIFY(window);
      const bool narrowed = !size.isValid();
      open_example(*window, "attention_prefill_h200.json");
      PlanEditor* editor = window->planEditor();
      const QString where = narrowed ? QStringLiteral("250 px") : size_text(size);
      if (narrowed) QCOMPARE(editor->width(), MainWindow::kReportMinWidth);
      QVERIFY2(tools_fit(*editor), qPrintable(where));
      auto* bar = editor->findChild<QToolBar*>();
      QCOMPARE(bar->toolButtonStyle(), narrowed ? Qt::ToolButtonIconOnly : Qt::ToolButtonTextOnly);
      QCOMPARE(editor->selectedAction(), QString());
      const int view = editor->view()->height();
      QVERIFY2(view >= editor->height() * 6 / 10,
               qPrintable(QStringLiteral("%1: drawing %2 of %3 px")
                              .arg(where)
                              .arg(view)
                              .arg(editor->height())));
      editor->selectAction(QStringLiteral("load_q"));
      QTest::qWait(20);
      QVERIFY2(editor->view()->height() < view, qPrintable(where));  // the form opened
      QVERIFY2(editor->view()->height() >= editor->height() / 3,
               qPrintable(QStringLiteral("%1: drawing %2 of %3 px")
                              .arg(where)
                              .arg(editor->view()->height())
                              .arg(editor->height())));
      editor->selectAction(QString());
      QTest::qWait(20);
      QCOMPARE(editor->view()->height(), view);
    }
  }

  // In the 233 px network dock of a 1280x800 window, each collective's line keeps its busbw
  // whole ("2 × all_reduce 512 KiB on 8 …" lost it) and its name where that fits too: the
  // middle of the line (size, GPUs, algorithm) gives way first.
  void networkSummaryKeepsTheBusBandwidth() {
    auto window = shown_window(QSize(1280, 800));
    QVERIFY(window);
    for (const char* name :
         {"ulysses_h200x8.json", "llm_decode_moe_h200x8.json", "all_reduce_h200x8.json"}) {
      open_example(*window, name);
      ElidedLines* summary = window->networkView()->summary();
      const auto& lines = summary->lines();
      QVERIFY(!lines.isEmpty());
      int collectives = 0;
      for (int i = 0; i < lines.size(); ++i) {
        const QString shown = summary->shownText(i);
        QVERIFY2(summary->fontMetrics().horizontalAdvance(shown) <= summary->width(),
                 qPrintable(shown));
        QVERIFY2(summary->toolTip().contains(lines[i].full().toHtmlEscaped()),
                 qPrintable(lines[i].full()));
        if (lines[i].tail.isEmpty()) continue;
        ++collectives;
        QVERIFY2(shown.endsWith(lines[i].tail),
                 qPrintable(QStringLiteral("%1: %2").arg(name, shown)));
        // The collective's name whole wherever it and the busbw fit: a count before it ("2 ×
        // all_to_all") can leave room for "2 × all_to_…" only.
        QFont bold = summary->font();
        bold.setBold(true);
        if (QFontMetrics(bold).horizontalAdvance(lines[i].lead + QChar(0x2026) + lines[i].tail) +
                14 <=
            summary->width())
          QVERIFY2(shown.startsWith(lines[i].lead),
                   qPrintable(QStringLiteral("%1: %2").arg(name, shown)));
        QVERIFY2(lines[i].lead.contains(QStringLiteral("all_")), qPrintable(lines[i].lead));
        QVERIFY2(lines[i].tail.contains(QStringLiteral("busbw")) &&
                     lines[i].tail.endsWith(QStringLiteral("GB/s")),
                 qPrintable(lines[i].tail));
      }
      QVERIFY2(collectives >= 1, name);
    }
  }
};

QTEST_MAIN(SmallWindowTest)
#include "test_small_window.moc"
