#include "ui/envelope_view.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "ui/format.h"
#include "ui/plot_style.h"

namespace tilesight::ui {

namespace {

QCPBars* make_bars(QCustomPlot* plot, const QString& name, Phase phase) {
  auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
  bars->setName(name);
  bars->setBrush(phase_color(phase));
  bars->setPen(QPen(phase_color(phase).darker(130), 0));
  bars->setWidth(0.55);
  bars->setSelectable(QCP::stNone);
  return bars;
}

}  // namespace

EnvelopeView::EnvelopeView(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), empty_(new QLabel(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  empty_->setAlignment(Qt::AlignCenter);
  empty_->setWordWrap(true);
  empty_->setMargin(12);
  empty_->setStyleSheet(QStringLiteral("color: gray;"));
  empty_->hide();
  layout->addWidget(empty_, 1);
  apply_plot_style(*plot_);
  // Bottom to top, as the time runs: prologue, steady state, epilogue.
  prologue_ = make_bars(plot_, tr("prologue"), Phase::kPrologue);
  steady_ = make_bars(plot_, tr("steady"), Phase::kSteady);
  epilogue_ = make_bars(plot_, tr("epilogue"), Phase::kEpilogue);
  steady_->moveAbove(prologue_);
  epilogue_->moveAbove(steady_);
  plot_->yAxis->setLabel(tr("time (µs)"));
  plot_->xAxis->grid()->setVisible(false);
  plot_->xAxis->setTickLength(0, 3);
  plot_->xAxis->setSubTicks(false);
  plot_->legend->setVisible(true);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(0, 0.001);
  plot_->legend->setBorderPen(Qt::NoPen);
  message_ = add_plot_message(*plot_);
  set_plot_message(message_, tr("no prediction yet"));
  connect(plot_, &QCustomPlot::mouseMove, this, &EnvelopeView::onMouseMove);
  plot_->replot();
}

void EnvelopeView::setPrediction(const report::Prediction& p) {
  stacks_.clear();
  for (const auto& loop : p.loops) {
    Stack s{tr("loop %1\n(one SM)").arg(QString::fromStdString(loop.loop)),
            {},
            loop.prologue_us,
            std::max(0.0, loop.total_us - loop.prologue_us - loop.epilogue_us),
            loop.epilogue_us};
    s.details = tr("<b>loop %1</b>: %2 iterations per SM, depth %3<br>%4 per iteration in the "
                   "steady state (%5)")
                    .arg(QString::fromStdString(loop.loop))
                    .arg(loop.iterations)
                    .arg(loop.depth)
                    .arg(format_time_us(loop.steady_us), QString::fromStdString(loop.limited_by));
    s.short_label = tr("%1\n1 SM").arg(QString::fromStdString(loop.loop));
    stacks_.push_back(s);
  }
  for (const auto& wave : p.wave_reports) {
    const bool full = wave.kind == "full";
    Stack s{full ? tr("full waves\n×%1").arg(wave.count) : tr("tail wave\n×%1").arg(wave.count),
            {},
            wave.prologue_us,
            wave.steady_us,
            wave.epilogue_us};
    s.details = tr("<b>%1 wave</b> ×%2: %3 each<br>%4 active SMs, %5 resident blocks per SM")
                    .arg(QString::fromStdString(wave.kind))
                    .arg(wave.count)
                    .arg(format_time_us(wave.time_us))
                    .arg(wave.active_sms)
                    .arg(wave.resident);
    s.short_label = (full ? tr("full\n×%1") : tr("tail\n×%1")).arg(wave.count);
    stacks_.push_back(s);
  }
  rebuild();
  showEmpty(p);
}

// No loop and no wave to stack: say why in words rather than draw empty axes.
void EnvelopeView::showEmpty(const report::Prediction& p) {
  const bool empty = stacks_.empty();
  plot_->setVisible(!empty);
  empty_->setVisible(empty);
  if (!empty) return empty_->clear();
  const QString kernel = QString::fromStdString(p.kernel).toHtmlEscaped();
  QString why;
  if (p.serve.step_us > 0)
    why = tr("<b>%1</b> is a decode step of many kernels; the report lists the time of each.").arg(kernel);
  else if (!p.network.empty())
    why = tr("<b>%1</b> is a collective; its stages are in the network lanes.").arg(kernel);
  empty_->setText(tr("No pipelined loop in this plan.") + (why.isEmpty() ? QString() : QStringLiteral("<br>") + why));
}

QString EnvelopeView::message() const {
  return empty_->isHidden() ? QString() : empty_->text();
}

void EnvelopeView::rebuild() {
  QVector<double> keys, pro, steady, epi;
  for (auto* t : totals_) plot_->removeItem(t);
  totals_.clear();
  double top = 0;
  for (std::size_t i = 0; i < stacks_.size(); ++i) {
    const auto& s = stacks_[i];
    const double key = static_cast<double>(i);
    keys << key;
    pro << s.prologue;
    steady << s.steady;
    epi << s.epilogue;
    const double total = s.prologue + s.steady + s.epilogue;
    top = std::max(top, total);
    auto* label = new QCPItemText(plot_);
    label->position->setCoords(key, total);
    label->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
    label->setText(format_time_us(total));
    label->setColor(text_color());
    label->setPadding(QMargins(0, 0, 0, 2));
    totals_.push_back(label);
  }
  prologue_->setData(keys, pro, true);
  steady_->setData(keys, steady, true);
  epilogue_->setData(keys, epi, true);
  plot_->xAxis->setRange(-0.6, std::max(1.0, static_cast<double>(stacks_.size())) - 0.4);
  plot_->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
  set_plot_message(message_, {});
  fitLabels();
  plot_->replot();
}

// Each stack has the axis' width over the stacks; where a long tick ("full waves") needs
// more, all take their short form. The legend goes to two columns when its three entries
// would not fit a row.
void EnvelopeView::fitLabels() {
  const QFontMetrics fm(plot_->xAxis->tickLabelFont());
  const double slot = (plot_->width() - 60.0) / std::max<double>(1.0, static_cast<double>(stacks_.size()));
  bool fits = true;
  for (const auto& s : stacks_)
    for (const QString& line : s.label.split(QLatin1Char('\n')))
      fits = fits && fm.horizontalAdvance(line) + 8 <= slot;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (std::size_t i = 0; i < stacks_.size(); ++i)
    ticker->addTick(static_cast<double>(i), fits ? stacks_[i].label : stacks_[i].short_label);
  plot_->xAxis->setTicker(ticker);
  // The totals over the stacks: "48.7 µs", or where that would run into the next one (a
  // 200 px dock: "48.7 µs50.7 µs"), the number alone, the axis saying µs.
  bool units = true;
  for (std::size_t i = 0; i < totals_.size(); ++i)
    units =
        units &&
        QFontMetrics(totals_[i]->font()).horizontalAdvance(format_time_us(total(i))) + 6 <= slot;
  for (std::size_t i = 0; i < totals_.size(); ++i) {
    const double us = total(i);
    totals_[i]->setText(units        ? format_time_us(us)
                        : us >= 1000 ? QString::number(us, 'f', 0)
                                     : QString::number(us, 'g', 3));
  }
  const int columns = plot_->width() >= 280 ? 3 : 2;
  if (plot_->legend->wrap() != columns) {
    plot_->legend->setWrap(columns);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
  }
}

void EnvelopeView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitLabels();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

double EnvelopeView::total(std::size_t stack) const {
  const Stack& s = stacks_[stack];
  return s.prologue + s.steady + s.epilogue;
}

QStringList EnvelopeView::totalLabels() const {
  QStringList texts;
  for (const auto* t : totals_) texts << t->text();
  return texts;
}

QStringList EnvelopeView::tickLabels() const {
  auto ticker = plot_->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
  return ticker ? QStringList(ticker->ticks().values()) : QStringList();
}

void EnvelopeView::onMouseMove(QMouseEvent* event) {
  const double x = plot_->xAxis->pixelToCoord(event->position().x());
  const double y = plot_->yAxis->pixelToCoord(event->position().y());
  const long i = std::lround(x);
  if (i < 0 || i >= static_cast<long>(stacks_.size()) ||
      std::abs(x - static_cast<double>(i)) > 0.3) {
    QToolTip::hideText();
    return;
  }
  const auto& s = stacks_[static_cast<std::size_t>(i)];
  if (y < 0 || y > s.prologue + s.steady + s.epilogue) {
    QToolTip::hideText();
    return;
  }
  const QString text = s.details + tr("<br>prologue %1 · steady %2 · epilogue %3")
                                       .arg(format_time_us(s.prologue), format_time_us(s.steady),
                                            format_time_us(s.epilogue));
  QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

}  // namespace tilesight::ui
