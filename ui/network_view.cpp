#include "ui/network_view.h"

#include <QLabel>
#include <QVBoxLayout>

#include "ui/format.h"

namespace tilesight::ui {

NetworkView::NetworkView(QWidget* parent)
    : QWidget(parent), headline_(new QLabel(this)), details_(new QLabel(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addStretch(1);
  layout->addWidget(headline_);
  layout->addWidget(details_);
  layout->addStretch(1);
  QFont font = headline_->font();
  font.setPointSizeF(font.pointSizeF() * 1.2);
  headline_->setFont(font);
  headline_->setAlignment(Qt::AlignCenter);
  headline_->setStyleSheet(QStringLiteral("color: #555;"));
  details_->setAlignment(Qt::AlignCenter);
  details_->setWordWrap(true);
  details_->setStyleSheet(QStringLiteral("color: gray;"));
  headline_->setText(tr("no prediction yet"));
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
}

void NetworkView::setPrediction(const report::Prediction& p) {
  const double net_us = p.busy_us[index(Resource::kNet)];
  if (net_us <= 0) {
    headline_->setText(tr("no cross-device traffic"));
    details_->setText(tr("A single-GPU plan on %1: nothing crosses a link. Multi-GPU plans "
                         "will show their collective stages here, one lane per link.")
                          .arg(QString::fromStdString(p.hardware)));
    return;
  }
  headline_->setText(
      tr("network busy %1 (%2 of the kernel)")
          .arg(format_time_us(net_us), format_percent(p.utilization[index(Resource::kNet)])));
  details_->setText(tr("Per-link lanes come with the distributed model."));
}

QString NetworkView::headline() const {
  return headline_->text();
}

}  // namespace tilesight::ui
