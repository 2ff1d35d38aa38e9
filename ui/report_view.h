// The prediction in words and numbers, as the CLI's text report says it, plus errors:
//
//   ┌ params.warps: 64 warps is 2048 threads; a block holds at most 1024 ┐  (red, only
//   └ showing the last good prediction                                    ┘   after a bad edit)
//   gemm M=4096 N=4096 K=4096 bf16 tile 128x128x64 on h200 (datasheet profile)
//   Latency      256 µs              launch overhead 4.8 µs
//   Envelope     prologue 10.5 µs · steady 231 µs · epilogue 9.49 µs
//   Blocks       1,024 in 4 waves (3 full + 1 tail), 2 resident per SM (shared memory)
//   Throughput   537 TFLOP/s
//   Cache        L2 hit rate 97% (first-touch (infinite L2)), DRAM 96.3 MiB
//   Bottleneck   L2, 95% busy
//   [utilisation table: UtilizationModel + UtilizationDelegate; columns sized for the
//    widest name and time, not the figures of the moment, so it keeps its geometry while
//    the user edits; in a narrow report the lane names (SMEM, L2) so that the bars fit]
//   Diagnosis    • L2 95% busy: the bottleneck; next is tensor core at 62%. ...
//
// A bad edit never clears the view: the errors (each with its JSON path) appear on top and
// the last good prediction stays below them.
#pragma once

#include <QWidget>

#include "tilesight/report/prediction.h"
#include "tilesight/util/result.h"

class QLabel;
class QTableView;

namespace tilesight::ui {

class RichTextBlock;
class UtilizationModel;

class ReportView : public QWidget {
  Q_OBJECT

 public:
  explicit ReportView(QWidget* parent = nullptr);

  void setPrediction(const report::Prediction& prediction);
  void showErrors(const Errors& errors);
  void clearErrors();

  QString errorText() const;      // plain text of the error banner, "" when hidden
  QString latencyText() const;    // "256 µs"
  QString diagnosisText() const;  // plain text of the diagnosis list
  QString summaryText() const;    // plain text of the rows under the latency
  UtilizationModel* utilizationModel() const { return model_; }
  QTableView* utilizationTable() const { return table_; }
  // The narrowest the bars' column gets before the names turn to lane names.
  int minimumBarsWidth() const { return columns_.min_bars; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;  // the table's width

 private:
  struct ColumnWidths {
    int full_name = 0, short_name = 0, busy = 0, min_bars = 0;
  };
  void measureColumns();
  void fitColumns();
  void fitTableHeight(int rows);
  QLabel* error_ = nullptr;
  RichTextBlock* title_ = nullptr;
  RichTextBlock* latency_ = nullptr;
  RichTextBlock* summary_ = nullptr;
  QTableView* table_ = nullptr;
  RichTextBlock* diagnosis_ = nullptr;
  UtilizationModel* model_ = nullptr;
  ColumnWidths columns_;
  QString latency_text_;
  bool has_prediction_ = false;
  int fitted_rows_ = -1;
};

}  // namespace tilesight::ui
