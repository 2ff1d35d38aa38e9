// The QCustomPlot items a one-SM timeline is drawn with (TimelineView puts them together):
//
//   lane axis     TC / CUDA / ... / DRAM / Net down the left, one row per lane
//   lane bands    every other row lightly shaded, so a bar's lane reads at a glance
//   phase shade   prologue (blue), steady state (grey), epilogue (orange), titled above
//   fold band     the folded steady state: hatched, "repeats / 29 µs folded"
//   bar           one report::TimelineEvent, coloured by action, its name inside
//   legend        one swatch per action, in its own row under the plot
//
// Free functions over a plot: they create the items and hand them back; the view keeps them
// to remove, relabel or highlight later.
#pragma once

#include <QColor>
#include <QString>
#include <string>
#include <vector>

#include "tilesight/hw/resource.h"
#include "tilesight/report/prediction.h"
#include "ui/plot_style.h"
#include "ui/time_fold.h"

class QCustomPlot;
class QCPItemRect;
class QCPItemText;

namespace tilesight::ui {

inline constexpr double kBarHalfHeight = 0.34;  // of a lane's height (1)
inline constexpr const char* kShadingLayer = "shading";
inline constexpr const char* kBarLabelLayer = "bar labels";

// Where the prologue ends, the epilogue starts and the timeline ends (µs), from the events'
// phases; no prologue: it ends at the end; no epilogue: it starts at the end.
struct TimelinePhases {
  double prologue_end = 0, epilogue_start = 0, end = 0;
};
TimelinePhases timeline_phases(const std::vector<report::TimelineEvent>& events);

// The actions in the engine's order, which the legend and the colours follow: what runs
// before the first loop, then each loop's actions in its best order (eq. 5; the report's
// "order: load_x -> reduce -> load_w -> apply -> store_out"), then what runs after, each
// part by time. (Ordered by first bar instead, a row walk's legend read load_x, load_w,
// reduce: its loads run ahead of its arithmetic.)
std::vector<std::string> action_order(const std::vector<report::TimelineEvent>& events,
                                      const std::vector<report::LoopReport>& loops);

// The plot's layers (shading under the grid, bar labels above the bars), its legend row and
// its lane axis: one row per lane, top to bottom.
void set_up_timeline_plot(QCustomPlot& plot);
void set_lane_axis(QCustomPlot& plot, const std::vector<Resource>& lanes);

// Every other lane shaded, across the whole axis rect.
std::vector<QCPItemRect*> add_lane_bands(QCustomPlot& plot, std::size_t lanes);

struct ShadedSpan {
  QCPItemRect* rect = nullptr;  // nullptr: nothing to draw (an empty span)
  QCPItemText* label = nullptr;
};
// A phase of the loop from `from` to `to` (real times), its title above the plot.
ShadedSpan add_phase(QCustomPlot& plot, const TimeFold& fold, double from, double to, Phase phase,
                     const QString& title);
// The folded part of the steady state, with how much time it stands for.
ShadedSpan add_fold_band(QCustomPlot& plot, const TimeFold& fold);

struct BarItems {
  QCPItemRect* bar = nullptr;
  QCPItemText* label = nullptr;
};
// An event on the lane in row `row`: drawn with `reuse`'s items where it has them (a
// rebuild moves the bars it already has instead of making new ones), else new items.
BarItems add_bar(QCustomPlot& plot, const TimeFold& fold, const report::TimelineEvent& event, double row,
                 const QColor& color, BarItems reuse = {});

// A fused kernel's (ag_gemm, gemm_rs, ulysses_attention) Net lane: the collective stages of
// one link, the busiest, that start before `until_us` (the SM lanes' end), every run of a
// recurring one, in time order; drawn on the same clock as the SM's bars.
std::vector<report::NetworkStageEvent> link_stages(const report::NetworkReport& network, double until_us);
// A stage that runs on past `until_us` is drawn to there, its label saying where it ends.
BarItems add_link_stage(QCustomPlot& plot, const TimeFold& fold, const report::NetworkStageEvent& stage,
                        double row, double until_us);

// A lane with nothing to draw on the SM's clock, and why, in grey across it ("overlap none:
// the all_gather runs alone, before this kernel").
QCPItemText* add_lane_note(QCustomPlot& plot, double row, const QString& text);

// One legend swatch per action name, in this order (action_color(i) for the i-th).
void add_action_legend(QCustomPlot& plot, const std::vector<std::string>& actions);
// As many legend columns as the widest name allows at the plot's width, so no name is cut.
void wrap_legend(QCustomPlot& plot, const std::vector<std::string>& actions);

}  // namespace tilesight::ui
