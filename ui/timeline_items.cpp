#include "ui/timeline_items.h"

#include <qcustomplot.h>

#include <algorithm>
#include <limits>
#include <map>

#include "ui/format.h"

namespace tilesight::ui {

TimelinePhases timeline_phases(const std::vector<report::TimelineEvent>& events) {
  TimelinePhases phases;
  double prologue_end = 0, epilogue_start = -1;
  for (const auto& e : events) {
    phases.end = std::max(phases.end, e.end_us);
    if (e.phase == "prologue") prologue_end = std::max(prologue_end, e.end_us);
    if (e.phase == "epilogue" && (epilogue_start < 0 || e.start_us < epilogue_start)) epilogue_start = e.start_us;
  }
  phases.prologue_end = prologue_end > 0 ? prologue_end : phases.end;
  phases.epilogue_start = epilogue_start >= 0 ? std::max(epilogue_start, phases.prologue_end) : phases.end;
  return phases;
}

std::vector<std::string> action_order(const std::vector<report::TimelineEvent>& events,
                                      const std::vector<report::LoopReport>& loops) {
  // Rank: (part, position in the part) with part 0 before the loops, 1 a loop's, 2 after.
  std::map<std::string, std::pair<int, double>> rank;
  double position = 0;
  for (const auto& loop : loops)
    for (const auto& name : loop.best_order) rank.emplace(name, std::make_pair(1, position++));
  double first_loop_bar = std::numeric_limits<double>::infinity();
  for (const auto& e : events)
    if (e.iteration >= 0) first_loop_bar = std::min(first_loop_bar, e.start_us);
  for (const auto& e : events)  // by start time: the first bar of each action decides
    rank.emplace(e.action, std::make_pair(e.start_us < first_loop_bar ? 0 : 2, e.start_us));
  std::vector<std::string> order;
  for (const auto& e : events)
    if (std::find(order.begin(), order.end(), e.action) == order.end()) order.push_back(e.action);
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return rank.at(a) < rank.at(b); });
  return order;
}

void set_up_timeline_plot(QCustomPlot& plot) {
  plot.addLayer(kShadingLayer, plot.layer("grid"), QCustomPlot::limBelow);
  plot.addLayer(kBarLabelLayer, plot.layer("main"), QCustomPlot::limAbove);
  // The legend (one swatch per action) in its own row under the plot, clear of the bars.
  plot.axisRect()->insetLayout()->take(plot.legend);
  plot.plotLayout()->addElement(1, 0, plot.legend);
  plot.plotLayout()->setRowStretchFactor(1, 0.001);
  plot.legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot.legend->setBorderPen(Qt::NoPen);
  plot.legend->setMargins(QMargins(4, 0, 4, 2));
  plot.legend->setWrap(10);
  plot.legend->setVisible(false);
}

void set_lane_axis(QCustomPlot& plot, const std::vector<Resource>& lanes) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (std::size_t row = 0; row < lanes.size(); ++row)
    ticker->addTick(static_cast<double>(row), to_qstring(resource_lane(lanes[row])));
  plot.yAxis->setTicker(ticker);
  plot.yAxis->setRangeReversed(true);
  plot.yAxis->setRange(-0.5, static_cast<double>(lanes.size()) - 0.5);
  plot.yAxis->grid()->setVisible(false);
  plot.yAxis->setSubTicks(false);
  plot.yAxis->setTickLength(0, 0);
}

std::vector<QCPItemRect*> add_lane_bands(QCustomPlot& plot, std::size_t lanes) {
  std::vector<QCPItemRect*> bands;
  for (std::size_t lane = 0; lane < lanes; lane += 2) {
    auto* band = new QCPItemRect(&plot);
    band->setLayer(kShadingLayer);
    for (auto* pos : {band->topLeft, band->bottomRight}) pos->setTypeX(QCPItemPosition::ptAxisRectRatio);
    band->topLeft->setCoords(0, static_cast<double>(lane) - 0.5);
    band->bottomRight->setCoords(1, static_cast<double>(lane) + 0.5);
    band->setPen(Qt::NoPen);
    band->setBrush(QColor(0xf3, 0xf4, 0xf6));
    band->setSelectable(false);
    bands.push_back(band);
  }
  return bands;
}

ShadedSpan add_phase(QCustomPlot& plot, const TimeFold& fold, double from, double to, Phase phase,
                     const QString& title) {
  if (to <= from) return {};
  auto* rect = new QCPItemRect(&plot);
  rect->setLayer(kShadingLayer);
  for (auto* pos : {rect->topLeft, rect->bottomRight}) pos->setTypeY(QCPItemPosition::ptAxisRectRatio);
  rect->topLeft->setCoords(fold.to_view(from), 0);
  rect->bottomRight->setCoords(fold.to_view(to), 1);
  rect->setPen(Qt::NoPen);
  rect->setBrush(phase_shade(phase));
  rect->setSelectable(false);

  auto* text = new QCPItemText(&plot);  // above the plot, clear of the bars
  text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords((fold.to_view(from) + fold.to_view(to)) / 2, 0);
  text->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
  text->setClipToAxisRect(false);
  text->setText(title);
  text->setColor(QColor(0x55, 0x55, 0x55));
  text->setPadding(QMargins(3, 0, 3, 3));
  text->setSelectable(false);
  return {rect, text};
}

