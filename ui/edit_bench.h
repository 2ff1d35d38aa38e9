// `tilesight --bench-edit [PLAN]`: the 100 ms budget from an edit to the views
// updated, measured on the real main window (offscreen). Edits the plan (a gemm template: a
// cycle of tile sizes, stages and group_m; any other plan: its "name", so the engine and
// every view still run) through the session as the config panel sends a typed value, and
// times each edit to its frame drawn, two ways:
//
//   lone edit      after a pause (100 ms): predicted at once (a click on an arrow, a value
//                  typed after looking at the result)
//   end of a burst the second of two edits back to back (keys typed fast, a key held down):
//                  the first is predicted at once, the second waits for the 30 ms debounce
//                  interval to pass while the first one's update runs (PlanSession)
//
// For the lone edits also each stage: the edit's own work (undo command, panel, plan
// editor), the engine in the worker thread, every view's setPrediction (and each view's
// share, MainWindow::lastUpdateStages), the frame after (layouts, queued replots, paint;
// wall and UI thread CPU), and the UI thread's CPU time for the whole edit (its work without
// the waits for a core that stretch the wall times on a loaded machine). Then each view on
// its own (setPrediction, layout and repaint over the same predictions, CPU time). Medians,
// 95th percentiles and maxima in ms.
#pragma once

#include <QString>
#include <vector>

namespace tilesight::ui {

class MainWindow;

struct LatencyStats {
  double median = 0, p95 = 0, max = 0;
};
LatencyStats latency_stats(std::vector<double> ms);

struct EditBenchRow {
  QString what;
  LatencyStats stats;
};

// Runs `edits` edits of the window's current plan; empty when a prediction failed or timed out
// (`error` says which).
std::vector<EditBenchRow> bench_edits(MainWindow& window, int edits, QString* error);

// The rows as a table for the terminal.
QString format_edit_bench(const std::vector<EditBenchRow>& rows);

}  // namespace tilesight::ui
