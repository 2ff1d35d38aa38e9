// The fused kernels' overlap schedule (NetworkReport::schedule) and its two lanes in the
// Network view: compute pieces on the SMs beside the collective's steps, as the engine
// scheduled them (model/overlap.h), checked against the schedule's rules by hand.
#include <QtTest>

#include "gui_test_util.h"
#include "tilesight/util/result.h"
#include "ui/network_view.h"
#include "ui/prediction_worker.h"
#include "ui/timeline_view.h"

using namespace tilesight;
using namespace tilesight::ui;

namespace {

std::vector<report::OverlapSpan> lane(const report::Prediction& p, bool compute) {
  std::vector<report::OverlapSpan> out;
  for (const auto& s : p.network.schedule)
    if (s.compute == compute) out.push_back(s);
  return out;
}

double sum(const std::vector<report::OverlapSpan>& spans) {
  double t = 0;
  for (const auto& s : spans) t += s.end_us - s.start_us;
  return t;
}

report::Prediction predict(nlohmann::json plan) {
  auto outcome = predict_plan(plan);
  if (!outcome.prediction) qFatal("%s", join(outcome.errors).c_str());
  return *outcome.prediction;
}

}  // namespace

class OverlapViewTest : public QObject {
  Q_OBJECT

 private slots:
  // ag_gemm fused on 8 GPUs: 7 ring steps from the launch on, back to back, and 8 GEMM
  // pieces (row shards) of compute_us / 8 each; piece k waits for step k - 1 (its shard).
  void agGemmPiecesWaitForTheirShards() {
    const auto p = predict(test::example("ag_gemm_h200x8.json"));
    const auto steps = lane(p, false), pieces = lane(p, true);
    QCOMPARE(steps.size(), std::size_t{7});
    QCOMPARE(pieces.size(), std::size_t{8});
    QVERIFY(qAbs(steps.front().start_us - p.launch_overhead_us) < 1e-6);
    for (std::size_t k = 1; k < steps.size(); ++k) QVERIFY(qAbs(steps[k].start_us - steps[k - 1].end_us) < 1e-6);
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      QVERIFY(qAbs((pieces[k].end_us - pieces[k].start_us) - p.network.compute_us / 8) < 1e-6 * p.network.compute_us);
      if (k > 0) QVERIFY(pieces[k].start_us >= steps[k - 1].end_us - 1e-9);
      if (k > 0) QVERIFY(pieces[k].start_us >= pieces[k - 1].end_us - 1e-9);
    }
    QVERIFY(qAbs(sum(steps) - p.network.comm_us) < 1e-6 * p.network.comm_us);
    QVERIFY(qAbs(std::max(steps.back().end_us, pieces.back().end_us) - p.latency_us) < 1e-6 * p.latency_us);
    // The overlap rate from the drawn spans: (comm + compute - body) / comm.
    const double body = p.latency_us - p.launch_overhead_us;
    const double rate = std::clamp((p.network.comm_us + p.network.compute_us - body) / p.network.comm_us, 0.0, 1.0);
    QVERIFY(qAbs(rate - p.network.overlap_rate) < 1e-9);
  }

  // gemm_rs: the other way round, step k reduces piece k's rows once the piece is done.
  void gemmRsStepsWaitForTheirPieces() {
    auto plan = test::example("ag_gemm_h200x8.json");
    plan["kernel"] = "gemm_rs";
    const auto p = predict(plan);
    const auto steps = lane(p, false), pieces = lane(p, true);
    QCOMPARE(pieces.size(), std::size_t{8});
    QCOMPARE(steps.size(), std::size_t{7});
    for (std::size_t k = 0; k < steps.size(); ++k) QVERIFY(steps[k].start_us >= pieces[k].end_us - 1e-9);
  }

  // ulysses_attention: all-to-all in, attention, all-to-all out; piece k after in-step k.
  void ulyssesComputesBetweenItsAllToAlls() {
    const auto p = predict(test::example("ulysses_h200x8.json"));
    const auto steps = lane(p, false), pieces = lane(p, true);
    QVERIFY(!pieces.empty());
    QCOMPARE(steps.size(), 2 * pieces.size());  // one in and one out per piece
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      QVERIFY(pieces[k].start_us >= steps[k].end_us - 1e-9);                   // in-step k
      QVERIFY(steps[pieces.size() + k].start_us >= pieces[k].end_us - 1e-9);  // out-step k
    }
  }

  void theViewDrawsTheScheduleOverTheLinks() {
    const auto p = predict(test::example("ag_gemm_h200x8.json"));
    NetworkView view;
    view.resize(900, 500);
    view.show();
    view.setPrediction(p);
    QCOMPARE(view.scheduleBars(true).size(), std::size_t{8});
    QCOMPARE(view.scheduleBars(false).size(), std::size_t{7});
    QCOMPARE(view.scheduleBars(true).front().first, lane(p, true).front().start_us);
    QVERIFY(view.laneCount() > 0);  // the links still below
    QVERIFY2(view.details().contains("100% of comm hidden"), qPrintable(view.details()));
    if (qEnvironmentVariableIsSet("TILESIGHT_TEST_GRABS"))  // for looking at the view by eye
      view.grab().save(qEnvironmentVariable("TILESIGHT_TEST_GRABS") + "/overlap_ag_gemm.png");
    // A plain collective has no compute to overlap: no schedule lanes.
    view.setPrediction(predict(test::example("all_reduce_h200x8.json")));
    QVERIFY(view.scheduleBars(true).empty() && view.scheduleBars(false).empty());
  }

  // Overlap none: one after the other, as the engine times it (latency = comm + GEMM). The
  // Network lanes draw the two spans end to end; the timeline (one SM of the GEMM) says the
  // collective runs apart instead of drawing its stages on the GEMM's clock as if overlapped.
  void overlapNoneRunsOneAfterTheOther() {
    for (const char* kernel : {"ag_gemm", "gemm_rs"}) {
      auto plan = test::example("ag_gemm_h200x8.json");
      plan["kernel"] = kernel;
      plan["params"]["overlap"] = "none";
      const auto p = predict(plan);
      const auto steps = lane(p, false), pieces = lane(p, true);
      QCOMPARE(steps.size(), std::size_t{1});
      QCOMPARE(pieces.size(), std::size_t{1});
      const bool gather = std::string(kernel) == "ag_gemm";
      const auto& first = gather ? steps.front() : pieces.front();
      const auto& second = gather ? pieces.front() : steps.front();
      QCOMPARE(first.start_us, 0.0);
      QVERIFY(qAbs(second.start_us - first.end_us) < 1e-9);
      QVERIFY(qAbs(second.end_us - p.latency_us) < 1e-6 * p.latency_us);
      QVERIFY(qAbs(sum(steps) - p.network.comm_us) < 1e-6 * p.network.comm_us);

      NetworkView view;
      view.resize(900, 300);  // shorter than its 16 links
      view.show();
      view.setPrediction(p);
      QCOMPARE(view.scheduleBars(false).front().first, steps.front().start_us);
      QCOMPARE(view.laneCount(), 16);  // all there, scrolled

      TimelineView timeline;
      timeline.setPrediction(p);
      QVERIFY(timeline.linkStages().empty());
      QVERIFY2(timeline.netLaneNote().contains(gather ? "the all_gather runs alone, before this kernel"
                                                      : "the reduce_scatter runs alone, after this kernel"),
               qPrintable(timeline.netLaneNote()));
    }
    // Overlapped, the stages are on the GEMM's clock and drawn there.
    TimelineView timeline;
    timeline.setPrediction(predict(test::example("ag_gemm_h200x8.json")));
    QVERIFY(timeline.netLaneNote().isEmpty());
    QVERIFY(!timeline.linkStages().empty());
    // Ulysses without overlap: its all-to-alls on both sides.
    auto ulysses = test::example("ulysses_h200x8.json");
    ulysses["params"]["overlap"] = "none";
    timeline.setPrediction(predict(ulysses));
    QVERIFY2(timeline.netLaneNote().contains("runs alone, before and after this kernel"),
             qPrintable(timeline.netLaneNote()));
  }
};

QTEST_MAIN(OverlapViewTest)
#include "test_overlap_view.moc"
