// Timeline of one SM during the first wave: one lane per pipeline of the hardware, one bar per
// report::TimelineEvent, coloured by action, with the prologue, the steady state and the
// epilogue shaded behind:
//
//   TC    |          [mma 0] [mma 1] [mma 2] [mma 3]  ·  steady state  ·   [mma 127]
//   SMEM  | [a0][b0] [a1][b1] [a2][b2] ...            ·   (repeats)    ·  [a][b]
//   L2    | [load_a 0][load_b 0][load_a 1] ...        ·                ·  [a][b] [store_c]
//   DRAM  | [a0]     [b0] ...                         ·                ·          [store_c]
//         0 µs        prologue                                            epilogue   62 µs
//
// Only the first iterations and the last one of each loop are drawn (the engine's timeline);
// the steady state between them repeats and is folded into a hatched band (TimeFold) unless
// "Fold steady state" is unchecked. Drag pans and the wheel (plain or with Ctrl) zooms the
// time axis only; Ctrl++ and Ctrl+- step the zoom, Fit or Ctrl+0 resets it;
// hovering a bar shows its action, iteration, pipeline, time, bytes and FLOPs. Clicking a
// bar selects its action (linked with the plan editor): that action's bars get a dark
// outline and the others fade. A plan without a one-SM timeline (a collective, a decode
// step of many kernels) says so and draws its link stages over time in the plot's place
// (TimelinePlaceholder). The items it draws with: timeline_items.h.
#pragma once

#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "tilesight/report/prediction.h"
#include "ui/time_fold.h"
#include "ui/timeline_items.h"

class QCustomPlot;
class QCPItemRect;
class QCPItemText;
class QMouseEvent;
class QToolButton;

namespace tilesight::ui {

class TimelinePlaceholder;

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(QWidget* parent = nullptr);

  void setPrediction(const report::Prediction& prediction);
  int barCount() const { return static_cast<int>(bars_.size()); }
  QCustomPlot* plot() const { return plot_; }
  // Index into the prediction's timeline of the bar at a point of the plot, if any.
  std::optional<std::size_t> eventAt(const QPointF& pixel) const;
  QString toolTipFor(std::size_t event) const;
  // A fused kernel's Net lane: the stages of its busiest link while the SM's bars run
  // (link_stages in timeline_items.h), and the one at a point of the plot, if any.
  const std::vector<report::NetworkStageEvent>& linkStages() const { return stages_; }
  std::optional<std::size_t> linkStageAt(const QPointF& pixel) const;
  QString toolTipForStage(std::size_t stage) const;
  // The label on a stage's bar ("ring step 1 → 108 µs" for one that runs on past the SM's
  // bars), or "" where it does not fit and is hidden.
  QString stageLabel(std::size_t stage) const;

  void fitAll();
  void zoomTo(double from_us, double to_us);  // real times; the fold is applied
  void zoomBy(double factor);                 // > 1 zooms in about the middle (Ctrl++)
  void setFoldSteadyState(bool fold);

  // Linked selection: outlines the bars of `action` ("" clears it).
  void highlightAction(const QString& action);
  const QString& highlightedAction() const { return highlighted_; }
  int highlightedBarCount() const;
  // The legend's action names, in the engine's order (action_order in timeline_items.h).
  const std::vector<std::string>& legendActions() const { return actions_; }
  // A click (not a drag) at a point of the plot: emits actionClicked for the bar there.
  void clickAt(const QPointF& pixel);
  const TimeFold& fold() const { return fold_; }
  // A plan without a one-SM timeline: the sentence shown instead ("" with a timeline) and
  // the links drawn under it (a collective's stages over time).
  QString emptyText() const;
  // What the Net lane says instead of stages ("" when it draws them or has nothing to say): a
  // fused kernel run with overlap none has its collective before or after the SM's work.
  QString netLaneNote() const { return net_note_; }
  int networkLaneCount() const;
  // The lanes drawn, top to bottom: the pipelines the plan's hardware has (no TMEM lane on
  // an H200, no Net lane on one GPU; ui/profile_pipelines.h).
  const std::vector<Resource>& lanes() const { return lanes_; }

 signals:
  void actionClicked(const QString& action);  // "" for a click on no bar

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  QWidget* makeToolBar();
  void rebuild();
  void clearScene();
  void addBars();
  void addLinkStages();
  void updateLabels();
  void keepRangeInside();
  void onMouseMove(QMouseEvent* event);
  void applyHighlight();
  void setLanes(std::vector<Resource> lanes);
  double rowOf(Resource r) const;

  QCustomPlot* plot_ = nullptr;
  QCPItemText* message_ = nullptr;
  TimelinePlaceholder* placeholder_ = nullptr;  // instead of the plot without a timeline
  QToolButton* fold_button_ = nullptr;
  QSharedPointer<FoldedTimeTicker> ticker_;
  TimeFold fold_;
  std::vector<report::TimelineEvent> events_;
  std::vector<report::NetworkStageEvent> stages_;  // on the Net lane
  std::string stage_link_;
  std::vector<std::string> actions_;  // in the engine's order (action_order): colour index
  std::vector<bool> overlapped_;      // per event: another bar on its lane overlaps it
  std::vector<QCPItemRect*> bars_;
  std::vector<QCPItemText*> bar_labels_;
  std::vector<QCPItemRect*> stage_bars_;
  std::vector<QCPItemText*> stage_labels_;
  QString net_note_;
  QCPItemText* net_note_item_ = nullptr;
  std::vector<QCPItemRect*> phase_rects_;
  std::vector<QCPItemText*> phase_labels_;
  std::vector<Resource> lanes_;
  std::vector<QCPItemRect*> lane_bands_;
  TimelinePhases phases_;
  QString highlighted_;
  QPointF press_at_;
};

}  // namespace tilesight::ui
