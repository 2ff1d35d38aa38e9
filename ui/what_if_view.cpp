#include "ui/what_if_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTabWidget>
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

// The legend in a row of its own above the plot: inside, a narrow dock's legend covered the
// curves' ends.
void legend_above(QCustomPlot& plot) {
  plot.legend->setVisible(true);
  plot.axisRect()->insetLayout()->take(plot.legend);
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0, plot.legend);
  plot.plotLayout()->setRowStretchFactor(0, 0.001);
  plot.legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot.legend->setBorderPen(Qt::NoPen);
  plot.legend->setMargins(QMargins(4, 2, 4, 0));
}

std::vector<std::string> legend_names(const QCustomPlot& plot) {
  std::vector<std::string> names;
  for (int i = 0; i < plot.legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i)))
      names.push_back(item->plottable()->name().toStdString());
  return names;
}

QString change_text(double now, double base) {
  const double change = 100.0 * (now / base - 1);
  if (std::abs(change) < 0.05) return QObject::tr("±0%");
  return QStringLiteral("%1%2%").arg(change < 0 ? QStringLiteral("−") : QStringLiteral("+")).arg(std::abs(change), 0, 'f', 1);
}

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
    : QWidget(parent),
      types_(new QComboBox(this)),
      summary_(new RichTextBlock(this)),
      plot_(new QCustomPlot(this)),
      variants_(new QCustomPlot(this)) {
  // Summary on top; the bandwidth sweep and the topology variants on two tabs, each plot the
  // whole width of the dock (side by side, a narrow dock cut both).
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  summary_->setContentsMargins(4, 2, 4, 0);
  layout->addWidget(summary_);
  tabs_ = new QTabWidget(this);
  tabs_->setDocumentMode(true);
  auto* bandwidth = new QWidget(tabs_);
  auto* page = new QVBoxLayout(bandwidth);
  page->setContentsMargins(0, 0, 0, 0);
  page->setSpacing(2);
  auto* row = new QHBoxLayout;
  row->setContentsMargins(4, 2, 4, 0);
  row->addWidget(new QLabel(tr("Scale the bandwidth of"), bandwidth));
  row->addWidget(types_, 1);
  page->addLayout(row);
  page->addWidget(plot_, 1);
  tabs_->addTab(bandwidth, tr("Bandwidth"));
  tabs_->addTab(variants_, tr("Topology"));
  tabs_->setTabToolTip(1, tr("The plan on each structural variant of its system: a rail more, a link level removed, "
                             "NVLink over all GPUs"));
  layout->addWidget(tabs_, 1);
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
  legend_above(*plot_);
  message_ = add_plot_message(*plot_);

  // Topology variants: one row each, the latency as a horizontal bar (the communication
  // alone beside it when the kernel overlaps it), the value and change at the bar's end.
  apply_plot_style(*variants_);
  for (auto [name, color] : {std::pair{tr("kernel latency"), kLatencyColor},
                             std::pair{tr("communication alone"), kCommColor}}) {
    auto* bars = new QCPBars(variants_->yAxis, variants_->xAxis);
    bars->setName(name);
    bars->setPen(Qt::NoPen);
    bars->setBrush(color);
  }
  variants_->yAxis->setRangeReversed(true);  // as specified on top
  variants_->yAxis->setLabel(tr("topology variant"));
  variants_->yAxis->setTickLabels(false);  // each row's name sits above its bar, the plot's full width
  variants_->xAxis->setLabel(tr("latency (µs)"));
  variants_->yAxis->grid()->setVisible(false);
  legend_above(*variants_);
  variant_message_ = add_plot_message(*variants_);

  connect(types_, &QComboBox::currentTextChanged, this, [this] { run(); });
  connect(&runner_, &WhatIfRunner::swept, this, &WhatIfView::draw);
  showMessage(tr("one GPU: no links to scale"));
  clearVariants(tr("one GPU: no topology to vary"));
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
    clearVariants(p.network.empty() ? tr("one GPU: no topology to vary")
                                    : tr("no link types in %1").arg(QString::fromStdString(hardware)));
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
  for (QCustomPlot* plot : {plot_, variants_}) {
    wrap_legend(*plot, legend_names(*plot));
    plot->replot(QCustomPlot::rpQueuedReplot);
  }
}

void WhatIfView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_) run();
}

void WhatIfView::run() {
  stale_ = false;
  if (types_->currentText().isEmpty() || !plan_.is_object()) return;
  summary_->setHtml(tr("predicting…"));
  set_plot_message(variant_message_, tr("predicting…"));
  variants_->replot();
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
    drawVariants(sweep.variants);
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
  QString text = sweep.error;
  if (now && twice && now->latency_us > 0) {
    const double change = 100.0 * (twice->latency_us / now->latency_us - 1);
    text = std::abs(change) < 0.05 ? tr("×2 bandwidth: %1, no faster (the links are not what limits it)")
                                         .arg(format_time_us(now->latency_us))
                                   : tr("×2 bandwidth: %1 → %2 (%3)")
                                         .arg(format_time_us(now->latency_us), format_time_us(twice->latency_us),
                                              change_text(twice->latency_us, now->latency_us));
  }
  drawVariants(sweep.variants);
  const QString variants = variantSummary();
  summary_->setHtml(text.toHtmlEscaped() + (variants.isEmpty() ? QString() : "<br>" + variants.toHtmlEscaped()));
  showMessage({});
}

