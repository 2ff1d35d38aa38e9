// What-if topology (issue 7, "Go beyond"): the plan's predicted latency as one link type's
// bandwidth is scaled from ×0.5 to ×4, for a system that does not exist yet ("what if the
// NVLink were twice as fast?"). The engine predicts each point (WhatIfRunner, off the UI
// thread) through its what-if support; the communication alone is drawn beside it, so a
// fused kernel shows where its communication stops being hidden under the compute:
//
//   Scale the bandwidth of [nvlink4 ▾]
//   ×2 bandwidth: 1.36 ms → 708 µs (−48.0%)
//   time (µs)
//     ●──●─────●──────●───●───●──   kernel latency
//      ╲                             communication alone (drawn when it overlaps compute)
//       ●──●───●──── ...
//     ×0.5   ×1    ×2         ×4     nvlink4 bandwidth (× the profile's)
//
// A single-GPU plan has no links: the view says so. Sweeps run only while the view is shown.
#pragma once

#include <QWidget>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilesight/report/prediction.h"
#include "ui/what_if_runner.h"

class QComboBox;
class QCustomPlot;
class QCPItemText;
class QLabel;

namespace tilesight::ui {
class RichTextBlock;
}

namespace tilesight::ui {

class WhatIfView : public QWidget {
  Q_OBJECT

 public:
  static const std::vector<double>& factors();  // 0.5 .. 4

  explicit WhatIfView(QWidget* parent = nullptr);

  // The plan the prediction was made from and the prediction (for the link types and the
  // bottleneck link's type, the default choice).
  void setPrediction(const report::Prediction& prediction, const nlohmann::json& plan);
  QComboBox* linkTypeSelector() const { return types_; }
  QCustomPlot* plot() const { return plot_; }
  const WhatIfSweep& sweep() const { return sweep_; }
  QString message() const;  // the plot's message, "" when a sweep is drawn
  QString summary() const;
  WhatIfRunner& runner() { return runner_; }

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void run();
  void draw(const WhatIfSweep& sweep);
  void showMessage(const QString& text);
  void wrapLegend();

  WhatIfRunner runner_;
  QComboBox* types_ = nullptr;
  RichTextBlock* summary_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPItemText* message_ = nullptr;
  nlohmann::json plan_;
  WhatIfSweep sweep_;
  bool stale_ = false;  // the plan changed while hidden
};

}  // namespace tilesight::ui
