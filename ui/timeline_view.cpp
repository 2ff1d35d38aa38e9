#include "ui/timeline_view.h"

#include <QAction>

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <map>

#include "ui/format.h"
#include "ui/network_lanes.h"
#include "ui/plot_style.h"

namespace tilesight::ui {

namespace {

constexpr double kBarHalfHeight = 0.34;
constexpr double kMinSpanUs = 0.01;
const char* const kShadingLayer = "shading";
const char* const kLabelLayer = "bar labels";

QString lane_name(Resource r) {
  return to_qstring(resource_lane(r));
}

void set_lane_axis(QCustomPlot& plot) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (Resource r : kAllResources) ticker->addTick(static_cast<double>(index(r)), lane_name(r));
  plot.yAxis->setTicker(ticker);
  plot.yAxis->setRangeReversed(true);
  plot.yAxis->setRange(-0.5, static_cast<double>(kResourceCount) - 0.5);
  plot.yAxis->grid()->setVisible(false);
  plot.yAxis->setSubTicks(false);
  plot.yAxis->setTickLength(0, 0);
}

// The legend (one swatch per action) in its own row under the plot, clear of the bars.
void put_legend_below(QCustomPlot& plot) {
  plot.axisRect()->insetLayout()->take(plot.legend);
  plot.plotLayout()->addElement(1, 0, plot.legend);
  plot.plotLayout()->setRowStretchFactor(1, 0.001);
  plot.legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot.legend->setBorderPen(Qt::NoPen);
  plot.legend->setMargins(QMargins(4, 0, 4, 2));
  plot.legend->setWrap(10);
  plot.legend->setVisible(false);
}

}  // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent),
      plot_(new QCustomPlot(this)),
      ticker_(QSharedPointer<FoldedTimeTicker>::create()) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(makeToolBar());
  layout->addWidget(plot_, 1);
  // Instead of the plot for a plan without a one-SM timeline: why, and the Net pipeline's
  // own timeline (the stages of its collectives per link) when it has one.
  empty_page_ = new QWidget(this);
  auto* page = new QVBoxLayout(empty_page_);
  page->setContentsMargins(24, 16, 24, 16);
  empty_ = new QLabel(empty_page_);
  empty_->setAlignment(Qt::AlignCenter);
  empty_->setWordWrap(true);
  empty_->setStyleSheet(QStringLiteral("color: gray;"));
  page->addWidget(empty_);
  net_lanes_ = new NetworkLanes(empty_page_);
  page->addWidget(net_lanes_);
  page->addStretch(1);
  empty_page_->hide();
  layout->addWidget(empty_page_, 1);

  apply_plot_style(*plot_);
  plot_->addLayer(kShadingLayer, plot_->layer("grid"), QCustomPlot::limBelow);
  plot_->addLayer(kLabelLayer, plot_->layer("main"), QCustomPlot::limAbove);
  set_lane_axis(*plot_);
  plot_->xAxis->setTicker(ticker_);
  plot_->xAxis->setSubTicks(false);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  put_legend_below(*plot_);
  plot_->axisRect()->setMinimumMargins(QMargins(0, QFontMetrics(plot_->font()).height() + 6, 0, 0));
  message_ = add_plot_message(*plot_);
  set_plot_message(message_, tr("no timeline yet"));
  addLaneBands();
  connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          [this] { keepRangeInside(); });
  connect(plot_, &QCustomPlot::afterLayout, this, [this] { updateLabels(); });
  connect(plot_, &QCustomPlot::mouseMove, this, &TimelineView::onMouseMove);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { fitAll(); });
  connect(plot_, &QCustomPlot::mousePress, this,
          [this](QMouseEvent* event) { press_at_ = event->position(); });
  connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
    if ((event->position() - press_at_).manhattanLength() <= 4) clickAt(event->position());
  });
  plot_->replot();
}

