// What-if topology (issue 7, "Go beyond"): a system that does not exist yet, for the plan in
// the editor, on two tabs. Bandwidth: the plan's predicted latency as one link type's
// bandwidth is scaled from ×0.5 to ×4 ("what if the NVLink were twice as fast?"). Topology:
// the plan on each structural variant of its system (net::topology_variants: a rail more of
// each link type, a level removed, NVLink over all nodes). The engine predicts each point
// (WhatIfRunner, off the UI thread) through its what-if support; the communication alone is
// drawn beside a kernel that overlaps it, so a fused kernel shows where its communication
// stops being hidden under the compute. On all_reduce_b200x32.json:
//
//   ×2 bandwidth: 6.54 ms → 3.4 ms (−48.0%)
//   fastest topology, nvlink5 over all 32 GPUs: 6.54 ms → 3.11 ms (−52.5%)
//   [Bandwidth] [Topology]
//   ■ kernel latency
//   as specified
//   ██████████████████ 6.54 ms
//   +1 ib_ndr rail
//   █████████ 3.4 ms −48.0%
//   without nvlink5
//   ███████████████████████████ 47.1 ms +620.0% ▸
//   0        2000       4000      6000   latency (µs)
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
class QTabWidget;

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
  QCustomPlot* variantPlot() const { return variants_; }
  QTabWidget* tabs() const { return tabs_; }  // "Bandwidth", "Topology"
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
  void drawVariants(const std::vector<VariantPoint>& variants);
  QString variantSummary() const;
  void showMessage(const QString& text);
  void clearVariants(const QString& message);
  void wrapLegend();

  WhatIfRunner runner_;
  QComboBox* types_ = nullptr;
  RichTextBlock* summary_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPItemText* message_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QCustomPlot* variants_ = nullptr;
  QCPItemText* variant_message_ = nullptr;
  std::vector<QCPItemText*> variant_values_;  // the value at each bar's end
  nlohmann::json plan_;
  WhatIfSweep sweep_;
  bool stale_ = false;  // the plan changed while hidden
};

}  // namespace tilesight::ui