ShadedSpan add_fold_band(QCustomPlot& plot, const TimeFold& fold) {
  if (!fold.active()) return {};
  auto* rect = new QCPItemRect(&plot);
  rect->setLayer(kShadingLayer);
  for (auto* pos : {rect->topLeft, rect->bottomRight}) pos->setTypeY(QCPItemPosition::ptAxisRectRatio);
  rect->topLeft->setCoords(fold.from, 0);
  rect->bottomRight->setCoords(fold.from + fold.width, 1);
  rect->setPen(QPen(QColor(0x9a, 0x9a, 0x9a), 0, Qt::DashLine));
  rect->setBrush(QBrush(QColor(0xb0, 0xb0, 0xb0), Qt::BDiagPattern));
  rect->setSelectable(false);

  auto* text = new QCPItemText(&plot);
  text->position->setType(QCPItemPosition::ptAxisRectRatio);
  text->position->setTypeX(QCPItemPosition::ptPlotCoords);
  text->position->setCoords(fold.from + fold.width / 2, 0.5);
  text->setText(QObject::tr("repeats\n%1 folded").arg(format_time_us(fold.to - fold.from)));
  text->setColor(QColor(0x44, 0x44, 0x44));
  text->setBrush(QColor(255, 255, 255, 230));
  text->setPadding(QMargins(4, 3, 4, 3));
  text->setSelectable(false);
  return {rect, text};
}

BarItems add_bar(QCustomPlot& plot, const TimeFold& fold, const report::TimelineEvent& e, double row,
                 const QColor& color, BarItems reuse) {
  const double from = fold.to_view(e.start_us), to = fold.to_view(e.end_us);
  auto* bar = reuse.bar ? reuse.bar : new QCPItemRect(&plot);
  bar->topLeft->setCoords(from, row - kBarHalfHeight);
  bar->bottomRight->setCoords(to, row + kBarHalfHeight);
  bar->setBrush(color);
  bar->setPen(QPen(color.darker(150), 0));
  bar->setSelectable(false);

  auto* label = reuse.label ? reuse.label : new QCPItemText(&plot);
  label->position->setCoords((from + to) / 2, row);
  const QString iteration = e.iteration >= 0 ? QStringLiteral(" %1").arg(e.iteration) : QString();
  label->setText(QString::fromStdString(e.action) + iteration);
  label->setColor(color.lightness() > 150 ? text_color() : Qt::white);
  label->setSelectable(false);
  label->setLayer(kBarLabelLayer);
  return {bar, label};
}

std::vector<report::NetworkStageEvent> link_stages(const report::NetworkReport& network, double until_us) {
  std::vector<report::NetworkStageEvent> out;
  if (network.links.empty()) return out;
  const std::string& link = network.links.front().link;
  for (const auto& e : network.events) {
    if (e.link != link) continue;
    report::for_each_stage_run(e, [&](std::int64_t stage, double start, double end) {
      if (start >= until_us) return;
      report::NetworkStageEvent run = e;
      run.stage = stage;
      run.start_us = start;
      run.end_us = end;
      run.repeat = 1;
      run.runs = 1;
      out.push_back(run);
    });
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start_us < b.start_us; });
  return out;
}

// The Network lanes' blue (ui/network_lanes.cpp), outlined, the step inside.
BarItems add_link_stage(QCustomPlot& plot, const TimeFold& fold, const report::NetworkStageEvent& stage,
                        double row, double until_us) {
  const bool runs_on = stage.end_us > until_us && stage.start_us < until_us;
  report::TimelineEvent as_bar{.action = stage.collective, .resource = Resource::kNet, .start_us = stage.start_us,
                               .end_us = runs_on ? until_us : stage.end_us, .iteration = stage.stage};
  BarItems items = add_bar(plot, fold, as_bar, row, QColor(0x4c, 0x78, 0xa8));
  QString text = QStringLiteral("%1 %2").arg(QString::fromStdString(stage.label)).arg(stage.stage);
  if (runs_on) text += QObject::tr(" → %1").arg(format_time_us(stage.end_us));
  items.label->setText(text);
  return items;
}

QCPItemText* add_lane_note(QCustomPlot& plot, double row, const QString& text) {
  auto* note = new QCPItemText(&plot);
  note->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  note->position->setCoords(0.5, row);
  note->setText(text);
  note->setColor(muted_text_color());
  note->setSelectable(false);
  note->setLayer(kBarLabelLayer);
  return note;
}

void add_action_legend(QCustomPlot& plot, const std::vector<std::string>& actions) {
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const QColor color = action_color(static_cast<int>(i));
    auto* swatch = new QCPBars(plot.xAxis, plot.yAxis);  // no data: a legend entry only
    swatch->setName(QString::fromStdString(actions[i]));
    swatch->setBrush(color);
    swatch->setPen(QPen(color.darker(140)));
  }
  wrap_legend(plot, actions);
  plot.legend->setVisible(!actions.empty());
}

// "load_kv_latent", not "load_kv_l": more rows instead of cut names.
void wrap_legend(QCustomPlot& plot, const std::vector<std::string>& actions) {
  const QFontMetrics metrics(plot.legend->font());
  int widest = 0;
  for (const auto& name : actions)
    widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(name)));
  const int column = widest + plot.legend->iconSize().width() + plot.legend->iconTextPadding() + 16;
  const int columns = std::max(1, (plot.width() - 16) / std::max(column, 1));
  if (plot.legend->wrap() == columns) return;
  plot.legend->setWrap(columns);
  plot.legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // re-flow the entries
}

}  // namespace tilesight::ui