QWidget* TimelineView::makeToolBar() {
  auto* bar = new QWidget(this);
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(4, 2, 4, 0);
  auto button = [&](const QString& text, const QString& tip, auto slot) {
    auto* b = new QToolButton(bar);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, this, slot);
    row->addWidget(b);
    return b;
  };
  button(tr("Fit"), tr("Show the whole timeline, undoing any zoom (Ctrl+0, or double-click the plot)"),
         [this] { fitAll(); });
  button(tr("Prologue"), tr("Zoom to the prologue: the pipeline filling up"),
         [this] { zoomTo(0, phases_.prologue_end); });
  button(tr("Epilogue"), tr("Zoom to the epilogue: the pipeline draining and the store"),
         [this] { zoomTo(phases_.epilogue_start, phases_.end); });
  fold_button_ = button(tr("Fold steady state"),
                        tr("Squeeze the repeated steady state into a band so that the prologue and "
                           "the epilogue are drawn large; uncheck for a linear time axis"),
                        [this](bool on) { setFoldSteadyState(on); });
  fold_button_->setCheckable(true);
  fold_button_->setChecked(true);
  // Keys as in a browser or Perfetto: Ctrl+0 resets the zoom, Ctrl++ and Ctrl+- step it.
  auto shortcut = [this](const char* name, const QString& text, QList<QKeySequence> keys, auto slot) {
    auto* action = new QAction(text, this);
    action->setObjectName(QLatin1String(name));
    action->setShortcuts(keys);
    action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(action, &QAction::triggered, this, slot);
    addAction(action);
  };
  constexpr double kStep = 1.5;
  shortcut("timeline_fit", tr("Reset zoom"), {QKeySequence(Qt::CTRL | Qt::Key_0)}, [this] { fitAll(); });
  shortcut("timeline_zoom_in", tr("Zoom in"), {QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)},
           [this] { zoomBy(kStep); });
  shortcut("timeline_zoom_out", tr("Zoom out"), {QKeySequence::ZoomOut}, [this] { zoomBy(1 / kStep); });
  row->addStretch(1);
  auto* hint = new QLabel(tr("drag to pan · wheel or Ctrl+wheel to zoom · Ctrl+0 fits · hover a bar for details"), bar);
  hint->setObjectName(QStringLiteral("timeline_hint"));
  hint->setStyleSheet(QStringLiteral("color: gray;"));
  row->addWidget(hint);
  return bar;
}

void TimelineView::addLaneBands() {
  for (std::size_t lane = 0; lane < kResourceCount; lane += 2) {
    auto* band = new QCPItemRect(plot_);
    band->setLayer(kShadingLayer);
    for (auto* pos : {band->topLeft, band->bottomRight})
      pos->setTypeX(QCPItemPosition::ptAxisRectRatio);
    band->topLeft->setCoords(0, static_cast<double>(lane) - 0.5);
    band->bottomRight->setCoords(1, static_cast<double>(lane) + 0.5);
    band->setPen(Qt::NoPen);
    band->setBrush(QColor(0xf3, 0xf4, 0xf6));
    band->setSelectable(false);
    lane_bands_.push_back(band);
  }
}

void TimelineView::setPrediction(const report::Prediction& prediction) {
  events_ = prediction.timeline;
  showWithoutTimeline(prediction);
  phases_ = {};
  double prologue_end = 0, epilogue_start = -1;
  for (const auto& e : events_) {
    phases_.end = std::max(phases_.end, e.end_us);
    if (e.phase == "prologue") prologue_end = std::max(prologue_end, e.end_us);
    if (e.phase == "epilogue" && (epilogue_start < 0 || e.start_us < epilogue_start))
      epilogue_start = e.start_us;
  }
  phases_.prologue_end = prologue_end > 0 ? prologue_end : phases_.end;
  phases_.epilogue_start =
      epilogue_start >= 0 ? std::max(epilogue_start, phases_.prologue_end) : phases_.end;
  rebuild();
}

// What a plan without a one-SM timeline shows in its place: a collective's (or a decode
// step's) link stages over time, the Net lane at full size.
void TimelineView::showWithoutTimeline(const report::Prediction& p) {
  const bool lanes = !p.network.empty() && !p.network.events.empty();
  net_lanes_->setNetwork(p.network, p.latency_us);
  net_lanes_->setVisible(lanes);
  const QString kernel = QString::fromStdString(p.kernel).toHtmlEscaped();
  QString why = p.serve.step_us > 0
                    ? tr("<b>%1</b> is a decode step of many kernels: it has no one-SM timeline (the "
                         "report lists the time of each kernel).")
                          .arg(kernel)
                    : tr("<b>%1</b> runs on the network: it has no one-SM timeline.").arg(kernel);
  if (lanes)
    why += QStringLiteral("<br>") + tr("Its collective stages per link over time (%1, busiest links first):")
                                        .arg(format_time_us(p.latency_us));
  empty_->setText(why);
  for (QToolButton* b : findChildren<QToolButton*>()) b->setEnabled(!p.timeline.empty());
  findChild<QLabel*>(QStringLiteral("timeline_hint"))->setVisible(!p.timeline.empty());
}

