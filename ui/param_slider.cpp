#include "ui/param_slider.h"

#include <QSignalBlocker>
#include <QSpinBox>
#include <cmath>
#include <cstdlib>

namespace tilesight::ui {

ParamSlider::ParamSlider(QSpinBox* spin, QWidget* parent) : QSlider(Qt::Horizontal, parent), spin_(spin) {
  setTracking(false);  // valueChanged on release only: one commit per drag
  setPageStep(1);
  setTickPosition(QSlider::TicksBelow);
  setTickInterval(1);
  setFocusPolicy(Qt::StrongFocus);
  connect(this, &QSlider::sliderMoved, this, &ParamSlider::showInSpin);
  connect(this, &QSlider::valueChanged, this, [this](int position) {
    if (syncing_ || position < 0 || position >= static_cast<int>(values_.size())) return;
    showInSpin(position);
    emit committed(values_[static_cast<std::size_t>(position)]);
  });
  connect(spin_, qOverload<int>(&QSpinBox::valueChanged), this, &ParamSlider::sync);
}

void ParamSlider::setValues(std::vector<int> values) {
  if (values == values_) return sync();
  values_ = std::move(values);
  syncing_ = true;
  setRange(0, std::max(0, static_cast<int>(values_.size()) - 1));
  syncing_ = false;
  setEnabled(values_.size() > 1);
  QStringList shown;
  for (int v : values_) shown << QString::number(v);
  setToolTip(tr("legal values: %1").arg(shown.join(QStringLiteral(" "))));
  sync();
}

void ParamSlider::sync() {
  if (values_.empty() || isSliderDown()) return;
  syncing_ = true;
  setValue(positionOf(spin_->value()));
  syncing_ = false;
}

int ParamSlider::legalValue() const {
  return values_.empty() ? 0 : values_[static_cast<std::size_t>(std::clamp(value(), 0, maximum()))];
}

// Nearest on a log scale when the values grow geometrically (128 is nearer 100 than 64 is).
int ParamSlider::positionOf(int value) const {
  int best = 0;
  double best_distance = INFINITY;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const double d = value > 0 && values_[i] > 0 ? std::abs(std::log(static_cast<double>(value) / values_[i]))
                                                 : std::abs(static_cast<double>(value - values_[i]));
    if (d < best_distance) {
      best_distance = d;
      best = static_cast<int>(i);
    }
  }
  return best;
}

void ParamSlider::showInSpin(int position) {
  if (position < 0 || position >= static_cast<int>(values_.size())) return;
  const QSignalBlocker block(spin_);  // shown, not committed
  spin_->setValue(values_[static_cast<std::size_t>(position)]);
}

}  // namespace tilesight::ui
