#include "ui/heatmap_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <algorithm>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include "tilesight/cache/cache_model.h"
#include "ui/format.h"
#include "ui/plot_style.h"

namespace tilesight::ui {

namespace {

constexpr int kXTicks = 4;  // on the tile axis, where they fit

QString map_label(const report::HitRateMap& m) {
  const QString tensor =
      m.tensor.empty() ? QObject::tr("all tensors") : QString::fromStdString(m.tensor);
  const QString level =
      m.level == "l15" ? QStringLiteral("L1.5") : QString::fromStdString(m.level).toUpper();
  return tensor + QStringLiteral(" · ") + level;
}

}  // namespace

HeatmapView::HeatmapView(QWidget* parent)
    : QWidget(parent), selector_(new QComboBox(this)), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* row = new QHBoxLayout;
  row->setContentsMargins(4, 2, 4, 0);
  row->addWidget(new QLabel(tr("Tensor and level:"), this));
  row->addWidget(selector_, 1);
  layout->addLayout(row);
  layout->addWidget(plot_, 1);

  apply_plot_style(*plot_);
  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  map_->setInterpolate(false);
  map_->setTightBoundary(true);
  scale_ = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(0, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  scale_->setGradient(viridis_gradient());
  scale_->setDataRange(QCPRange(0, 100));
  scale_->axis()->setLabel(tr("hit rate (%)"));
  scale_->setBarWidth(12);
  map_->setColorScale(scale_);
  auto* margins = new QCPMarginGroup(plot_);
  plot_->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
  scale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
  plot_->yAxis->setRangeReversed(true);  // row 0 at the top, as a matrix is written
  // Tiles are counted: ticks on whole tiles only (a one-wide grid reads "0", not -0.4 ... 0.4),
  // few enough on a narrow dock that the labels do not run into each other.
  for (auto [axis, count] : {std::pair{plot_->xAxis, kXTicks}, std::pair{plot_->yAxis, 5}}) {
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    ticker->setTickCount(count);
    axis->setTicker(ticker);
  }
  profile_ = plot_->addGraph();
  profile_->setLineStyle(QCPGraph::lsStepCenter);
  profile_->setPen(QPen(QColor(0x21, 0x91, 0x8c), 1.5));  // viridis' middle
  profile_->setBrush(QColor(0x21, 0x91, 0x8c, 90));
  profile_->setVisible(false);
  message_ = add_plot_message(*plot_);

  connect(selector_, qOverload<int>(&QComboBox::currentIndexChanged), this, &HeatmapView::showMap);
  connect(plot_, &QCustomPlot::mouseMove, this, &HeatmapView::onMouseMove);
  connect(plot_, &QCustomPlot::afterLayout, this, &HeatmapView::fitTicks);
  showMap(-1);
}

void HeatmapView::setPrediction(const report::Prediction& p) {
  const QString previous = selector_->currentText();
  maps_ = p.hit_rate_maps;
  blocks_ = p.blocks;
  // "first-touch (infinite L2)" -> "first-touch": the model's name for the empty-map message.
  cache_model_ = QString::fromStdString(p.cache_model).section(QLatin1Char(' '), 0, 0);
  {
    const QSignalBlocker block(selector_);
    selector_->clear();
    for (const auto& m : maps_) selector_->addItem(map_label(m));
    const int keep = selector_->findText(previous);
    selector_->setCurrentIndex(keep >= 0 ? keep : (maps_.empty() ? -1 : 0));
  }
  selector_->setEnabled(!maps_.empty());
  selector_->setPlaceholderText(tr("no per-tile maps"));
  showMap(selector_->currentIndex());
}

void HeatmapView::showMap(int index) {
  if (auto ticker = plot_->xAxis->ticker().dynamicCast<QCPAxisTickerFixed>())
    ticker->setTickCount(kXTicks);
  const bool valid = index >= 0 && index < static_cast<int>(maps_.size()) &&
                     maps_[static_cast<std::size_t>(index)].rows > 0 &&
                     maps_[static_cast<std::size_t>(index)].cols > 0;
  shown_ = valid ? index : -1;
  showFrame(valid);
  if (!valid) {
    map_->data()->clear();
    // Two lines: the message has to fit a narrow dock.
    const QString model = cache_model_.isEmpty() ? tr("first-touch") : cache_model_;
    // A composed prediction ("per kernel") has one cache figure per kernel, no grid.
    // A collective ("none (collective)") has no tile grid at all.
    const QString no_map = model == QLatin1String("per")    ? tr("many kernels: no one grid\nof tiles to map")
                           : model == QLatin1String("none") ? tr("a collective: no grid\nof tiles to map")
                                                            : tr("the %1 cache model\ngives no per-tile map").arg(model);
    const QString too_many = tr("%1 tiles: maps are drawn\nfor up to %2")
                                 .arg(format_count(static_cast<double>(blocks_)), format_count(static_cast<double>(cache::kMaxMapTiles)));
    set_plot_message(message_, !maps_.empty()                   ? tr("this map is empty")
                               : blocks_ > cache::kMaxMapTiles ? too_many
                                                               : no_map);
    plot_->replot();
    return;
  }
  const auto& m = maps_[static_cast<std::size_t>(index)];
  if ((m.rows == 1) != (m.cols == 1)) return showProfile(m);
  profile_->setVisible(false);
  plot_->yAxis->setRangeReversed(true);
  const int cols = static_cast<int>(m.cols), rows = static_cast<int>(m.rows);
  // QCPColorMap draws nothing for a range of zero width: a grid one tile wide (a decode
  // kernel's single query block) is drawn as two half cells of the same value (tight
  // boundary: the range is the cells' outer edge).
  auto span = [](int n) {
    return n == 1 ? std::pair{2, QCPRange(-0.5, 0.5)} : std::pair{n, QCPRange(0, n - 1)};
  };
  const auto [draw_cols, x_range] = span(cols);
  const auto [draw_rows, y_range] = span(rows);
  map_->data()->setSize(draw_cols, draw_rows);
  map_->data()->setRange(x_range, y_range);
  for (int r = 0; r < draw_rows; ++r)
    for (int c = 0; c < draw_cols; ++c) {
      const auto i = static_cast<std::size_t>(std::min(r, rows - 1)) * static_cast<std::size_t>(cols) +
                     static_cast<std::size_t>(std::min(c, cols - 1));
      map_->data()->setCell(c, r, i < m.hit_rate.size() ? m.hit_rate[i] * 100.0 : 0.0);
    }
  map_->setDataRange(QCPRange(0, 100));
  plot_->xAxis->setLabel(tr("%1 tile").arg(QString::fromStdString(m.col_dim)));
  plot_->yAxis->setLabel(tr("%1 tile").arg(QString::fromStdString(m.row_dim)));
  plot_->xAxis->setRange(-0.5, cols - 0.5);
  plot_->yAxis->setRange(-0.5, rows - 0.5);
  set_plot_message(message_, {});
  plot_->replot();
}

// One tile wide or high: the hit rate per tile along the long dimension, on a 0-100% axis,
// in place of the colour map and its scale.
void HeatmapView::showProfile(const report::HitRateMap& m) {
  const bool along_rows = m.cols == 1;
  const auto n = static_cast<int>(along_rows ? m.rows : m.cols);
  QVector<double> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = i;
    y[i] = static_cast<std::size_t>(i) < m.hit_rate.size() ? m.hit_rate[static_cast<std::size_t>(i)] * 100.0 : 0.0;
  }
  map_->setVisible(false);
  scale_->setVisible(false);
  if (plot_->plotLayout()->hasElement(0, 1) && plot_->plotLayout()->element(0, 1) == scale_) {
    plot_->plotLayout()->take(scale_);
    plot_->plotLayout()->simplify();
  }
  profile_->setData(x, y, true);
  profile_->setVisible(true);
  const QString dim = QString::fromStdString(along_rows ? m.row_dim : m.col_dim);
  // "row tile (16,384 tiles)": rmsnorm's grid has one dimension only, the other is unnamed.
  const QString other = QString::fromStdString(along_rows ? m.col_dim : m.row_dim);
  plot_->xAxis->setLabel(other.isEmpty() ? tr("%1 tile (%2 tiles)").arg(dim, format_count(n))
                                         : tr("%1 tile (%2 × %3 grid)")
                                               .arg(dim, format_count(static_cast<double>(m.rows)),
                                                    format_count(static_cast<double>(m.cols))));
  plot_->yAxis->setLabel(tr("hit rate (%)"));
  plot_->yAxis->setRangeReversed(false);
  plot_->xAxis->setRange(-0.5, n - 0.5);
  plot_->yAxis->setRange(0, 105);
  // A flat profile (decode's K and V read once: 0% on every tile) would look like no data.
  const auto [low, high] = std::minmax_element(y.cbegin(), y.cend());
  set_plot_message(message_, n > 0 && *high - *low < 0.5
                                 ? tr("every tile: %1 hit rate").arg(format_percent(*low / 100.0))
                                 : QString());
  plot_->replot();
}