int TimelineView::networkLaneCount() const {
  return net_lanes_->isHidden() ? 0 : net_lanes_->lanes();
}

QString TimelineView::emptyText() const {
  return empty_page_->isHidden() ? QString() : empty_->text();
}

void TimelineView::setFoldSteadyState(bool fold) {
  if (fold_button_->isChecked() != fold) fold_button_->setChecked(fold);
  rebuild();
}

void TimelineView::rebuild() {
  clearScene();
  std::vector<std::pair<double, double>> intervals;
  for (const auto& e : events_) intervals.emplace_back(e.start_us, e.end_us);
  fold_ = fold_button_->isChecked() ? TimeFold::largest_gap(intervals) : TimeFold{};
  ticker_->setFold(fold_);
  plot_->xAxis->setLabel(fold_.active()
                             ? tr("time on one SM of the first wave (µs); steady state folded")
                             : tr("time on one SM of the first wave (µs)"));
  addPhase(0, phases_.prologue_end, static_cast<int>(Phase::kPrologue), tr("prologue"));
  addPhase(phases_.prologue_end, phases_.epilogue_start, static_cast<int>(Phase::kSteady),
           tr("steady state"));
  addPhase(phases_.epilogue_start, phases_.end, static_cast<int>(Phase::kEpilogue), tr("epilogue"));
  addFoldBand();
  addBars();
  addLegend();
  applyHighlight();
  // A composed prediction (llm_decode: many kernels) has no one-SM timeline: the message
  // alone, not empty lanes under a squeezed axis.
  plot_->setVisible(!events_.empty());
  empty_page_->setVisible(events_.empty());
  set_plot_message(message_, {});
  fitAll();
}

// Colours in order of first appearance. A bar that overlaps another on its lane gets no
// label (its tooltip still names it), so text never sits on a neighbour's bar.
void TimelineView::addBars() {
  std::map<std::string, int> colour;
  actions_.clear();
  for (const auto& e : events_)
    if (colour.emplace(e.action, static_cast<int>(actions_.size())).second)
      actions_.push_back(e.action);
  overlapped_.assign(events_.size(), false);
  for (std::size_t i = 0; i < events_.size(); ++i)
    for (std::size_t j = i + 1; j < events_.size(); ++j) {
      const auto &a = events_[i], &b = events_[j];
      if (a.resource == b.resource && a.start_us < b.end_us && b.start_us < a.end_us)
        overlapped_[i] = overlapped_[j] = true;
    }
  for (const auto& e : events_) addBar(e, action_color(colour.at(e.action)));
}

void TimelineView::addLegend() {
  for (std::size_t i = 0; i < actions_.size(); ++i) {
    const QColor color = action_color(static_cast<int>(i));
    auto* swatch = new QCPBars(plot_->xAxis, plot_->yAxis);  // no data: a legend entry only
    swatch->setName(QString::fromStdString(actions_[i]));
    swatch->setBrush(color);
    swatch->setPen(QPen(color.darker(140)));
  }
  wrapLegend();
  plot_->legend->setVisible(!events_.empty());
}

// As many legend columns as the widest name allows at this width, so that no name is cut
// ("load_kv_latent", not "load_kv_l"); more rows instead.
void TimelineView::wrapLegend() {
  const QFontMetrics metrics(plot_->legend->font());
  int widest = 0;
  for (const auto& name : actions_)
    widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(name)));
  const int column = widest + plot_->legend->iconSize().width() + plot_->legend->iconTextPadding() + 16;
  const int columns = std::max(1, (plot_->width() - 16) / std::max(column, 1));
  if (plot_->legend->wrap() == columns) return;
  plot_->legend->setWrap(columns);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // re-flow the entries
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (actions_.empty()) return;
  wrapLegend();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::clearScene() {
  for (auto* item : bars_) plot_->removeItem(item);
  for (auto* item : bar_labels_) plot_->removeItem(item);
  for (auto* item : phase_rects_) plot_->removeItem(item);
  for (auto* item : phase_labels_) plot_->removeItem(item);
  bars_.clear();
  bar_labels_.clear();
  phase_rects_.clear();
  phase_labels_.clear();
  plot_->clearPlottables();
}

