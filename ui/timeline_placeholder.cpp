#include "ui/timeline_placeholder.h"

#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include "ui/format.h"
#include "ui/network_lanes.h"

namespace tilesight::ui {

TimelinePlaceholder::TimelinePlaceholder(QWidget* parent)
    : QWidget(parent), why_(new QLabel(this)), lanes_(new NetworkLanes(this)) {
  auto* page = new QVBoxLayout(this);
  page->setContentsMargins(24, 16, 24, 16);
  why_->setAlignment(Qt::AlignCenter);
  why_->setWordWrap(true);
  why_->setStyleSheet(QStringLiteral("color: gray;"));
  page->addWidget(why_);
  // Sixteen links are taller than the timeline of a 1280x800 window: the lanes scroll (their
  // minimum height set the window's, 913 px). The canvas is white only as far down as the
  // lanes and their axis reach (NetworkLanes::paintEvent).
  lanes_area_ = new QScrollArea(this);
  lanes_area_->setWidget(lanes_);
  lanes_area_->setWidgetResizable(true);
  lanes_area_->setFrameShape(QFrame::NoFrame);
  lanes_area_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  page->addWidget(lanes_area_, 1);
  page->addStretch(0);  // takes the room when the lanes are hidden: the text stays on top
}

void TimelinePlaceholder::setPrediction(const report::Prediction& p) {
  const bool lanes = !p.network.empty() && !p.network.events.empty();
  lanes_->setNetwork(p.network, p.latency_us);
  lanes_area_->setVisible(lanes);
  const QString kernel = QString::fromStdString(p.kernel).toHtmlEscaped();
  QString why = p.serve.step_us > 0
                    ? tr("<b>%1</b> is a decode step of many kernels: it has no one-SM timeline (the "
                         "report lists the time of each kernel).")
                          .arg(kernel)
                    : tr("<b>%1</b> runs on the network: it has no one-SM timeline.").arg(kernel);
  if (lanes)
    why += QStringLiteral("<br>") + tr("Its collective stages per link over time (%1, busiest links first):")
                                        .arg(format_time_us(p.latency_us));
  why_->setText(why);
}

QString TimelinePlaceholder::text() const {
  return why_->text();
}

int TimelinePlaceholder::networkLaneCount() const {
  return lanes_area_->isHidden() ? 0 : lanes_->lanes();
}

}  // namespace tilesight::ui
