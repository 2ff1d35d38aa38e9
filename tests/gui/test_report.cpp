// The report's words: sizes in binary units with their IEC names wherever the app prints
// them (the DAG's tile bytes, the report's DRAM traffic, the network headline, the byte
// fields), and no rows of zeros for what a plan does not have (a collective's throughput
// and cache).
#include <QHeaderView>
#include <QTableView>
#include <QtTest>

#include "gui_test_util.h"
#include "ui/bytes_spin_box.h"
#include "ui/elided_lines.h"
#include "ui/format.h"
#include "ui/network_lanes.h"
#include "ui/network_view.h"
#include "ui/prediction_worker.h"
#include "ui/report_view.h"
#include "ui/rich_text_block.h"
#include "ui/utilization_model.h"

using namespace tilesight;
using namespace tilesight::ui;

class ReportTest : public QObject {
  Q_OBJECT

  static report::Prediction predict(const char* example) {
    auto outcome = predict_plan(test::example(example));
    if (!outcome.prediction) qFatal("%s: %s", example, join(outcome.errors).c_str());
    return *outcome.prediction;
  }

 private slots:
  void sizesAreBinaryWithIecNames() {
    QCOMPARE(format_bytes(512), QString("512 B"));
    QCOMPARE(format_bytes(16384), QString("16 KiB"));           // a 128x64 bf16 tile
    QCOMPARE(format_bytes(96.0 * 1024 * 1024 + 300e3), QString("96.3 MiB"));
    QCOMPARE(format_bytes(268435456), QString("256 MiB"));      // as the bytes field reads it
    QCOMPARE(format_bytes(1.5 * 1024 * 1024 * 1024), QString("1.5 GiB"));
    QCOMPARE(format_bytes(268435456), BytesSpinBox::format(268435456));
  }

  // Three significant digits in the unit that needs no leading zeros below 0.1 µs (the
  // rmsnorm's SFU busy 0.00396 µs overflowed its column), and a brief but real busy time
  // reads "<1%", not "0%" beside it.
  void smallFiguresReadAsTheyAre() {
    QCOMPARE(format_time_us(0.00396), QString("3.96 ns"));
    QCOMPARE(format_time_us(0.0996), QString("99.6 ns"));
    QCOMPARE(format_time_us(0.47), QString("0.47 µs"));
    QCOMPARE(format_time_us(256), QString("256 µs"));
    UtilizationModel model;
    report::Prediction p = predict("rmsnorm_h200.json");
    const auto sfu = static_cast<std::size_t>(Resource::kSfu);
    p.busy_us[sfu] = 0.00396;
    p.utilization[sfu] = 0.00396 / p.latency_us;
    model.setPrediction(p);
    for (int r = 0; r < model.rowCount(); ++r)
      if (model.resourceAt(r) == Resource::kSfu) {
        QCOMPARE(model.index(r, UtilizationModel::kBusy).data().toString(), QString("3.96 ns"));
        QCOMPARE(model.index(r, UtilizationModel::kUtilization).data().toString(), QString("<1%"));
      }
  }

  // The report's text blocks lay their document out once per text and width: a QLabel did it
  // for every size query and paint (most of the edit-to-views time, tilesight --bench-edit).
  void aRichTextBlockLaysOutOncePerTextAndWidth() {
    RichTextBlock block;
    block.setHtml("<b>Diagnosis</b><ul><li>L2 94% busy: the bottleneck; next is tensor core at 86%.</li></ul>");
    QCOMPARE(block.plainText().trimmed(), QString("Diagnosis\nL2 94% busy: the bottleneck; next is tensor core at 86%."));
    const int after_text = block.layoutCount();
    const int wide = block.heightForWidth(2000);
    QCOMPARE(block.layoutCount(), after_text + 1);
    QCOMPARE(block.heightForWidth(2000), wide);  // asked again: no layout
    QCOMPARE(block.layoutCount(), after_text + 1);
    const int narrow = block.heightForWidth(120);  // the sentence wraps: taller
    QVERIFY2(narrow > wide, qPrintable(QString("%1 vs %2").arg(narrow).arg(wide)));
    QCOMPARE(block.layoutCount(), after_text + 2);
    QCOMPARE(block.heightForWidth(2000), wide);  // both widths are kept
    QCOMPARE(block.layoutCount(), after_text + 2);
    block.setHtml(block.html());  // the same text: nothing to do
    QCOMPARE(block.layoutCount(), after_text + 2);
    QCOMPARE(block.heightForWidth(120), narrow);
    block.clear();
    QCOMPARE(block.heightForWidth(120), 0);
  }

  void gemmReportGivesThroughputAndCacheInMiB() {
    ReportView view;
    const auto p = predict("gemm_h200.json");
    view.setPrediction(p);
    const QString text = view.summaryText();
    QVERIFY2(text.contains("TFLOP/s"), qPrintable(text));
    QVERIFY2(text.contains(QString("DRAM %1").arg(format_bytes(p.dram_bytes))), qPrintable(text));
    QVERIFY2(text.contains("MiB"), qPrintable(text));
    QVERIFY2(!text.contains(" MB"), qPrintable(text));
  }

