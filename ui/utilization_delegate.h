// Paints the utilisation column of UtilizationModel as a horizontal bar with the percentage
// beside it; the bottleneck's bar is drawn in the accent colour, the others in grey-blue:
//
//   █████████▌   95%
//   ██████▏      62%
#pragma once

#include <QStyledItemDelegate>

namespace tilesight::ui {

class UtilizationDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  // The narrowest cell that still shows "100%" and a bar one can compare (kMinBar px).
  static int minimumWidth(const QFontMetrics& fm);
  static constexpr int kMinBar = 36;
};

}  // namespace tilesight::ui
