#include "ui/what_if_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "tilesight/net/system_profile.h"
#include "ui/format.h"
#include "ui/plot_style.h"
#include "ui/rich_text_block.h"
#include "ui/timeline_items.h"

namespace tilesight::ui {

namespace {

const QColor kLatencyColor(0x00, 0x72, 0xb2);  // Okabe–Ito blue
const QColor kCommColor(0xe6, 0x9f, 0x00);     // Okabe–Ito orange

QString factor_text(double f) {
  return QStringLiteral("×%1").arg(f, 0, 'g', 3);
}

// The link types of the plan's system, "" when the hardware is a single GPU.
QStringList link_types(const std::string& hardware) {
  QStringList out;
  if (hardware.empty()) return out;
  auto system = net::load_system(hardware);
  if (!system || system->devices() < 2) return out;
  for (const auto& t : system->network.link_types()) out << QString::fromStdString(t.name);
  return out;
}

}  // namespace

const std::vector<double>& WhatIfView::factors() {
  static const std::vector<double> f = {0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 4};
  return f;
}

WhatIfView::WhatIfView(QWidget* parent)
    : QWidget(parent), types_(new QComboBox(this)), summary_(new RichTextBlock(this)), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* row = new QHBoxLayout;
  row->setContentsMargins(4, 2, 4, 0);
  row->addWidget(new QLabel(tr("Scale the bandwidth of"), this));
  row->addWidget(types_, 1);
  layout->addLayout(row);
  summary_->setContentsMargins(4, 0, 4, 0);
  layout->addWidget(summary_);
  layout->addWidget(plot_, 1);
  types_->setToolTip(tr("A link type of the plan's system profile: its bandwidth is scaled ×0.5 to ×4 and the "
                        "plan predicted again at each factor"));

  apply_plot_style(*plot_);
  plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (double f : {0.5, 1.0, 2.0, 4.0}) ticker->addTick(f, factor_text(f));
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setRange(0.45, 4.4);
  plot_->yAxis->setLabel(tr("latency (µs)"));
  for (auto [name, color] : {std::pair{tr("kernel latency"), kLatencyColor},
                             std::pair{tr("communication alone"), kCommColor}}) {
    QCPGraph* g = plot_->addGraph();
    g->setName(name);
    g->setPen(QPen(color, 2));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 6));
  }
  auto* profile = new QCPItemStraightLine(plot_);  // the profile as measured or specified
  profile->point1->setCoords(1, 0);
  profile->point2->setCoords(1, 1);
  profile->setPen(QPen(muted_text_color(), 1, Qt::DashLine));
  plot_->legend->setVisible(true);
  // The legend in a row of its own above the plot: inside, a narrow dock's legend covered the
  // curves' ends.
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(0, 0.001);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setMargins(QMargins(4, 2, 4, 0));
  message_ = add_plot_message(*plot_);

  connect(types_, &QComboBox::currentTextChanged, this, [this] { run(); });
  connect(&runner_, &WhatIfRunner::swept, this, &WhatIfView::draw);
  showMessage(tr("one GPU: no links to scale"));
}

void WhatIfView::setPrediction(const report::Prediction& p, const nlohmann::json& plan) {
  plan_ = plan;
  const std::string hardware = plan.is_object() ? plan.value("hardware", std::string()) : std::string();
  const QStringList types = p.network.empty() ? QStringList() : link_types(hardware);
  {
    const QSignalBlocker block(types_);
    const QString previous = types_->currentText();
    types_->clear();
    types_->addItems(types);
    // The link type the user picked stays; else the bottleneck link's.
    QString pick = types.contains(previous) ? previous : QString();
    if (pick.isEmpty() && !p.network.links.empty()) pick = QString::fromStdString(p.network.links.front().type);
    types_->setCurrentIndex(std::max(0, types_->findText(pick)));
  }
  types_->setEnabled(!types.isEmpty());
  if (types.isEmpty()) {
    sweep_ = {};
    summary_->clear();
    for (int i = 0; i < plot_->graphCount(); ++i) plot_->graph(i)->data()->clear();
    showMessage(p.network.empty() ? tr("one GPU: no links to scale") : tr("no link types in %1").arg(QString::fromStdString(hardware)));
    return;
  }
  if (isVisible())
    run();
  else
    stale_ = true;
}

