#include "ui/timeline_view.h"

#include <QAction>

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <map>

#include "ui/elided_lines.h"
#include "ui/format.h"
#include "ui/plot_style.h"
#include "ui/profile_pipelines.h"
#include "ui/timeline_placeholder.h"

namespace tilesight::ui {

namespace {

constexpr double kMinSpanUs = 0.01;

QString lane_name(Resource r) {
  return to_qstring(resource_lane(r));
}

// Overlap none: the collectives run alone, before (ag_gemm), after (gemm_rs) or around
// (Ulysses) the kernel whose SM the timeline shows, so none of their stages belong on this
// clock; "" otherwise.
QString serial_collective_note(const report::NetworkReport& n) {
  if (n.overlap != "none" || n.collectives.empty() || n.schedule.empty()) return {};
  double compute_from = std::numeric_limits<double>::infinity();
  for (const auto& s : n.schedule)
    if (s.compute) compute_from = std::min(compute_from, s.start_us);
  bool before = false, after = false;
  for (const auto& s : n.schedule)
    if (!s.compute) (s.start_us < compute_from ? before : after) = true;
  QStringList names;
  for (const auto& c : n.collectives)
    if (!names.contains(QString::fromStdString(c.collective))) names << QString::fromStdString(c.collective);
  const QString when = before && after ? QObject::tr("before and after") : before ? QObject::tr("before")
                                                                                   : QObject::tr("after");
  return QObject::tr("overlap none: the %1 %2 alone, %3 this kernel (Network lanes)")
      .arg(names.join(QStringLiteral(" and ")), names.size() > 1 ? QObject::tr("run") : QObject::tr("runs"), when);
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
  placeholder_ = new TimelinePlaceholder(this);
  placeholder_->hide();
  layout->addWidget(placeholder_, 1);

  apply_plot_style(*plot_);
  // Bars and shading are axis-aligned rectangles: drawn without antialiasing they fill
  // faster (2-3 ms less per edit, `tilesight --bench-edit`) and look the same.
  plot_->setNotAntialiasedElements(QCP::aeAxes | QCP::aeGrid | QCP::aeItems);
  set_up_timeline_plot(*plot_);
  plot_->xAxis->setTicker(ticker_);
  plot_->xAxis->setSubTicks(false);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  plot_->axisRect()->setMinimumMargins(QMargins(0, QFontMetrics(plot_->font()).height() + 6, 0, 0));
  message_ = add_plot_message(*plot_);
  set_plot_message(message_, tr("no timeline yet"));
  setLanes({kAllResources.begin(), kAllResources.end()});
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
  // Cut to the room the buttons leave (a small window), never widening the timeline.
  auto* hint = new ElidedLines(bar);
  hint->setLines({{tr("drag to pan · wheel or Ctrl+wheel to zoom · Ctrl+0 fits · hover a bar for details")}});
  hint->setObjectName(QStringLiteral("timeline_hint"));
  row->addSpacing(8);
  row->addWidget(hint, 1);
  return bar;
}

void TimelineView::setPrediction(const report::Prediction& prediction) {
  events_ = prediction.timeline;
  placeholder_->setPrediction(prediction);
  for (QToolButton* b : findChildren<QToolButton*>()) b->setEnabled(!events_.empty());
  findChild<ElidedLines*>(QStringLiteral("timeline_hint"))->setVisible(!events_.empty());
  phases_ = timeline_phases(events_);
  actions_ = action_order(events_, prediction.loops);
  stages_.clear();
  net_note_ = serial_collective_note(prediction.network);
  if (!events_.empty() && net_note_.isEmpty()) stages_ = link_stages(prediction.network, phases_.end);
  stage_link_ = prediction.network.links.empty() ? std::string() : prediction.network.links.front().link;
  setLanes(timeline_lanes(prediction));
  rebuild();
}

void TimelineView::setLanes(std::vector<Resource> lanes) {
  if (lanes == lanes_) return;
  lanes_ = std::move(lanes);
  for (auto* band : lane_bands_) plot_->removeItem(band);
  lane_bands_ = add_lane_bands(*plot_, lanes_.size());
  set_lane_axis(*plot_, lanes_);
}

// The row of a pipeline's lane (timeline_lanes gives every event's pipeline a lane).
double TimelineView::rowOf(Resource r) const {
  const auto it = std::find(lanes_.begin(), lanes_.end(), r);
  return static_cast<double>(it - lanes_.begin());
}

int TimelineView::networkLaneCount() const {
  return placeholder_->networkLaneCount();
}

QString TimelineView::emptyText() const {
  return placeholder_->isHidden() ? QString() : placeholder_->text();
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
  for (const ShadedSpan& span :
       {add_phase(*plot_, fold_, 0, phases_.prologue_end, Phase::kPrologue, tr("prologue")),
        add_phase(*plot_, fold_, phases_.prologue_end, phases_.epilogue_start, Phase::kSteady, tr("steady state")),
        add_phase(*plot_, fold_, phases_.epilogue_start, phases_.end, Phase::kEpilogue, tr("epilogue")),
        add_fold_band(*plot_, fold_)})
    if (span.rect) {
      phase_rects_.push_back(span.rect);
      phase_labels_.push_back(span.label);
    }
  addBars();
  addLinkStages();
  add_action_legend(*plot_, actions_);
  applyHighlight();
  // A composed prediction (llm_decode: many kernels) has no one-SM timeline: the message
  // alone, not empty lanes under a squeezed axis.
  plot_->setVisible(!events_.empty());
  placeholder_->setVisible(events_.empty());
  set_plot_message(message_, {});
  fitAll();
}

// Colours in the engine's order of the actions (actions_). A bar that overlaps another on its
// lane gets no label (its tooltip still names it), so text never sits on a neighbour's bar.
void TimelineView::addBars() {
  std::map<std::string, int> colour;
  for (const auto& name : actions_) colour.emplace(name, static_cast<int>(colour.size()));
  overlapped_.assign(events_.size(), false);
  for (std::size_t i = 0; i < events_.size(); ++i)
    for (std::size_t j = i + 1; j < events_.size(); ++j) {
      const auto &a = events_[i], &b = events_[j];
      if (a.resource == b.resource && a.start_us < b.end_us && b.start_us < a.end_us)
        overlapped_[i] = overlapped_[j] = true;
    }
  // The bars of the last prediction move to this one's events; the ones left over go.
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const auto& e = events_[i];
    const BarItems reuse = i < bars_.size() ? BarItems{bars_[i], bar_labels_[i]} : BarItems{};
    const BarItems items = add_bar(*plot_, fold_, e, rowOf(e.resource), action_color(colour.at(e.action)), reuse);
    if (i < bars_.size()) continue;
    bars_.push_back(items.bar);
    bar_labels_.push_back(items.label);
  }
  for (std::size_t i = events_.size(); i < bars_.size(); ++i) {
    plot_->removeItem(bars_[i]);
    plot_->removeItem(bar_labels_[i]);
  }
  bars_.resize(std::min(bars_.size(), events_.size()));
  bar_labels_.resize(bars_.size());
}

void TimelineView::addLinkStages() {
  if (!net_note_.isEmpty() && !events_.empty() &&
      std::find(lanes_.begin(), lanes_.end(), Resource::kNet) != lanes_.end())
    net_note_item_ = add_lane_note(*plot_, rowOf(Resource::kNet), net_note_);
  for (const auto& stage : stages_) {
    const BarItems items = add_link_stage(*plot_, fold_, stage, rowOf(Resource::kNet), phases_.end);
    stage_bars_.push_back(items.bar);
    stage_labels_.push_back(items.label);
  }
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (actions_.empty()) return;
  wrap_legend(*plot_, actions_);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

// Everything but the bars, which addBars moves to the new events.
void TimelineView::clearScene() {
  for (auto* item : phase_rects_) plot_->removeItem(item);
  for (auto* item : phase_labels_) plot_->removeItem(item);
  for (auto* item : stage_bars_) plot_->removeItem(item);
  for (auto* item : stage_labels_) plot_->removeItem(item);
  if (net_note_item_) plot_->removeItem(net_note_item_);
  net_note_item_ = nullptr;
  stage_bars_.clear();
  stage_labels_.clear();
  phase_rects_.clear();
  phase_labels_.clear();
  plot_->clearPlottables();
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
  // A link stage across the fold would put its name on the fold's own label: it goes on the
  // stage's part after the fold instead, where that is wide enough.
  for (std::size_t i = 0; i < stage_labels_.size(); ++i) {
    const auto& s = stages_[i];
    const bool folded = fold_.active() && s.start_us < fold_.to && s.end_us > fold_.from;
    double from = fold_.to_view(s.start_us);
    const double to = fold_.to_view(std::min(s.end_us, phases_.end));
    if (folded) from = fold_.from + fold_.width;
    stage_labels_[i]->position->setCoords((from + to) / 2, stage_labels_[i]->position->coords().y());
    stage_labels_[i]->setVisible(to > from && fits(stage_labels_[i], pixel_width(from, to)));
  }
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
    if (std::abs(lane - rowOf(e.resource)) > kBarHalfHeight) continue;
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

std::optional<std::size_t> TimelineView::linkStageAt(const QPointF& pixel) const {
  if (std::find(lanes_.begin(), lanes_.end(), Resource::kNet) == lanes_.end()) return std::nullopt;
  if (std::abs(plot_->yAxis->pixelToCoord(pixel.y()) - rowOf(Resource::kNet)) > kBarHalfHeight) return std::nullopt;
  const double x = plot_->xAxis->pixelToCoord(pixel.x());
  for (std::size_t i = stages_.size(); i-- > 0;)
    if (x >= fold_.to_view(stages_[i].start_us) && x <= fold_.to_view(stages_[i].end_us)) return i;
  return std::nullopt;
}

QString TimelineView::stageLabel(std::size_t i) const {
  if (i >= stage_labels_.size() || !stage_labels_[i]->visible()) return {};
  return stage_labels_[i]->text();
}

QString TimelineView::toolTipForStage(std::size_t i) const {
  const auto& s = stages_.at(i);
  QString text = QStringLiteral("<b>%1</b> · %2 %3")
                     .arg(QString::fromStdString(s.collective).toHtmlEscaped(),
                          QString::fromStdString(s.label).toHtmlEscaped())
                     .arg(s.stage);
  text += tr("<br>link: %1 (the busiest; the Network lanes show every link)")
              .arg(QString::fromStdString(stage_link_).toHtmlEscaped());
  text += tr("<br>time: %1 → %2 (%3)")
              .arg(format_time_us(s.start_us), format_time_us(s.end_us), format_time_us(s.end_us - s.start_us));
  text += tr("<br>bytes: %1").arg(format_bytes(s.bytes));
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
  else if (auto s = linkStageAt(event->position()))
    QToolTip::showText(event->globalPosition().toPoint(), toolTipForStage(*s), plot_);
  else
    QToolTip::hideText();
}

}  // namespace tilesight::ui
