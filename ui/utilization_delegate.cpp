#include "ui/utilization_delegate.h"

#include <QApplication>
#include <QPainter>
#include <algorithm>

#include "ui/utilization_model.h"

namespace tilesight::ui {

namespace {
constexpr int kInset = 4;  // around the bar, and between the percentage and the cell's edge
int percent_width(const QFontMetrics& fm) {
  return fm.horizontalAdvance(QStringLiteral("100%")) + 2 * kInset;
}
}  // namespace

int UtilizationDelegate::minimumWidth(const QFontMetrics& fm) {
  return kInset + kMinBar + percent_width(fm);
}

void UtilizationDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                                const QModelIndex& index) const {
  QStyleOptionViewItem opt = option;
  initStyleOption(&opt, index);
  const QString text = opt.text;
  opt.text.clear();
  QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
  if (text.isEmpty()) return;

  const double fraction =
      std::clamp(index.data(UtilizationModel::kFractionRole).toDouble(), 0.0, 1.0);
  const int text_width = percent_width(opt.fontMetrics);
  const QRect area = opt.rect.adjusted(kInset, kInset, -text_width, -kInset);
  const bool bottleneck = opt.font.bold();
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  painter->setPen(Qt::NoPen);
  painter->setBrush(QColor(0xee, 0xee, 0xee));
  painter->drawRoundedRect(area, 2, 2);
  QRect filled = area;
  filled.setWidth(static_cast<int>(area.width() * fraction));
  painter->setBrush(bottleneck ? QColor(0xd5, 0x5e, 0x00) : QColor(0x00, 0x72, 0xb2));
  if (filled.width() > 0) painter->drawRoundedRect(filled, 2, 2);
  painter->setPen(opt.palette.color(QPalette::Text));
  painter->setFont(opt.font);
  painter->drawText(opt.rect.adjusted(0, 0, -kInset, 0), Qt::AlignRight | Qt::AlignVCenter, text);
  painter->restore();
}

QSize UtilizationDelegate::sizeHint(const QStyleOptionViewItem& option,
                                    const QModelIndex& index) const {
  QSize size = QStyledItemDelegate::sizeHint(option, index);
  size.setWidth(std::max(size.width(), minimumWidth(option.fontMetrics)));
  return size;
}

}  // namespace tilesight::ui