  void collectiveReportHasNoRowsOfZeros() {
    ReportView view;
    view.setPrediction(predict("all_reduce_h200x8.json"));
    const QString text = view.summaryText();
    QVERIFY2(!text.contains("TFLOP/s"), qPrintable(text));
    QVERIFY2(!text.contains("L2 hit rate"), qPrintable(text));
    QVERIFY2(text.contains("network"), qPrintable(text));  // the bottleneck row stays
  }

  // A decode step lists the time of each of its kernels and collectives, as the CLI does.
  void decodeStepReportListsItsOperations() {
    ReportView view;
    const auto p = predict("llm_decode_moe_h200x8.json");
    QVERIFY(!p.serve.per_layer_us.empty());
    view.setPrediction(p);
    const QString text = view.summaryText();
    QVERIFY2(text.contains(QString("%1 tokens/s").arg(format_count(p.serve.tokens_per_s))), qPrintable(text));
    for (const auto& [op, us] : p.serve.per_layer_us) {
      QVERIFY2(text.contains(QString::fromStdString(op)), op.c_str());
      QVERIFY2(text.contains(format_time_us(us)), op.c_str());
    }
    QVERIFY2(!text.contains("L2 hit rate"), qPrintable(text));  // no one cache figure
    // ...but the DRAM traffic of its kernels, summed (every weight at least once).
    QVERIFY(p.dram_bytes > 0);
    QVERIFY2(text.contains(format_bytes(p.dram_bytes)), qPrintable(text));
  }

  // The headline names the buffer as the config panel's bytes field does: "256 MiB".
  void networkHeadlineNamesTheBufferAsTheForm() {
    NetworkView view;
    view.setPrediction(predict("all_reduce_h200x8.json"));
    QVERIFY2(view.headline().contains("all_reduce 256 MiB on 8 GPUs"), qPrintable(view.headline()));
  }

  // Several collectives (ulysses: all-to-all in and out) one per line; "GB/s" never split.
  void networkHeadlineHasOneCollectivePerLine() {
    NetworkView view;
    const auto p = predict("ulysses_h200x8.json");
    QCOMPARE(p.network.collectives.size(), std::size_t{2});
    view.setPrediction(p);
    const QStringList lines = view.headline().split('\n');
    QCOMPARE(lines.size(), 2);
    for (const QString& line : lines) {
      QVERIFY2(line.startsWith("all_to_all "), qPrintable(line));
      QVERIFY2(line.endsWith(QString("GB/s")), qPrintable(line));
    }
  }

  // The default window (1600x1000), plans of two collectives (ulysses: all-to-all in and out,
  // fused; llm_decode MoE: all-reduce and all-to-all): the summary over the lanes is one line
  // per collective, one for the links, one for the overlap, under a quarter of the dock's
  // height (word-wrapped it took 53% of ulysses' 304 px dock); the lanes get 60% or more.
  // Lines cut to the width keep their whole text in the tooltip.
  void networkSummaryLeavesTheLanesTheDock() {
    auto window = test::quiet_window();
    window->resize(1600, 1000);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    NetworkView* view = window->networkView();
    for (const char* name : {"ulysses_h200x8.json", "llm_decode_moe_h200x8.json"}) {
      test::ResultWaiter wait(window->session());
      window->session().open(test::example(name), test::example_path(name));
      QVERIFY(wait.waitReady());
      QCoreApplication::processEvents();
      const int dock = view->height();
      const auto& lines = view->summary()->lines();
      QCOMPARE(lines.size(), qsizetype{std::string(name).starts_with("ulysses") ? 4 : 3});
      const int h = view->summary()->height();
      QVERIFY2(h < dock / 4, qPrintable(QString("%1: summary %2 of %3 px").arg(name).arg(h).arg(dock)));
      QVERIFY2(h >= lines.size() * view->summary()->fontMetrics().lineSpacing(), name);  // every line drawn
      const int lanes = view->lanesArea()->height();
      QVERIFY2(lanes >= dock * 6 / 10, qPrintable(QString("%1: lanes %2 of %3 px").arg(name).arg(lanes).arg(dock)));
      QVERIFY(view->summary()->lines().front().swatch.isValid());  // the first collective's bar colour
      for (int i = 0; i < lines.size(); ++i) {
        const QString shown = view->summary()->shownText(i);
        QVERIFY2(view->summary()->fontMetrics().horizontalAdvance(shown) <= view->summary()->width(), qPrintable(shown));
        QVERIFY2(view->summary()->toolTip().contains(lines[i].text.toHtmlEscaped()), qPrintable(lines[i].text));
      }
    }
  }

