// The plan editor: the DAG of a tile program and of a lifted template, nodes coloured by the
// predicted pipeline, and each edit (add, remove, connect, a property) a new document that
// the session predicts; a cycle is refused, not applied.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListWidget>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QWheelEvent>
#include <QtTest>

#include "gui_test_util.h"
#include "ui/action_properties.h"
#include "ui/dag_minimap.h"
#include "ui/dag_scene.h"
#include "ui/main_window.h"
#include "ui/plan_edits.h"
#include "ui/plan_editor.h"
#include "ui/prediction_worker.h"

using namespace tilesight;
using namespace tilesight::ui;

class PlanEditorTest : public QObject {
  Q_OBJECT

 private slots:
  void drawsTheTileProgramsDag() {
    PlanEditor editor;
    editor.setPlan(test::example("custom_gemm_h200.json"));
    QCOMPARE(editor.scene()->nodeCount(), 4);  // load_a, load_b, mma, store_c
    QCOMPARE(editor.scene()->edgeCount(), 3);  // two into mma, one into store_c
    QCOMPARE(editor.scene()->crossings(), 0);
    QVERIFY(!editor.scene()->dag().lifted);
  }

  void liftsATemplateAndColoursByPredictedPipeline() {
    const auto doc = test::example();
    auto outcome = predict_plan(doc);
    QVERIFY(outcome.prediction);
    PlanEditor editor;
    editor.setPlan(doc);
    editor.setPrediction(*outcome.prediction);
    const TileDag& dag = editor.scene()->dag();
    QVERIFY(dag.lifted);
    QVERIFY(dag.actions.size() >= 3);
    const int mma = dag.find("mma");
    QVERIFY(mma >= 0);
    QVERIFY(dag.actions[static_cast<std::size_t>(mma)].pipeline_predicted);
    QCOMPARE(dag.actions[static_cast<std::size_t>(mma)].pipeline, Resource::kTC);
  }

