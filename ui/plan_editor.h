// The plan editor dock: the tile-action DAG of the current plan (DagScene) above the
// selected action's properties (ActionProperties), with a tool bar to add, remove and
// connect actions and to fit the drawing.
//
//   [Add ▾] [Remove] [Connect] [Overview] [Fit]   (icons only when the dock is narrower)
//   Lifted from the gemm template: an edit here makes it a tile program
//   ┌ DAG ─────────────────────────────┐
//   │  load_a   load_b                 │
//   │      mma                         │
//   │    store_c                       │
//   └──────────────────────────────────┘
//   name [mma] op [mma_tc] FLOPs ... deps [x] load_a ...   (one line until an action is selected)
//
// Fit shows the whole DAG when it fits at a readable size (PlanEditor::kMinScale), else its
// top-left corner (the first actions: the loads) at that size, with scroll bars. Ctrl+wheel (or
// Ctrl++ / Ctrl+-) zooms about the mouse and the zoom then stays through edits and resizes; Fit
// (Ctrl+0) resets it. Whenever part of the DAG is out of view, an overview of all of it sits in the
// corner of the drawing where it hides no action (DagMinimap): click there to go to that
// part; the Overview button hides it.
//
// Every edit is a new document (ui/plan_edits.h) handed to planEdited with a label for the
// undo stack. Editing a template instance turns it into the full tile program it lifts to:
// template parameters cannot say "one more action", and the lifted program predicts exactly
// as the template did, so only the edit itself changes the prediction (undo restores the
// template and its form).
#pragma once

#include <QString>
#include <QWidget>
#include <optional>

#include <nlohmann/json.hpp>

#include "tilesight/report/prediction.h"
#include "tilesight/util/result.h"
#include "ui/tile_dag.h"

class QAction;
class QGraphicsView;
class QLabel;
class QScrollArea;
class QSplitter;
class QToolBar;

namespace tilesight::ui {

class ActionProperties;
class DagMinimap;
class DagScene;

class PlanEditor : public QWidget {
  Q_OBJECT

 public:
  explicit PlanEditor(QWidget* parent = nullptr);

  void setPlan(const nlohmann::json& doc);
  void setPrediction(const report::Prediction& prediction);

  // Fit never shrinks the DAG below this: its smallest label (9 pt) stays at 7 pt or more
  // on screen; a larger DAG scrolls (and pans by dragging) instead.
  static constexpr double kMinScale = 0.8;
  // The range of Ctrl+wheel zoom: a whole 16-action DAG at the low end, one node's text at
  // the high end.
  static constexpr double kMinZoom = 0.25, kMaxZoom = 4.0;

  DagScene* scene() const { return scene_; }
  double viewScale() const;
  // Scales the view by `factor` (within kMinZoom..kMaxZoom) about the viewport point
  // `anchor` (its centre when null); the zoom is the user's from then on.
  void zoomBy(double factor, const QPoint& anchor = {});
  bool userZoomed() const { return user_zoom_; }
  QGraphicsView* view() const { return view_; }
  DagMinimap* minimap() const { return minimap_; }
  ActionProperties* properties() const { return properties_; }
  QAction* connectAction() const { return connect_; }
  QAction* overviewAction() const { return overview_; }  // checked: the overview may show
  bool hasDag() const;  // false: the note says why, the drawing and its tools are hidden
  QString selectedAction() const;
  void selectAction(const QString& name);

  // The edits behind the tool bar and the property panel (tests call them directly).
  void addTileAction(const QString& op);
  void removeSelected();
  void connectActions(const QString& from, const QString& to);
  void setField(const QString& action, const QString& key, const nlohmann::json& value);

 signals:
  void planEdited(const nlohmann::json& doc, const QString& label);
  void actionSelected(const QString& name);
  void editRefused(const QString& why);

 public slots:
  void fitView();
  void resetZoom();  // back to Fit, and following resizes again

 protected:
  void resizeEvent(QResizeEvent* event) override;  // keeps the DAG fitted to the view
  bool eventFilter(QObject* watched, QEvent* event) override;  // Ctrl+wheel on the view

 private:
  QWidget* makeToolBar();
  void fitToolBar();
  void showProperties(const TileDag& dag, const QString& name);
  void sizeForm();
  void redraw();
  void apply(const Result<nlohmann::json>& edited, const QString& label,
             const QString& select = {});
  void onSelection(const QString& name);
  QStringList loopNames() const;

  nlohmann::json doc_;
  std::vector<report::TimelineEvent> timeline_;
  std::optional<TileDag> drawn_;  // what the scene shows, to skip redrawing the same DAG
  DagScene* scene_ = nullptr;
  QGraphicsView* view_ = nullptr;
  DagMinimap* minimap_ = nullptr;
  ActionProperties* properties_ = nullptr;
  QLabel* note_ = nullptr;
  QSplitter* drawing_ = nullptr;  // the DAG over the properties: hidden when there is no DAG
  QScrollArea* form_area_ = nullptr;  // the properties, scrolling in a short dock
  bool split_sized_ = false;          // the form given its height, once laid out
  QToolBar* tool_bar_ = nullptr;
  int text_bar_width_ = 0;  // the tool bar's width with words on its buttons
  QAction* add_ = nullptr;
  QAction* fit_ = nullptr;
  QAction* overview_ = nullptr;
  QAction* remove_ = nullptr;
  QAction* connect_ = nullptr;
  QString connect_from_;
  bool user_zoom_ = false;
};

}  // namespace tilesight::ui