  // In a dock 300 px wide the link names take what they need and the bars keep most of it.
  void networkLanesLeaveTheBarsRoom() {
    NetworkView view;
    view.resize(300, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setPrediction(predict("all_reduce_h200x8.json"));
    QCOMPARE(view.laneCount(), 16);
    QVERIFY2(view.laneBarWidth() >= 120, qPrintable(QString::number(view.laneBarWidth())));
  }

  // A ring all-reduce on 32 GPUs (62 steps, links 96% busy): every step is drawn, up to the
  // end of the collective, where the engine's listed events used to stop at 1.59 of 6.54 ms
  // (the rest hatched as 6,016 stage loads not listed).
  void longRingsAreDrawnWhole() {
    NetworkView view;
    view.resize(900, 400);
    const auto p = predict("all_reduce_b200x32.json");
    view.setPrediction(p);
    const auto bars = view.laneBars(0);
    QCOMPARE(static_cast<std::int64_t>(bars.size()), p.network.collectives.front().stages);  // 62
    QVERIFY2(bars.back().second > 0.99 * p.latency_us, qPrintable(QString("%1 of %2").arg(bars.back().second).arg(p.latency_us)));
    QVERIFY2(bars.back().second <= p.latency_us, qPrintable(QString::number(bars.back().second)));
    QVERIFY2(!view.details().contains("not listed"), qPrintable(view.details()));
  }

  // Ulysses with overlap none in the default window's dock (about 260 px): the schedule's
  // names ("collective steps") and the links' would leave the bars a few dozen pixels beside
  // them, so each name goes above its bars and the bars take the width; a wide dock keeps
  // names, bars and percentages side by side.
  void narrowNetworkLanesStackTheirNames() {
    auto plan = test::example("ulysses_h200x8.json");
    plan["params"]["overlap"] = "none";
    auto outcome = predict_plan(plan);
    QVERIFY(outcome.prediction);
    NetworkView view;
    view.resize(260, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setPrediction(*outcome.prediction);
    QCoreApplication::processEvents();
    QVERIFY(view.lanesStacked());
    QVERIFY2(view.laneBarWidth() >= 200, qPrintable(QString::number(view.laneBarWidth())));
    QCOMPARE(view.scheduleBars(true).size(), std::size_t{1});  // the attention, between the two all-to-alls
    QCOMPARE(view.scheduleBars(false).size(), std::size_t{2});
    QVERIFY2(view.details().contains("one after the other"), qPrintable(view.details()));
    QVERIFY2(!view.details().contains("hidden"), qPrintable(view.details()));  // none hides nothing
    view.resize(900, 300);
    QCoreApplication::processEvents();
    QVERIFY(!view.lanesStacked());
    QVERIFY(view.laneBarWidth() >= NetworkLanes::kMinBarWidth);
  }

  // While the user edits, each prediction changes the utilisation table's cells, not its
  // geometry: the same rows (no model reset), the columns as wide as before and as wide as
  // a fresh report's (sized once for the widest name and time, not for these figures), every
  // figure fitting its column.
  void utilisationTableKeepsItsGeometry() {
    ReportView view;
    view.resize(440, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setPrediction(predict("gemm_h200.json"));  // times in µs
    QTableView* table = view.utilizationTable();
    QHeaderView* header = table->horizontalHeader();
    const int name = header->sectionSize(UtilizationModel::kResource);
    const int busy = header->sectionSize(UtilizationModel::kBusy);
    const int height = table->height();
    const int rows = view.utilizationModel()->rowCount();
    QSignalSpy reset(view.utilizationModel(), &QAbstractItemModel::modelReset);
    QSignalSpy changed(view.utilizationModel(), &QAbstractItemModel::dataChanged);
    auto big = test::example("gemm_h200.json");
    big["params"]["M"] = big["params"]["N"] = big["params"]["K"] = 16384;  // times in ms
    auto outcome = predict_plan(big);
    QVERIFY(outcome.prediction);
    view.setPrediction(*outcome.prediction);
    view.setPrediction(predict("rmsnorm_h200.json"));  // no tensor-core work: its row stays, idle
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(view.utilizationModel()->rowCount(), rows);
    QCOMPARE(header->sectionSize(UtilizationModel::kResource), name);
    QCOMPARE(header->sectionSize(UtilizationModel::kBusy), busy);
    QCOMPARE(table->height(), height);
    ReportView fresh;
    fresh.setPrediction(*outcome.prediction);
    QCOMPARE(fresh.utilizationTable()->horizontalHeader()->sectionSize(UtilizationModel::kBusy), busy);
    view.setPrediction(*outcome.prediction);
    QFont bold = table->font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    for (int r = 0; r < rows; ++r)
      for (int c : {int(UtilizationModel::kResource), int(UtilizationModel::kBusy)}) {
        const QString text = view.utilizationModel()->index(r, c).data().toString();
        QVERIFY2(fm.horizontalAdvance(text) + 8 <= header->sectionSize(c), qPrintable(text));
      }
    // Another GPU lists its own pipelines: then, and only then, the rows change.
    view.setPrediction(predict("gemm_b200.json"));
    QCOMPARE(reset.count(), 1);
    QVERIFY(view.utilizationModel()->rowCount() > rows);  // TMEM and L1.5
    QVERIFY(table->height() > height);
    QCOMPARE(header->sectionSize(UtilizationModel::kBusy), busy);
  }
};

QTEST_MAIN(ReportTest)
#include "test_report.moc"
