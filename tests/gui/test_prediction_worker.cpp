// The worker runs the engine off the UI thread and never delivers a stale result.
#include <QtTest>

#include "gui_test_util.h"
#include "ui/prediction_worker.h"

using namespace tilesight::ui;

class PredictionWorkerTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(!test::example().is_null(), "resources/examples/gemm_h200.json not found");
  }

  void deliversThePredictionOfTheDefaultPlan() {
    PredictionWorker worker;
    QSignalSpy predicted(&worker, &PredictionWorker::predicted);
    QSignalSpy busy(&worker, &PredictionWorker::busyChanged);
    const quint64 generation = worker.submit(test::example());
    QVERIFY(worker.busy());
    QVERIFY(predicted.wait(test::kTimeoutMs));
    const auto outcome = predicted.at(0).at(1).value<PredictionOutcome>();
    QCOMPARE(predicted.at(0).at(0).toULongLong(), generation);
    QVERIFY(outcome.prediction.has_value());
    QVERIFY(outcome.prediction->latency_us > 0);
    QVERIFY(!outcome.prediction->timeline.empty());  // the views need the timeline
    QVERIFY(!worker.busy());
    QCOMPARE(busy.count(), 2);  // true, then false
  }

  void dropsASupersededResult() {
    PredictionWorker worker;
    QSignalSpy predicted(&worker, &PredictionWorker::predicted);
    QSignalSpy discarded(&worker, &PredictionWorker::discarded);
    auto first = test::example(), second = test::example(), third = test::example();
    second["params"]["block_m"] = 64;
    third["params"]["block_m"] = 256;
    third["params"]["block_n"] = 64;
    const quint64 g1 = worker.submit(first);   // starts at once
    const quint64 g2 = worker.submit(second);  // waits
    const quint64 g3 = worker.submit(third);   // replaces the waiting one: 2 never runs
    QVERIFY(g1 < g2 && g2 < g3);
    QVERIFY(predicted.wait(test::kTimeoutMs));
    QTest::qWait(50);
    QCOMPARE(predicted.count(), 1);
    QCOMPARE(predicted.at(0).at(0).toULongLong(), g3);
    const auto outcome = predicted.at(0).at(1).value<PredictionOutcome>();
    QVERIFY(QString::fromStdString(outcome.prediction->name).contains("tile 256x64x64"));
    QCOMPARE(discarded.count(), 1);
    QCOMPARE(discarded.at(0).at(0).toULongLong(), g1);
  }

  // Staleness goes both ways: a bad edit's errors never replace a newer good prediction, nor
  // an old prediction the errors of a newer bad edit.
  void dropsAStaleFailureOrPrediction() {
    auto good = test::example(), bad = test::example();
    bad["params"]["warps"] = 64;  // 2048 threads: no block holds them
    for (bool bad_first : {true, false}) {
      PredictionWorker worker;
      QSignalSpy predicted(&worker, &PredictionWorker::predicted);
      QSignalSpy failed(&worker, &PredictionWorker::failed);
      QSignalSpy discarded(&worker, &PredictionWorker::discarded);
      const quint64 first = worker.submit(bad_first ? bad : good);
      const quint64 latest = worker.submit(bad_first ? good : bad);
      QSignalSpy& wanted = bad_first ? predicted : failed;
      QVERIFY(wanted.wait(test::kTimeoutMs));
      QTest::qWait(50);
      QCOMPARE(wanted.count(), 1);
      QCOMPARE(wanted.at(0).at(0).toULongLong(), latest);
      QCOMPARE((bad_first ? failed : predicted).count(), 0);
      QCOMPARE(discarded.count(), 1);
      QCOMPARE(discarded.at(0).at(0).toULongLong(), first);
    }
  }

  void reportsErrorsWithTheirPath() {
    PredictionWorker worker;
    QSignalSpy failed(&worker, &PredictionWorker::failed);
    auto plan = test::example();
    plan["params"]["block_k"] = 0;
    worker.submit(plan);
    QVERIFY(failed.wait(test::kTimeoutMs));
    const auto outcome = failed.at(0).at(1).value<PredictionOutcome>();
    QVERIFY(!outcome.prediction);
    QCOMPARE(QString::fromStdString(outcome.errors.at(0).path), QString("params.block_k"));
  }

  void predictPlanNeverThrows() {
    for (const auto& doc :
         {nlohmann::json(), nlohmann::json::array(), nlohmann::json{{"kernel", 3}},
          nlohmann::json{{"kernel", "gemm"}, {"params", {{"M", 1}}}}}) {
      const auto outcome = predict_plan(doc);
      QVERIFY(!outcome.prediction);
      QVERIFY(!outcome.errors.empty());
    }
  }
};

QTEST_MAIN(PredictionWorkerTest)
#include "test_prediction_worker.moc"