// Fewer ticks on the tile axis while their labels would run into each other (256 tiles in a
// 200 px dock read "0 50100150200250"): one fewer at each layout until they fit, the count
// back to kXTicks when the plot is resized or shows another map.
void HeatmapView::fitTicks() {
  auto ticker = plot_->xAxis->ticker().dynamicCast<QCPAxisTickerFixed>();
  const QVector<double> ticks = plot_->xAxis->tickVector();
  if (!ticker || ticks.size() < 2 || ticker->tickCount() <= 1) return;
  const QFontMetrics fm(plot_->xAxis->tickLabelFont());
  const int widest = fm.horizontalAdvance(QString::number(ticks.back()));
  const double apart =
      std::abs(plot_->xAxis->coordToPixel(ticks[1]) - plot_->xAxis->coordToPixel(ticks[0]));
  if (apart >= widest + fm.horizontalAdvance(QStringLiteral("  "))) return;
  ticker->setTickCount(ticker->tickCount() - 1);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // The plot was laid out at the new size before this event: once more with all the ticks.
  if (auto ticker = plot_->xAxis->ticker().dynamicCast<QCPAxisTickerFixed>();
      ticker && ticker->tickCount() != kXTicks) {
    ticker->setTickCount(kXTicks);
    plot_->replot(QCustomPlot::rpQueuedReplot);
  }
}

