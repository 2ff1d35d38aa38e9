// `tilesight --bench-edit [PLAN]`: the 100 ms budget from an edit to the views
// updated, measured on the real main window (offscreen). Applies N edits to the plan (a
// gemm template: a cycle of tile sizes, stages and group_m; any other plan: its "name", so
// the engine and every view still run) one at a time, each through the session as the
// config panel sends it, and times for each:
//
//   edit itself   the edit's own work on the UI thread (undo command, panel, plan editor)
//   engine        the prediction in the worker thread
//   setPrediction every view's setPrediction (the UI thread's share of "views set")
//   views set     from the end of the debounce to every view's setPrediction returned
//   painted       ... and the next frame drawn (pending layouts, every view the edit dirtied)
//   edit->painted the edit itself + the above (no debounce), and the wall time from the edit
//                 to the frame drawn (the 40 ms debounce in it)
//   UI thread CPU the UI thread's CPU time for the whole edit: its work without the waits
//                 for a core that stretch the wall times on a loaded machine
//
// then each view on its own (setPrediction + repaint over the same predictions, CPU time),
// to show where the time goes. Medians, 95th percentiles and maxima in ms.
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
