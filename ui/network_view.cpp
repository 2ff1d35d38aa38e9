#include "ui/network_view.h"

#include <algorithm>
#include <map>

#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include "ui/elided_lines.h"
#include "ui/format.h"
#include "ui/network_lanes.h"

namespace tilesight::ui {

NetworkView::NetworkView(QWidget* parent)
    : QWidget(parent),
      headline_(new QLabel(this)),
      details_(new QLabel(this)),
      summary_(new ElidedLines(this)),
      lanes_(new NetworkLanes(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setSpacing(4);
  layout->addWidget(headline_);
  layout->addWidget(details_);
  layout->addWidget(summary_);
  // Sixteen links of an 8-GPU switch do not fit a short dock: the lanes scroll.
  scroll_ = new QScrollArea(this);
  scroll_->setWidget(lanes_);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layout->addWidget(scroll_, 1);
  layout->addStretch(0);  // takes the room when the lanes are hidden: the message stays on top
  QFont font = headline_->font();
  font.setBold(true);
  headline_->setFont(font);
  headline_->setWordWrap(true);
  headline_->setStyleSheet(QStringLiteral("color: #555;"));
  details_->setWordWrap(true);
  details_->setStyleSheet(QStringLiteral("color: gray;"));
  headline_->setText(tr("no prediction yet"));
  summary_->hide();
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
}

void NetworkView::setPrediction(const report::Prediction& p) {
  lanes_->setNetwork(p.network, p.latency_us);
  // No traffic: a centred message in the empty dock. Traffic: one line per collective (its
  // bars' colour before it), one for the links, one for the overlap, each cut to the dock's
  // width (the tooltip has them whole), so the lanes keep the dock's height.
  const bool empty = p.network.empty();
  headline_->setVisible(empty);
  details_->setVisible(empty);
  summary_->setVisible(!empty);
  scroll_->setVisible(!empty);
  if (empty) {
    headline_->setAlignment(Qt::AlignCenter);
    details_->setAlignment(Qt::AlignCenter);
    headline_->setText(tr("no cross-device traffic"));
    details_->setText(tr("A single-GPU plan on %1: nothing crosses a link. Multi-GPU plans "
                         "(collectives, ag_gemm, gemm_rs) show their stages here, one lane per link.")
                          .arg(QString::fromStdString(p.hardware)));
    return;
  }
  // Identical collectives (llm_decode's two all-reduces per layer) are said once, counted.
  // The collective and its bus bandwidth are each line's key words: cut to the dock (230 px
  // in a 1280x800 window), the line loses its middle (size, GPUs, algorithm, protocol) first,
  // the busbw last (ElidedLines' lead and tail).
  QList<ElidedLines::Line> lines;
  QList<int> counts;
  for (const auto& c : p.network.collectives) {
    const ElidedLines::Line line{
        .text = tr(" %1 on %2 GPUs: %3/%4")
                    .arg(format_bytes(c.bytes))
                    .arg(c.devices)
                    .arg(QString::fromStdString(c.algorithm), QString::fromStdString(c.protocol)),
        .swatch = lanes_->colourOf(c.collective),
        .strong = true,
        .lead = QString::fromStdString(c.collective),
        .tail = tr(", busbw %1 GB/s").arg(c.busbw_gbps, 0, 'f', 0)};
    const auto same = std::find_if(lines.begin(), lines.end(), [&](const ElidedLines::Line& l) {
      return l.full() == line.full();
    });
    if (same != lines.end())
      ++counts[same - lines.begin()];
    else
      lines << line, counts << 1;
  }
  QStringList parts;
  for (qsizetype i = 0; i < lines.size(); ++i) {
    if (counts[i] > 1) lines[i].lead = QStringLiteral("%1 × %2").arg(counts[i]).arg(lines[i].lead);
    parts << lines[i].full();
  }
  collectives_ = parts.join(QLatin1Char('\n'));
  QStringList details{tr("bottleneck %1 (%2 links carry traffic)")
                          .arg(QString::fromStdString(p.network.bottleneck_link))
                          .arg(p.network.links.size())};
  // Overlap none hides nothing by definition: the two spans are said in order instead.
  if (p.network.overlap == "none")
    details << tr("overlap none: comm %1 and compute %2, one after the other")
                   .arg(format_time_us(p.network.comm_us), format_time_us(p.network.compute_us));
  else if (!p.network.overlap.empty())
    details << tr("overlap %1: %2 of comm hidden (comm %3, compute %4 alone)")
                   .arg(QString::fromStdString(p.network.overlap), format_percent(p.network.overlap_rate),
                        format_time_us(p.network.comm_us), format_time_us(p.network.compute_us));
  for (const QString& d : details) lines.append({.text = d});
  details_->setText(details.join(QLatin1Char('\n')));
  summary_->setLines(lines);
}

QString NetworkView::headline() const {
  return summary_->isHidden() ? headline_->text() : collectives_;
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

QWidget* NetworkView::lanesArea() const {
  return scroll_;
}

QString NetworkView::details() const {
  return details_->text();
}

}  // namespace tilesight::ui