void TimelineView::addPhase(double from, double to, int phase, const QString& label) {
  if (to <= from) return;
  auto* rect = new QCPItemRect(plot_);
  rect->setLayer(kShadingLayer);
  for (auto* pos : {rect->topLeft, rect->bottomRight})
    pos->setTypeY(QCPItemPosition::ptAxisRectRatio);
  rect->topLeft->setCoords(fold_.to_view(from), 0);
  rect->bottomRight->setCoords(fold_.to_view(to), 1);
  rect->setPen(Qt::NoPen);
  rect->setBrush(phase_shade(static_cast<Phase>(phase)));
  rect->setSelectable(false);
  phase_rects_.push_back(rect);

  auto* text = new QCPItemText(plot_);  // above the plot, clear of the bars
  text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords((fold_.to_view(from) + fold_.to_view(to)) / 2, 0);
  text->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
  text->setClipToAxisRect(false);
  text->setText(label);
  text->setColor(QColor(0x55, 0x55, 0x55));
  text->setPadding(QMargins(3, 0, 3, 3));
  text->setSelectable(false);
  phase_labels_.push_back(text);
}

// The folded part of the steady state: hatched, with how much time it stands for.
void TimelineView::addFoldBand() {
  if (!fold_.active()) return;
  auto* rect = new QCPItemRect(plot_);
  rect->setLayer(kShadingLayer);
  for (auto* pos : {rect->topLeft, rect->bottomRight})
    pos->setTypeY(QCPItemPosition::ptAxisRectRatio);
  rect->topLeft->setCoords(fold_.from, 0);
  rect->bottomRight->setCoords(fold_.from + fold_.width, 1);
  rect->setPen(QPen(QColor(0x9a, 0x9a, 0x9a), 0, Qt::DashLine));
  rect->setBrush(QBrush(QColor(0xb0, 0xb0, 0xb0), Qt::BDiagPattern));
  rect->setSelectable(false);
  phase_rects_.push_back(rect);

  auto* text = new QCPItemText(plot_);
  text->position->setType(QCPItemPosition::ptAxisRectRatio);
  text->position->setTypeX(QCPItemPosition::ptPlotCoords);
  text->position->setCoords(fold_.from + fold_.width / 2, 0.5);
  text->setText(tr("repeats\n%1 folded").arg(format_time_us(fold_.to - fold_.from)));
  text->setColor(QColor(0x44, 0x44, 0x44));
  text->setBrush(QColor(255, 255, 255, 230));
  text->setPadding(QMargins(4, 3, 4, 3));
  text->setSelectable(false);
  phase_labels_.push_back(text);
}

void TimelineView::addBar(const report::TimelineEvent& e, const QColor& color) {
  const double lane = static_cast<double>(index(e.resource));
  const double from = fold_.to_view(e.start_us), to = fold_.to_view(e.end_us);
  auto* bar = new QCPItemRect(plot_);
  bar->topLeft->setCoords(from, lane - kBarHalfHeight);
  bar->bottomRight->setCoords(to, lane + kBarHalfHeight);
  bar->setBrush(color);
  bar->setPen(QPen(color.darker(150), 0));
  bar->setSelectable(false);
  bars_.push_back(bar);

  auto* label = new QCPItemText(plot_);
  label->position->setCoords((from + to) / 2, lane);
  const QString iteration = e.iteration >= 0 ? QStringLiteral(" %1").arg(e.iteration) : QString();
  label->setText(QString::fromStdString(e.action) + iteration);
  label->setColor(color.lightness() > 150 ? text_color() : Qt::white);
  label->setSelectable(false);
  label->setLayer(kLabelLayer);
  bar_labels_.push_back(label);
}

// Bar labels and phase titles show only where they fit, so zooming out never piles text up.
void TimelineView::updateLabels() {
  const QFontMetrics metrics(plot_->font());
  auto pixel_width = [&](double from, double to) {
    return std::abs(plot_->xAxis->coordToPixel(to) - plot_->xAxis->coordToPixel(from));
  };
  auto fits = [&](QCPItemText* label, double width) {
    const QRect text = metrics.boundingRect(QRect(0, 0, 1000, 1000), 0, label->text());
    return width > text.width() + 8;
  };
  for (std::size_t i = 0; i < bar_labels_.size(); ++i)
    bar_labels_[i]->setVisible(!overlapped_[i] &&
                               fits(bar_labels_[i], pixel_width(fold_.to_view(events_[i].start_us),
                                                                fold_.to_view(events_[i].end_us))));
  for (std::size_t i = 0; i < phase_labels_.size(); ++i)
    phase_labels_[i]->setVisible(
        fits(phase_labels_[i], pixel_width(phase_rects_[i]->topLeft->coords().x(),
                                           phase_rects_[i]->bottomRight->coords().x())));
}