  // The boxes say op and work in full: "mma_tc · 2.1 MFLOP", nothing elided ("…").
  void nodeTextsFitTheirBoxes() {
    PlanEditor editor;
    editor.setPlan(test::example());
    QStringList texts;
    for (QGraphicsItem* item : editor.scene()->items())
      if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item)) texts << text->text();
    QVERIFY2(texts.contains(QString("mma_tc · 2.1 MFLOP")), qPrintable(texts.join(" | ")));
    QVERIFY2(texts.contains(QString("load · 16 KiB")), qPrintable(texts.join(" | ")));
    for (const QString& t : texts) QVERIFY2(!t.contains(QChar(0x2026)), qPrintable(t));
  }

  // A large DAG (mla_decode: 16 actions in 8 layers) in a dock-sized editor: fitting stops
  // at the readable scale and scrolls; a small one fits whole at its natural size or less.
  void largeDagsStayReadable() {
    PlanEditor editor;
    editor.resize(320, 520);
    editor.show();
    editor.setPlan(test::example("mla_decode_h200.json"));
    editor.fitView();
    QVERIFY(editor.scene()->nodeCount() >= 12);
    QVERIFY2(editor.viewScale() >= PlanEditor::kMinScale, qPrintable(QString::number(editor.viewScale())));
    QTRY_VERIFY(editor.view()->horizontalScrollBar()->isVisible() || editor.view()->verticalScrollBar()->isVisible());
    // The top of the DAG (its first layer, the loads) is what shows.
    QVERIFY(editor.view()->verticalScrollBar()->value() - editor.view()->verticalScrollBar()->minimum() <= 2);

    editor.resize(900, 700);
    editor.setPlan(test::example("custom_gemm_h200.json"));
    editor.fitView();
    QVERIFY(editor.viewScale() <= 1.0 && editor.viewScale() >= PlanEditor::kMinScale);
    const QRectF shown = editor.view()->mapToScene(editor.view()->viewport()->rect()).boundingRect();
    QVERIFY(shown.contains(editor.scene()->itemsBoundingRect()));
  }

  // A DAG partly out of view has an overview of all of it in the drawing's corner, the part
  // in view outlined; a click there moves the drawing to that part. A DAG that fits has none.
  void aDagOutOfViewHasAnOverview() {
    PlanEditor editor;
    editor.resize(320, 520);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    editor.setPlan(test::example("mla_decode_h200.json"));
    editor.fitView();
    DagMinimap* map = editor.minimap();
    QTRY_VERIFY(map->isVisible());
    const QRectF all = editor.scene()->sceneRect();
    const QRectF shown = map->shownRect();
    QVERIFY2(shown.height() + 1 < all.height(), qPrintable(QString("%1 of %2").arg(shown.height()).arg(all.height())));
    // A small box over the drawing's corner that holds the whole DAG.
    QVERIFY2(
        map->width() <= DagMinimap::kMaxWidth + 2 && map->height() <= DagMinimap::kMaxHeight + 2,
        qPrintable(QString("%1x%2").arg(map->width()).arg(map->height())));
    QVERIFY(editor.view()->viewport()->geometry().contains(map->geometry()));
    const double scale = map->transform().m11();
    QVERIFY(all.width() * scale <= map->viewport()->width() + 1);
    QVERIFY(all.height() * scale <= map->viewport()->height() + 1);
    // Fit shows the top of the DAG; a click at the bottom of the overview shows its bottom.
    QScrollBar* vertical = editor.view()->verticalScrollBar();
    QVERIFY(vertical->value() - vertical->minimum() <= 2);  // centring rounds to a pixel
    const QRect box = map->viewport()->rect();
    QTest::mouseClick(map->viewport(), Qt::LeftButton, {}, QPoint(box.center().x(), box.bottom() - 1));
    QVERIFY2(vertical->maximum() - vertical->value() <= 2, qPrintable(QString::number(vertical->value())));
    QVERIFY(map->shownRect().bottom() >= all.bottom() - 2);
    QCOMPARE(editor.selectedAction(), QString());  // a click in the overview selects nothing
    // The DAG whole in view: no overview.
    editor.resize(900, 700);
    editor.setPlan(test::example("custom_gemm_h200.json"));
    editor.fitView();
    QTRY_VERIFY(!map->isVisible());
  }

  // The default window (1600x1000) on the DAGs wider than the plan editor's drawing
  // (attention: load_q, load_k, load_v side by side; mla_decode): Fit shows the first
  // action's box whole (it was centred across the DAG, its left half cut off), at a readable
  // scale; the overview sits in a corner where it hides no box, and the Overview button
  // hides it; every field of the property form is on screen, none scrolled away.
  void wideDagsShowTheirFirstActionInTheDefaultWindow() {
    auto window = test::quiet_window();
    window->resize(1600, 1000);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    auto& session = window->session();
    PlanEditor* editor = window->planEditor();
    for (const char* name : {"attention_prefill_h200.json", "mla_decode_h200.json"}) {
      {
        test::ResultWaiter wait(session);
        session.open(test::example(name), test::example_path(name));
        QVERIFY(wait.waitReady());
      }
      QTest::qWait(50);  // the deferred fit after the layout
      editor->fitView();
      QCoreApplication::processEvents();
      QVERIFY2(editor->viewScale() >= PlanEditor::kMinScale, name);
      QGraphicsView* view = editor->view();
      const QRectF shown = view->mapToScene(view->viewport()->rect()).boundingRect();
      const QString first = QString::fromStdString(editor->scene()->dag().actions.front().name);
      const QRectF box = editor->scene()->nodeItem(first)->sceneBoundingRect();
      QVERIFY2(shown.contains(box), qPrintable(QString("%1: %2 at %3,%4 not in %5,%6 %7x%8").arg(name, first)
                                                   .arg(box.left()).arg(box.top()).arg(shown.left()).arg(shown.top())
                                                   .arg(shown.width()).arg(shown.height())));
      QVERIFY2(shown.width() + 1 < editor->scene()->sceneRect().width(), name);  // wider than the view: it scrolls
      DagMinimap* map = editor->minimap();
      QTRY_VERIFY(map->isVisible());
      const QRectF under = view->mapToScene(map->geometry().translated(-view->viewport()->geometry().topLeft()))
                               .boundingRect();
      for (const QRectF& node : editor->scene()->nodeRects())
        QVERIFY2(!node.intersects(under), name);
      editor->overviewAction()->setChecked(false);
      QVERIFY(!map->isVisible());
      editor->fitView();
      QVERIFY(!map->isVisible());
      editor->overviewAction()->setChecked(true);
      QVERIFY(map->isVisible());
      // The form: two fields a row, every one of them inside the visible part of its scroll area.
      editor->selectAction(first);
      QCoreApplication::processEvents();
      ActionProperties* form = editor->properties();
      QCOMPARE(form->columns(), 2);
      auto* area = qobject_cast<QScrollArea*>(form->parentWidget()->parentWidget());
      QVERIFY(area);
      const QRect port(area->viewport()->mapTo(editor, QPoint(0, 0)), area->viewport()->size());
      QVERIFY(editor->rect().contains(port));
      for (QWidget* field : {static_cast<QWidget*>(form->nameEdit()), static_cast<QWidget*>(form->opBox()),
                             static_cast<QWidget*>(form->flopsBox()), static_cast<QWidget*>(form->bytesBox()),
                             static_cast<QWidget*>(form->resultBox()), static_cast<QWidget*>(form->loopBox()),
                             static_cast<QWidget*>(form->depsList())}) {
        const QRect at(field->mapTo(editor, QPoint(0, 0)), field->size());
        QVERIFY2(port.contains(at), qPrintable(QString("%1: %2,%3 %4x%5 outside %6,%7 %8x%9").arg(name).arg(at.x())
                                                   .arg(at.y()).arg(at.width()).arg(at.height()).arg(port.x())
                                                   .arg(port.y()).arg(port.width()).arg(port.height())));
      }
    }
  }

  // Ctrl+wheel zooms the DAG about the mouse; the zoom survives an edit and a resize; Fit
  // (Ctrl+0) resets it. A plain wheel scrolls and leaves the scale alone.
  void ctrlWheelZoomsAndFitResets() {
    PlanEditor editor;
    editor.resize(400, 520);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    auto doc = test::example("custom_gemm_h200.json");
    editor.setPlan(doc);
    editor.resetZoom();
    const double fitted = editor.viewScale();
    QWidget* port = editor.view()->viewport();
    auto wheel = [&](int delta, Qt::KeyboardModifiers modifiers) {
      const QPointF at(port->width() / 2.0, port->height() / 3.0);
      QWheelEvent event(at, port->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, modifiers,
                        Qt::NoScrollPhase, false);
      QCoreApplication::sendEvent(port, &event);
    };
    wheel(120, Qt::NoModifier);
    QCOMPARE(editor.viewScale(), fitted);
    wheel(240, Qt::ControlModifier);  // two notches in
    QVERIFY2(qAbs(editor.viewScale() - fitted * 1.15 * 1.15) < 1e-9, qPrintable(QString::number(editor.viewScale())));
    QVERIFY(editor.userZoomed());
    const double zoomed = editor.viewScale();
    doc["actions"][0]["bytes"] = 8192;  // an edit of the same plan keeps the zoom
    editor.setPlan(doc);
    editor.resize(420, 540);
    QTest::qWait(20);
    QCOMPARE(editor.viewScale(), zoomed);
    for (int i = 0; i < 40; ++i) wheel(-120, Qt::ControlModifier);
    QCOMPARE(editor.viewScale(), PlanEditor::kMinZoom);  // bounded
    auto fit = editor.findChildren<QAction*>();
    auto it = std::find_if(fit.begin(), fit.end(), [](QAction* a) { return a->text() == "Fit"; });
    QVERIFY(it != fit.end());
    QCOMPARE((*it)->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_0));
    editor.resize(400, 520);  // the size `fitted` was fitted to
    QTest::qWait(20);
    (*it)->trigger();
    QCOMPARE(editor.viewScale(), fitted);
    QVERIFY(!editor.userZoomed());
  }

  // A collective has no tile DAG: the editor says so and hides the empty canvas, the
  // empty property form and the tools that would edit them; a GEMM brings them back.
  void aPlanWithoutDagShowsOnlyTheNote() {
    PlanEditor editor;
    editor.resize(400, 520);
    editor.show();
    editor.setPlan(test::example("all_reduce_h200x8.json"));
    QVERIFY(!editor.hasDag());
    QVERIFY(editor.view()->isHidden() || !editor.view()->isVisibleTo(&editor));
    QVERIFY(!editor.connectAction()->isEnabled());
    const QString note = editor.findChild<QLabel*>("plan_note")->text();
    QVERIFY2(note.contains("no single tile DAG"), qPrintable(note));
    editor.setPlan(test::example());
    QVERIFY(editor.hasDag());
    QVERIFY(editor.view()->isVisibleTo(&editor));
    QVERIFY(editor.connectAction()->isEnabled());
  }

  void editsAreNewDocuments() {
    const auto doc = test::example("custom_gemm_h200.json");
    auto added = add_action(doc, "exp", "mma");
    QVERIFY(added);
    QCOMPARE(last_action_name(*added), std::string("exp"));
    QCOMPARE((*added)["actions"].back()["deps"], nlohmann::json::array({"mma"}));
    QCOMPARE((*added)["actions"].back()["loop"], nlohmann::json("k"));
    auto removed = remove_action(*added, "mma");
    QVERIFY(removed);
    for (const auto& a : (*removed)["actions"])
      QVERIFY(!a.contains("deps") || a["deps"].dump().find("\"mma\"") == std::string::npos);
    auto cycle = connect_actions(doc, "store_c", "load_a");  // load_a -> mma -> store_c
    QVERIFY(!cycle);
    QVERIFY2(cycle.error_text().find("cycle") != std::string::npos, cycle.error_text().c_str());
    QCOMPARE(cycle.errors().front().path, std::string("actions[0].deps"));
    auto renamed = set_action_field(doc, "mma", "name", "gemm_mma");
    QVERIFY(renamed);
    QVERIFY((*renamed)["actions"][3]["deps"] == nlohmann::json::array({"gemm_mma"}));
    QVERIFY(!remove_action(nlohmann::json::parse(R"({"name":"x","actions":[{"name":"a"}]})"), "a"));
  }

  void editingTheTemplateMakesItAProgramAndChangesThePrediction() {
    MainWindow window({.persist = false});
    window.resize(1400, 900);
    window.show();
    auto& session = window.session();
    session.setDebounceMs(0);
    {
      test::ResultWaiter wait(session);
      session.open(test::example(), test::example_path());
      QVERIFY(wait.waitReady());
    }
    const double before = session.prediction()->latency_us;
    PlanEditor* editor = window.planEditor();
    QVERIFY(editor->scene()->nodeCount() >= 3);
    editor->selectAction(QStringLiteral("mma"));
    QCOMPARE(editor->properties()->action(), QStringLiteral("mma"));
    test::ResultWaiter wait(session);
    const double flops = editor->properties()->flopsBox()->value();
    editor->properties()->flopsBox()->setValue(flops * 4);  // 4x the work per iteration
    QVERIFY(wait.waitReady());
    QVERIFY(!is_template_instance(session.plan()));
    QVERIFY(session.prediction()->latency_us > before * 1.5);
    QCOMPARE(editor->selectedAction(), QStringLiteral("mma"));
  }

  void aRefusedEditLeavesThePlanAlone() {
    PlanEditor editor;
    editor.setPlan(test::example("custom_gemm_h200.json"));
    QSignalSpy edited(&editor, &PlanEditor::planEdited);
    QSignalSpy refused(&editor, &PlanEditor::editRefused);
    editor.connectActions(QStringLiteral("store_c"), QStringLiteral("load_a"));
    QCOMPARE(edited.count(), 0);
    QCOMPARE(refused.count(), 1);
    editor.connectActions(QStringLiteral("load_a"), QStringLiteral("store_c"));
    QCOMPARE(edited.count(), 1);
    QCOMPARE(editor.scene()->edgeCount(), 4);
  }

  void connectModeLinksSelectedToClicked() {
    PlanEditor editor;
    editor.setPlan(test::example("custom_gemm_h200.json"));
    QSignalSpy edited(&editor, &PlanEditor::planEdited);
    editor.selectAction(QStringLiteral("load_b"));
    editor.connectAction()->setChecked(true);
    editor.selectAction(QStringLiteral("store_c"));
    QCOMPARE(edited.count(), 1);
    QVERIFY(!editor.connectAction()->isChecked());
  }
};

QTEST_MAIN(PlanEditorTest)
#include "test_plan_editor.moc"
