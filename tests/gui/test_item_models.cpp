// QAbstractItemModelTester on every item model of the app, with data loaded and reloaded
// while the tester watches (it checks each insert, remove, reset and dataChanged):
//   - the report's UtilizationModel (also in test_views),
//   - the config panel's hardware selector (a QStandardItemModel whose items it greys),
//     its JSON tree of a tile program (a QStandardItemModel: QTreeWidget's own model failed
//     the tester, listing each row's children under its value column too) and the gemm
//     form's combo boxes,
//   - the template form's combo boxes (the collective algorithms follow `devices`),
//   - the plan editor's property panel: the dependency list (QListWidget) and its combos,
//   - the cache heatmap's map selector,
//   - the What-if view's link-type selector (the validation view's: test_validation).
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QListWidget>
#include <QStandardItemModel>
#include <QSpinBox>
#include <QTreeView>
#include <QtTest>
#include <memory>
#include <vector>

#include "gui_test_util.h"
#include "ui/action_properties.h"
#include "ui/config_panel.h"
#include "ui/file_commands.h"
#include "ui/heatmap_view.h"
#include "ui/main_window.h"
#include "ui/plan_editor.h"
#include "ui/template_form.h"
#include "ui/utilization_model.h"
#include "ui/what_if_view.h"

using namespace tilesight::ui;

class ItemModelTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;
  std::vector<std::unique_ptr<QAbstractItemModelTester>> testers_;

  PlanSession& session() { return window_->session(); }
  ConfigPanel& panel() { return *window_->configPanel(); }

  void watch(QAbstractItemModel* model) {
    QVERIFY(model);
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(
        model, QAbstractItemModelTester::FailureReportingMode::QtTest));
  }

  bool open(const char* example) {
    test::ResultWaiter waiter(session());
    if (!window_->files().openPath(test::example_path(example), true).isEmpty()) return false;
    return waiter.waitReady();
  }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void init() {
    window_ = test::quiet_window();
    test::ResultWaiter waiter(session());
    session().open(test::example(), test::example_path());
    QVERIFY(waiter.waitReady());
  }

  void cleanup() {
    testers_.clear();
    window_.reset();
  }

  void configPanelModels() {
    watch(panel().hardwareSelector()->model());
    watch(panel().programTree()->model());
    watch(panel().comboBox("dtype")->model());
    watch(panel().comboBox("layout")->model());
    QVERIFY(panel().hardwareSelector()->count() >= 6);
    // A tile program fills the tree; a system plan greys the single GPUs; a template empties nothing.
    QVERIFY(open("custom_gemm_h200.json"));
    QVERIFY(panel().programTree()->model()->rowCount() >= 3);  // kernel, hardware, actions, ...
    QVERIFY(open("all_reduce_h200x8.json"));
    auto* hardware = qobject_cast<QStandardItemModel*>(panel().hardwareSelector()->model());
    QVERIFY(hardware);
    QVERIFY(!hardware->item(panel().hardwareSelector()->findText("h200"))->isEnabled());
    QVERIFY(open("llm_decode_h200x8.json"));  // no tree for a template: a long form instead
    QVERIFY(open("custom_attention_h200.json"));
    QVERIFY(panel().programTree()->model()->rowCount() >= 3);
  }

  void templateFormModels() {
    QVERIFY(open("all_reduce_h200x8.json"));
    auto* algorithm = qobject_cast<QComboBox*>(panel().templateForm()->editor("algorithm"));
    auto* protocol = qobject_cast<QComboBox*>(panel().templateForm()->editor("protocol"));
    QVERIFY(algorithm && protocol);
    watch(algorithm->model());
    watch(protocol->model());
    const int eight = algorithm->count();
    auto* devices = qobject_cast<QSpinBox*>(panel().templateForm()->editor("devices"));
    QVERIFY(devices);
    devices->setValue(3);  // not a power of two: recursive doubling no longer runs it
    QVERIFY2(algorithm->count() < eight, qPrintable(QString::number(algorithm->count())));
    devices->setValue(8);
    QCOMPARE(algorithm->count(), eight);
    QVERIFY(open("ag_gemm_h200x8.json"));  // another form, rebuilt under the testers' old models
  }

  void planEditorModels() {
    ActionProperties* properties = window_->planEditor()->properties();
    watch(properties->depsList()->model());
    watch(properties->opBox()->model());
    watch(properties->resultBox()->model());
    watch(properties->loopBox()->model());
    QVERIFY(open("custom_gemm_h200.json"));
    window_->planEditor()->selectAction("mma");
    QCOMPARE(properties->action(), QString("mma"));
    QVERIFY(properties->depsList()->count() >= 2);  // load_a and load_b at least
    int checked = 0;
    for (int i = 0; i < properties->depsList()->count(); ++i)
      checked += properties->depsList()->item(i)->checkState() == Qt::Checked;
    QCOMPARE(checked, 2);
    window_->planEditor()->selectAction("store_c");
    QCOMPARE(properties->action(), QString("store_c"));
    window_->planEditor()->selectAction(QString());
  }

  void heatmapSelectorModel() {
    watch(window_->heatmapView()->mapSelector()->model());
    QVERIFY(window_->heatmapView()->mapSelector()->count() >= 1);  // all tensors, per level
    QVERIFY(open("rmsnorm_h200.json"));
    QVERIFY(open("all_reduce_h200x8.json"));  // no map
    QVERIFY(open("gemm_b200.json"));
    QVERIFY(window_->heatmapView()->mapSelector()->count() >= 1);
  }

  // The What-if view's link-type selector: the system's link types, none on one GPU.
  void whatIfSelectorModel() {
    watch(window_->whatIfView()->linkTypeSelector()->model());
    QVERIFY(open("ag_gemm_h200x8.json"));
    QVERIFY(window_->whatIfView()->linkTypeSelector()->count() >= 1);
    QVERIFY(open("all_to_all_b200x32.json"));  // another system: nvlink and InfiniBand
    QVERIFY(open("gemm_h200.json"));
    QVERIFY(open("llm_decode_h200x8.json"));
  }

  void utilizationModel() {
    UtilizationModel model;
    watch(&model);
    model.setPrediction(*session().prediction());
    QVERIFY(model.rowCount() >= 6);
    QVERIFY(open("ag_gemm_h200x8.json"));
    model.setPrediction(*session().prediction());  // a system: the network row too
    model.clear();
  }
};

QTEST_MAIN(ItemModelTest)
#include "test_item_models.moc"
