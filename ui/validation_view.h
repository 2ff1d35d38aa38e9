// File > Open validation corpus (issue 5): every row of a measured corpus predicted and
// plotted against its measurement, with the figures `tilesight-cli validate` prints; clicking
// a point opens that configuration in the editor.
//
//   tests/validation/h200/triton_gemm.csv  [h200 ▾] [gemm ▾] launch [3.50 µs] [✓ n_regs] [Run]
//   1160 rows: MAPE 10.1% · wMAPE 10.5% · within 10% 62% · within 20% 91% · Spearman 0.940 …
//   predicted (µs)                          ┌ problem                 rows MAPE  ρ    top-5%
//     │           ·/  ·  /                   │ gemm M=4096 N=4096 ...   58  9.4% 0.953 1.000
//     │        · /· ·  /   ±20%              │ ...
//     │      ·  /·   /                       │
//     └──────────────────── measured (µs)    └
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "ui/validation_runner.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPGraph;
class QDoubleSpinBox;
class QLabel;
class QMouseEvent;
class QPointF;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTimer;

namespace tilesight::ui {

class ValidationView : public QWidget {
  Q_OBJECT

 public:
  explicit ValidationView(QWidget* parent = nullptr);

  // Shows the setup (hardware, template, launch overhead) and predicts the corpus.
  void open(const ValidationSetup& setup);
  const ValidationResult& result() const { return result_; }
  bool busy() const;
  QCustomPlot* plot() const { return plot_; }
  QTableWidget* problems() const { return problems_; }
  QComboBox* hardwareSelector() const { return hardware_; }
  QComboBox* kernelSelector() const { return kernel_; }
  QString summaryText() const;

  // The scored row drawn at data index `index` of the scatter (sorted by measured time).
  const validate::ScoredRow* pointRow(int index) const;
  // As a click on that point does: asks for its configuration to be opened.
  void activatePoint(int index);
  // Highlights one problem's points (-1: none), as picking its row in the table does.
  void highlightProblem(int row);

 signals:
  // A point was clicked: its plan (a template instance) and a label naming the corpus row.
  void configurationRequested(const nlohmann::json& plan, const QString& label);
  void resultShown(const tilesight::ui::ValidationResult& result);

 private:
  ValidationSetup currentSetup() const;
  void run();
  void showResult(const ValidationResult& result);
  void drawGuides(double lo, double hi);
  void hover(QMouseEvent* event);
  int nearestPoint(const QPointF& pos) const;

  ValidationRunner runner_;
  ValidationSetup setup_;
  ValidationResult result_;
  std::vector<const validate::ScoredRow*> points_;  // data index -> row, sorted by measured
  QLabel* path_;
  QComboBox* hardware_;
  QComboBox* kernel_;
  QDoubleSpinBox* launch_;
  QCheckBox* registers_;
  QPushButton* run_;
  QProgressBar* progress_;
  QTimer* poll_;
  QLabel* summary_;
  QCustomPlot* plot_;
  QCPGraph* all_ = nullptr;
  QCPGraph* picked_ = nullptr;
  QTableWidget* problems_;
};

}  // namespace tilesight::ui