void TimelineView::keepRangeInside() {
  const double end = std::max(fold_.to_view(phases_.end), kMinSpanUs);
  const double pad = end * 0.02;
  const QCPRange bounds(-pad, end + pad);
  QCPRange range = plot_->xAxis->range();
  if (range.size() < kMinSpanUs)
    range = QCPRange(range.center() - kMinSpanUs / 2, range.center() + kMinSpanUs / 2);
  if (range.size() > bounds.size()) range = bounds;
  if (range.lower < bounds.lower) range += bounds.lower - range.lower;
  if (range.upper > bounds.upper) range -= range.upper - bounds.upper;
  if (range != plot_->xAxis->range()) plot_->xAxis->setRange(range);
}

void TimelineView::fitAll() {
  zoomTo(0, phases_.end);
}

void TimelineView::zoomBy(double factor) {
  plot_->xAxis->scaleRange(1 / factor);  // about the middle of what is shown
  plot_->replot();
}

void TimelineView::zoomTo(double from_us, double to_us) {
  const double from = fold_.to_view(from_us), to = fold_.to_view(to_us);
  const double pad = std::max((to - from) * 0.02, kMinSpanUs / 2);
  plot_->xAxis->setRange(from - pad, to + pad);
  plot_->replot();
}

std::optional<std::size_t> TimelineView::eventAt(const QPointF& pixel) const {
  const double lane = plot_->yAxis->pixelToCoord(pixel.y());
  const double x = plot_->xAxis->pixelToCoord(pixel.x());
  const double slack = std::abs(plot_->xAxis->pixelToCoord(pixel.x() + 2) - x);
  for (std::size_t i = events_.size(); i-- > 0;) {  // the last drawn is on top
    const auto& e = events_[i];
    if (std::abs(lane - static_cast<double>(index(e.resource))) > kBarHalfHeight) continue;
    if (x >= fold_.to_view(e.start_us) - slack && x <= fold_.to_view(e.end_us) + slack) return i;
  }
  return std::nullopt;
}

QString TimelineView::toolTipFor(std::size_t i) const {
  const auto& e = events_.at(i);
  QString text = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(e.action).toHtmlEscaped());
  if (e.iteration >= 0) text += tr(" · iteration %1").arg(e.iteration);
  text += tr("<br>pipeline: %1 (%2)")
              .arg(lane_name(e.resource), to_qstring(resource_label(e.resource)));
  text += tr("<br>phase: %1").arg(QString::fromStdString(e.phase));
  text += tr("<br>time: %1 → %2 (%3)")
              .arg(format_time_us(e.start_us), format_time_us(e.end_us),
                   format_time_us(e.end_us - e.start_us));
  if (e.bytes > 0) text += tr("<br>bytes: %1").arg(format_bytes(e.bytes));
  if (e.flops > 0) text += tr("<br>FLOPs: %1").arg(format_flops(e.flops));
  return text;
}

void TimelineView::clickAt(const QPointF& pixel) {
  const auto i = eventAt(pixel);
  emit actionClicked(i ? QString::fromStdString(events_[*i].action) : QString());
}

void TimelineView::highlightAction(const QString& action) {
  if (action == highlighted_) return;
  highlighted_ = action;
  applyHighlight();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

int TimelineView::highlightedBarCount() const {
  if (highlighted_.isEmpty()) return 0;
  const std::string name = highlighted_.toStdString();
  return static_cast<int>(std::count_if(events_.begin(), events_.end(),
                                        [&](const auto& e) { return e.action == name; }));
}

// The selected action's bars keep their colour with a thick dark outline; the rest fade to
// a third of their opacity, so the selection reads at any zoom.
void TimelineView::applyHighlight() {
  const std::string name = highlighted_.toStdString();
  for (std::size_t i = 0; i < bars_.size() && i < events_.size(); ++i) {
    QColor fill = bars_[i]->brush().color();
    const bool on = events_[i].action == name;
    fill.setAlpha(highlighted_.isEmpty() || on ? 255 : 80);
    bars_[i]->setBrush(fill);
    QColor edge = fill.darker(150);
    bars_[i]->setPen(on ? QPen(QColor(0x10, 0x10, 0x10), 2.2) : QPen(edge, 0));
  }
}

void TimelineView::onMouseMove(QMouseEvent* event) {
  if (event->buttons() != Qt::NoButton) return;  // dragging: no tooltips
  if (auto i = eventAt(event->position()))
    QToolTip::showText(event->globalPosition().toPoint(), toolTipFor(*i), plot_);
  else
    QToolTip::hideText();
}

}  // namespace tilesight::ui
