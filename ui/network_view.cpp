#include "ui/network_view.h"

#include <algorithm>
#include <map>

#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include "ui/format.h"
#include "ui/network_lanes.h"

namespace tilesight::ui {

NetworkView::NetworkView(QWidget* parent)
    : QWidget(parent), headline_(new QLabel(this)), details_(new QLabel(this)), lanes_(new NetworkLanes(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(headline_);
  layout->addWidget(details_);
  // Sixteen links of an 8-GPU switch do not fit a short dock: the lanes scroll.
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(lanes_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layout->addWidget(scroll, 1);
  QFont font = headline_->font();
  font.setBold(true);  // the collectives: one line each, no larger than the lanes' names
  headline_->setFont(font);
  headline_->setWordWrap(true);  // a long list of collectives must not widen the dock
  headline_->setStyleSheet(QStringLiteral("color: #555;"));
  details_->setWordWrap(true);
  details_->setTextFormat(Qt::RichText);
  details_->setStyleSheet(QStringLiteral("color: gray;"));
  headline_->setText(tr("no prediction yet"));
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
}

void NetworkView::setPrediction(const report::Prediction& p) {
  lanes_->setNetwork(p.network, p.latency_us);
  // "No traffic" centred in the empty dock; the collectives and their links read from the left,
  // as the lanes' names do.
  const Qt::Alignment align = p.network.empty() ? Qt::AlignCenter : Qt::AlignLeft | Qt::AlignVCenter;
  headline_->setAlignment(align);
  details_->setAlignment(align);
  if (p.network.empty()) {
    headline_->setText(tr("no cross-device traffic"));
    details_->setText(tr("A single-GPU plan on %1: nothing crosses a link. Multi-GPU plans "
                         "(collectives, ag_gemm, gemm_rs) show their stages here, one lane per link.")
                          .arg(QString::fromStdString(p.hardware)));
    return;
  }
  // Identical collectives (llm_decode's two all-reduces per layer) are said once, counted.
  QStringList parts;
  QList<int> counts;
  for (const auto& c : p.network.collectives) {
    // A word joiner keeps "GB/s" whole when the headline wraps in a narrow dock.
    const QString part = tr("%1 %2 on %3 GPUs: %4/%5, busbw %6 GB/\u2060s")
                             .arg(QString::fromStdString(c.collective), format_bytes(c.bytes))
                             .arg(c.devices)
                             .arg(QString::fromStdString(c.algorithm), QString::fromStdString(c.protocol))
                             .arg(c.busbw_gbps, 0, 'f', 0);
    if (const auto i = parts.indexOf(part); i >= 0) ++counts[i];
    else parts << part, counts << 1;
  }
  for (qsizetype i = 0; i < parts.size(); ++i)
    if (counts[i] > 1) parts[i] = QStringLiteral("%1 × %2").arg(counts[i]).arg(parts[i]);
  headline_->setText(parts.join(QLatin1Char('\n')));  // one collective per line
  QString details = tr("bottleneck link %1; %2 links carried traffic")
                        .arg(QString::fromStdString(p.network.bottleneck_link))
                        .arg(p.network.links.size());
  // Overlap none hides nothing by definition: the two spans are said in order instead.
  if (p.network.overlap == "none")
    details += tr("<br>overlap none: communication %1 and computation %2, one after the other")
                   .arg(unbroken(format_time_us(p.network.comm_us)),
                        unbroken(format_time_us(p.network.compute_us)));
  else if (!p.network.overlap.empty())
    details += tr("<br>overlap %1: communication %2, computation %3 alone; <b>%4 of the communication "
                  "hidden</b> under the computation")
                   .arg(QString::fromStdString(p.network.overlap), unbroken(format_time_us(p.network.comm_us)),
                        unbroken(format_time_us(p.network.compute_us)), format_percent(p.network.overlap_rate));
  details_->setText(details);
}

QString NetworkView::headline() const {
  return headline_->text();
}

int NetworkView::laneCount() const {
  return lanes_->lanes();
}

int NetworkView::laneBarWidth() const {
  return lanes_->barWidth();
}

bool NetworkView::lanesStacked() const {
  return lanes_->stacked();
}

std::vector<std::pair<double, double>> NetworkView::laneBars(int row) const {
  return lanes_->barsOf(row);
}

std::vector<std::pair<double, double>> NetworkView::scheduleBars(bool compute) const {
  return lanes_->scheduleBars(compute);
}

QString NetworkView::details() const {
  return details_->text();
}

}  // namespace tilesight::ui