bool HeatmapView::profileShown() const {
  return shown_ >= 0 && profile_->visible();
}

// Axes and colour scale only around a map; an empty plot shows just its message.
void HeatmapView::showFrame(bool visible) {
  map_->setVisible(visible);
  if (!visible) profile_->setVisible(false);
  plot_->xAxis->setVisible(visible);
  plot_->yAxis->setVisible(visible);
  plot_->axisRect()->setBackground(visible ? QBrush(Qt::white) : QBrush(Qt::NoBrush));
  const bool in_layout =
      plot_->plotLayout()->hasElement(0, 1) && plot_->plotLayout()->element(0, 1) == scale_;
  if (visible && !in_layout) {
    plot_->plotLayout()->addElement(0, 1, scale_);
  } else if (!visible && in_layout) {
    plot_->plotLayout()->take(scale_);
    plot_->plotLayout()->simplify();
  }
  scale_->setVisible(visible);
}

int HeatmapView::cellCount() const {
  if (shown_ < 0) return 0;
  const auto& m = maps_[static_cast<std::size_t>(shown_)];
  return static_cast<int>(m.rows * m.cols);
}

QString HeatmapView::message() const {
  return message_->visible() ? message_->text().replace(QLatin1Char('\n'), QLatin1Char(' '))
                             : QString();
}

void HeatmapView::onMouseMove(QMouseEvent* event) {
  if (shown_ < 0) return;
  const auto& m = maps_[static_cast<std::size_t>(shown_)];
  if (profile_->visible()) {  // the tile under the pointer along the long dimension
    const int i = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(event->position().x())));
    return tileTip(event, m.cols == 1 ? i : 0, m.cols == 1 ? 0 : i);
  }
  int c = 0, r = 0;
  map_->data()->coordToCell(plot_->xAxis->pixelToCoord(event->position().x()),
                            plot_->yAxis->pixelToCoord(event->position().y()), &c, &r);
  if (m.cols == 1 && c == 1) c = 0;  // the duplicated half cell of a one-wide grid
  if (m.rows == 1 && r == 1) r = 0;
  tileTip(event, r, c);
}

void HeatmapView::tileTip(QMouseEvent* event, int r, int c) {
  const auto& m = maps_[static_cast<std::size_t>(shown_)];
  if (c < 0 || r < 0 || c >= m.cols || r >= m.rows ||
      !plot_->axisRect()->rect().contains(event->position().toPoint())) {
    QToolTip::hideText();
    return;
  }
  const auto i =
      static_cast<std::size_t>(r) * static_cast<std::size_t>(m.cols) + static_cast<std::size_t>(c);
  QString text = tr("tile (%1 %2, %3 %4)<br>hit rate %5")
                     .arg(QString::fromStdString(m.row_dim))
                     .arg(r)
                     .arg(QString::fromStdString(m.col_dim))
                     .arg(c)
                     .arg(format_percent(i < m.hit_rate.size() ? m.hit_rate[i] : 0));
  if (i < m.reuse_distance.size())
    text += tr("<br>mean reuse distance %1 tiles").arg(m.reuse_distance[i], 0, 'g', 3);
  QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

}  // namespace tilesight::ui