void WhatIfView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  wrapLegend();
}

// Both entries side by side where they fit, else one above the other (never cut).
void WhatIfView::wrapLegend() {
  std::vector<std::string> names;
  for (int i = 0; i < plot_->legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot_->legend->item(i)))
      names.push_back(item->plottable()->name().toStdString());
  wrap_legend(*plot_, names);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void WhatIfView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_) run();
}

void WhatIfView::run() {
  stale_ = false;
  if (types_->currentText().isEmpty() || !plan_.is_object()) return;
  summary_->setHtml(tr("predicting…"));
  runner_.request(plan_, types_->currentText().toStdString(), factors());
}

void WhatIfView::draw(const WhatIfSweep& sweep) {
  sweep_ = sweep;
  QVector<double> x, latency, comm;
  for (const auto& p : sweep.points) {
    x << p.factor;
    latency << p.latency_us;
    comm << p.comm_us;
  }
  plot_->graph(0)->setData(x, latency, true);
  plot_->graph(1)->setData(x, comm, true);
  // A collective alone is all communication: one line. A kernel that overlaps it shows both.
  bool overlapped = false;
  for (const auto& p : sweep.points) overlapped |= p.comm_us > 0 && p.comm_us < 0.995 * p.latency_us;
  plot_->graph(1)->setVisible(overlapped);
  if (overlapped)
    plot_->graph(1)->addToLegend();
  else
    plot_->graph(1)->removeFromLegend();
  wrapLegend();
  if (sweep.points.empty()) {
    summary_->clear();
    showMessage(sweep.error.isEmpty() ? tr("no prediction") : sweep.error);
    return;
  }
  plot_->xAxis->setLabel(tr("× %1 bandwidth").arg(QString::fromStdString(sweep.link_type)));
  double top = 0;
  for (const auto& p : sweep.points) top = std::max({top, p.latency_us, p.comm_us});
  plot_->yAxis->setRange(0, top * 1.12);
  const auto at = [&](double f) -> const WhatIfPoint* {
    for (const auto& p : sweep.points)
      if (p.factor == f) return &p;
    return nullptr;
  };
  const WhatIfPoint *now = at(1), *twice = at(2);
  if (now && twice && now->latency_us > 0) {
    const double change = 100.0 * (twice->latency_us / now->latency_us - 1);
    summary_->setHtml((std::abs(change) < 0.05
                          ? tr("×2 bandwidth: %1, no faster (the links are not what limits it)")
                                .arg(format_time_us(now->latency_us))
                          : tr("×2 bandwidth: %1 → %2 (%3%4%)")
                                .arg(format_time_us(now->latency_us), format_time_us(twice->latency_us))
                                .arg(change <= 0 ? QStringLiteral("−") : QStringLiteral("+"))
                                .arg(std::abs(change), 0, 'f', 1))
                          .toHtmlEscaped());
  }
  else
    summary_->setHtml(sweep.error.toHtmlEscaped());
  showMessage({});
}

void WhatIfView::showMessage(const QString& text) {
  set_plot_message(message_, text);
  const bool frame = text.isEmpty();
  plot_->xAxis->setVisible(frame);
  plot_->yAxis->setVisible(frame);
  plot_->legend->setVisible(frame);
  plot_->replot();
}

QString WhatIfView::message() const {
  return message_->visible() ? message_->text() : QString();
}

QString WhatIfView::summary() const {
  return summary_->plainText();
}

}  // namespace tilesight::ui
