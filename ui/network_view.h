// Network lanes: collective stages per link over time (eq. 11), one lane per link. Until the
// distributed model lands the engine predicts single-GPU plans only, so the view says what
// it will show and why it is empty:
//
//   ┌──────────────────────────────────────────────┐
//   │          no cross-device traffic             │
//   │  single-GPU plan on h200: nothing crosses a  │
//   │  link. Collectives of multi-GPU plans ...    │
//   └──────────────────────────────────────────────┘
//
// When a prediction's network pipeline is busy the view gives its busy time and share.
#pragma once

#include <QWidget>

#include "tilesight/report/prediction.h"

class QLabel;

namespace tilesight::ui {

class NetworkView : public QWidget {
  Q_OBJECT

 public:
  explicit NetworkView(QWidget* parent = nullptr);

  void setPrediction(const report::Prediction& prediction);
  QString headline() const;

 private:
  QLabel* headline_ = nullptr;
  QLabel* details_ = nullptr;
};

}  // namespace tilesight::ui
