// The config panel's sliders: legal values only, linked both ways with the spin boxes, and
// one undo step per committed edit (a drag through several positions is one command).
#include <QSpinBox>
#include <QtTest>

#include "gui_test_util.h"
#include "ui/config_panel.h"
#include "ui/file_commands.h"
#include "ui/main_window.h"
#include "ui/param_slider.h"
#include "ui/template_form.h"

using namespace tilesight::ui;

class SliderTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;

  ConfigPanel& panel() { return *window_->configPanel(); }
  PlanSession& session() { return window_->session(); }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void init() {
    window_ = test::quiet_window();
    test::ResultWaiter waiter(session());
    session().open(test::example(), test::example_path());  // 4096^3 bf16, 128x128x64, 3 stages, 8 warps
    QVERIFY(waiter.waitReady());
  }

  void cleanup() { window_.reset(); }

  void slidersOfferLegalValuesOnly() {
    QCOMPARE(panel().slider("block_m")->values(), (std::vector<int>{16, 32, 64, 128, 256}));
    QCOMPARE(panel().slider("warps")->values(), (std::vector<int>{1, 2, 4, 8, 12, 16}));
    // A stage of 128x64 + 64x128 bf16 is 32 KiB; an H200 block may have 227 KiB: 7 stages
    // (224 KiB) fit, 8 (256 KiB) do not.
    QCOMPARE(panel().slider("stages")->values(), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
    // block_k 128 doubles the stage (64 KiB): 3 stages fit (192 KiB), 4 (256 KiB) do not.
    panel().spinBox("block_k")->setValue(128);
    QCOMPARE(panel().slider("stages")->values(), (std::vector<int>{1, 2, 3}));
    QVERIFY(!panel().slider("dtype"));
  }

  void theSpinBoxMovesTheSlider() {
    QCOMPARE(panel().slider("block_m")->legalValue(), 128);
    session().setDebounceMs(60000);  // every typed edit now falls within the interval
    panel().spinBox("block_m")->setValue(64);
    QVERIFY(session().debouncing());  // typed: more keystrokes may follow
    QCOMPARE(panel().slider("block_m")->legalValue(), 64);
    panel().spinBox("M")->setValue(5000);  // not a power of two: the slider shows the nearest
    QCOMPARE(panel().slider("M")->legalValue(), 4096);
    QCOMPARE(panel().spinBox("M")->value(), 5000);
  }

  void aDragIsOneUndoStepAndChangesThePrediction() {
    const double before = session().prediction()->latency_us;
    const int steps = session().undoStack().count();
    ParamSlider* slider = panel().slider("block_n");
    test::ResultWaiter waiter(session());
    slider->setSliderDown(true);
    for (int position : {2, 1, 0, 1, 2}) {  // 64, 32, 16, 32, 64: shown as it goes, not committed
      slider->setSliderPosition(position);
      QCOMPARE(panel().spinBox("block_n")->value(), slider->values()[static_cast<std::size_t>(position)]);
      QCOMPARE(session().plan()["params"]["block_n"].get<int>(), 128);
    }
    slider->setSliderDown(false);  // released at 64: one edit, predicted at once
    QVERIFY(!session().debouncing());
    QCOMPARE(session().plan()["params"]["block_n"].get<int>(), 64);
    QCOMPARE(session().undoStack().count(), steps + 1);
    QVERIFY(waiter.waitReady());
    const double after = session().prediction()->latency_us;
    QVERIFY(after != before);
    QVERIFY(QString::fromStdString(session().prediction()->name).contains("128x64x64"));

    test::ResultWaiter undone(session());
    session().undoStack().undo();
    QCOMPARE(session().plan()["params"]["block_n"].get<int>(), 128);
    QCOMPARE(panel().spinBox("block_n")->value(), 128);
    QCOMPARE(slider->legalValue(), 128);
    QVERIFY(undone.waitReady());
    QCOMPARE(session().prediction()->latency_us, before);
  }

  // Two drags of the same slider in quick succession are two undo steps (a held spin-box
  // arrow merges; a committed drag does not).
  void twoDragsAreTwoSteps() {
    const int steps = session().undoStack().count();
    ParamSlider* slider = panel().slider("stages");
    for (int position : {3, 4}) {
      slider->setSliderDown(true);
      slider->setSliderPosition(position);
      slider->setSliderDown(false);
    }
    QCOMPARE(session().plan()["params"]["stages"].get<int>(), 5);
    QCOMPARE(session().undoStack().count(), steps + 2);
    session().undoStack().undo();
    QCOMPARE(session().plan()["params"]["stages"].get<int>(), 4);
    QCOMPARE(slider->legalValue(), 4);
  }

  // The other templates' tile fields too; an optional field's leftmost position is "auto".
  void templateFormsHaveSlidersToo() {
    test::ResultWaiter waiter(session());
    QVERIFY(window_->files().openPath(test::example_path("ag_gemm_h200x8.json"), true).isEmpty());
    QVERIFY(waiter.waitReady());
    auto* slider = panel().templateForm()->findChild<ParamSlider*>("block_n_slider");
    QVERIFY(slider);
    QCOMPARE(slider->values(), (std::vector<int>{0, 16, 32, 64, 128, 256}));  // 0: auto
    QCOMPARE(slider->legalValue(), 256);
    QCOMPARE(panel().templateForm()->findChild<ParamSlider*>("warps_slider")->values(),
             (std::vector<int>{0, 1, 2, 4, 8, 12, 16, 32}));
    QVERIFY(!panel().templateForm()->findChild<ParamSlider*>("M_slider"));  // a shape: the box only
    const int steps = session().undoStack().count();
    slider->setSliderDown(true);
    slider->setSliderPosition(4);
    slider->setSliderPosition(0);
    slider->setSliderDown(false);
    QVERIFY(!session().plan()["params"].contains("block_n"));  // auto: the field removed
    QCOMPARE(session().undoStack().count(), steps + 1);
    session().undoStack().undo();
    QCOMPARE(session().plan()["params"]["block_n"].get<int>(), 256);
    QCOMPARE(slider->legalValue(), 256);
  }

  void aKeyPressCommitsAtOnce() {
    ParamSlider* slider = panel().slider("warps");
    QTest::keyClick(slider, Qt::Key_Left);  // 8 -> 4
    QCOMPARE(session().plan()["params"]["warps"].get<int>(), 4);
    QCOMPARE(panel().spinBox("warps")->value(), 4);
  }
};

QTEST_MAIN(SliderTest)
#include "test_sliders.moc"