// The fastest variant against the plan as specified ("" when there is none).
QString WhatIfView::variantSummary() const {
  const auto& v = sweep_.variants;
  if (v.size() < 2 || !v.front().error.isEmpty() || v.front().latency_us <= 0) return {};
  const VariantPoint* best = nullptr;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i].error.isEmpty() && (!best || v[i].latency_us < best->latency_us)) best = &v[i];
  if (!best) return {};
  if (best->latency_us >= v.front().latency_us * 0.9995)
    return tr("no topology variant is faster than %1").arg(format_time_us(v.front().latency_us));
  return tr("fastest topology, %1: %2 → %3 (%4)")
      .arg(QString::fromStdString(best->label), format_time_us(v.front().latency_us),
           format_time_us(best->latency_us), change_text(best->latency_us, v.front().latency_us));
}

void WhatIfView::drawVariants(const std::vector<VariantPoint>& variants) {
  for (auto* item : variant_values_) variants_->removeItem(item);
  variant_values_.clear();
  if (variants.empty()) {
    clearVariants(tr("no topology to vary"));
    return;
  }
  auto* latency = qobject_cast<QCPBars*>(variants_->plottable(0));
  auto* comm = qobject_cast<QCPBars*>(variants_->plottable(1));
  QVector<double> keys, lat, com;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  double top = 0;
  bool overlapped = false;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const auto& v = variants[i];
    keys << static_cast<double>(i);
    lat << v.latency_us;
    com << v.comm_us;
    top = std::max({top, v.latency_us, v.comm_us});
    overlapped |= v.comm_us > 0 && v.comm_us < 0.995 * v.latency_us;
    ticker->addTick(static_cast<double>(i), QString::fromStdString(v.label));
  }
  latency->setData(keys, lat, true);
  comm->setData(keys, com, true);
  // A collective alone is all communication: one bar a row. A kernel that overlaps it, two.
  comm->setVisible(overlapped);
  if (overlapped) {
    comm->addToLegend();
    latency->setWidth(0.22);
    comm->setWidth(0.22);
    auto* group = latency->barsGroup() ? latency->barsGroup() : new QCPBarsGroup(variants_);
    latency->setBarsGroup(group);
    comm->setBarsGroup(group);
  } else {
    comm->removeFromLegend();
    latency->setBarsGroup(nullptr);
    comm->setBarsGroup(nullptr);
    latency->setWidth(0.4);
  }
  // The range stops at 2.5x the plan as specified: a variant far slower (every byte over the
  // NICs) would squeeze the rest into a sliver. Its bar runs off the edge; its value says so.
  const double base = variants.front().latency_us;
  const double cap = base > 0 ? 2.5 * base : top;
  double shown = 0;
  for (const auto& v : variants)
    if (v.latency_us <= cap) shown = std::max({shown, v.latency_us, v.comm_us});
  const double right = (shown > 0 ? shown : cap) * 1.4;
  auto add_text = [&](double x, double y, Qt::Alignment align, const QString& text, const QColor& color) {
    auto* item = new QCPItemText(variants_);
    item->setPositionAlignment(align);
    item->position->setCoords(x, y);
    item->setPadding(QMargins(4, 0, 4, 0));
    item->setColor(color);
    item->setText(text);
    variant_values_.push_back(item);
  };
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const auto& v = variants[i];
    const double y = static_cast<double>(i);
    add_text(0, y - 0.22, Qt::AlignLeft | Qt::AlignBottom, QString::fromStdString(v.label), text_color());
    QString text = v.error.isEmpty() ? format_time_us(v.latency_us) : tr("no prediction: %1").arg(v.error.left(60));
    if (i > 0 && v.error.isEmpty() && base > 0) text += "  " + change_text(v.latency_us, base);
    if (v.latency_us > right)
      add_text(right, y, Qt::AlignRight | Qt::AlignVCenter, text + QStringLiteral(" ▸"), Qt::white);
    else
      add_text(v.latency_us, y, Qt::AlignLeft | Qt::AlignVCenter, text, text_color());
  }
  variants_->yAxis->setTicker(ticker);
  variants_->yAxis->setRange(-0.75, static_cast<double>(variants.size()) - 0.5);
  variants_->xAxis->setRange(0, right);  // room for the values at the bars' ends
  set_plot_message(variant_message_, {});
  for (auto* axis : {variants_->xAxis, variants_->yAxis}) axis->setVisible(true);
  variants_->legend->setVisible(true);
  wrapLegend();
  variants_->replot();
}

void WhatIfView::clearVariants(const QString& message) {
  for (auto* item : variant_values_) variants_->removeItem(item);
  variant_values_.clear();
  for (int i = 0; i < variants_->plottableCount(); ++i)
    if (auto* bars = qobject_cast<QCPBars*>(variants_->plottable(i))) bars->data()->clear();
  set_plot_message(variant_message_, message);
  const bool frame = message.isEmpty();
  for (auto* axis : {variants_->xAxis, variants_->yAxis}) axis->setVisible(frame);
  variants_->legend->setVisible(frame);
  variants_->replot();
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
