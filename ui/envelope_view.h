// The pipeline envelope (eq. 2) as stacked bars: prologue, steady state and epilogue of each
// loop of the tile body (one SM of a full wave) and of each wave kind, full and tail:
//
//   µs  70 |           ┌───┐  ┌───┐      62.8 µs ×3   62.8 µs ×1
//          |           │ ▒ │  │ ▒ │      ▒ steady: the repeated iterations, max(N−d,0)·T_steady
//          |  ┌───┐    │ ▒ │  │ ▒ │      ░ prologue: filling the pipeline (T_pro)
//          |  │ ▒ │    │ ░ │  │ ░ │      █ epilogue: draining it and the store (T_epi)
//          +--loop k---full---tail--
//
// Full waves run `count` times one after another, so their bar is one wave and the label
// gives the count; the tail wave has its own active-SM bandwidth share. A plan with neither
// (a collective, a decode step of many kernels) shows a sentence instead of empty axes:
//
//   No pipelined loop in this plan: all_reduce is a collective, its stages are in the
//   network lanes.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "tilesight/report/prediction.h"

class QCustomPlot;
class QCPBars;
class QCPItemText;
class QLabel;
class QMouseEvent;

namespace tilesight::ui {

class EnvelopeView : public QWidget {
  Q_OBJECT

 public:
  explicit EnvelopeView(QWidget* parent = nullptr);

  void setPrediction(const report::Prediction& prediction);
  QCustomPlot* plot() const { return plot_; }
  // One stack per loop and per wave kind, in the order drawn.
  int stackCount() const { return static_cast<int>(stacks_.size()); }
  // The sentence shown instead of the plot ("" while the plot is shown).
  QString message() const;
  QStringList tickLabels() const;  // as drawn, left to right
  // Over the stacks, left to right: "48.7 µs", or "48.7" in a narrow dock.
  QStringList totalLabels() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 public:

 private:
  struct Stack {
    QString label;    // axis tick
    QString details;  // tooltip
    double prologue = 0, steady = 0, epilogue = 0;
    QString short_label;  // the tick in a narrow dock: "kv\n1 SM", "full\n×15"
  };

  void rebuild();
  double total(std::size_t stack) const;  // µs
  void fitLabels();  // the short ticks and a two-column legend when the long ones would collide
  void showEmpty(const report::Prediction& prediction);
  void onMouseMove(QMouseEvent* event);

  QCustomPlot* plot_ = nullptr;
  QCPBars* prologue_ = nullptr;
  QCPBars* steady_ = nullptr;
  QCPBars* epilogue_ = nullptr;
  QCPItemText* message_ = nullptr;
  QLabel* empty_ = nullptr;  // instead of the plot when there is nothing to stack
  std::vector<QCPItemText*> totals_;
  std::vector<Stack> stacks_;
};

}  // namespace tilesight::ui
