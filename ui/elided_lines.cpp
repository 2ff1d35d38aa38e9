#include "ui/elided_lines.h"

#include <QPainter>

namespace tilesight::ui {

namespace {
constexpr int kSwatch = 9, kGap = 5;
}

ElidedLines::ElidedLines(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);  // never widens the dock
}

void ElidedLines::setLines(const QList<Line>& lines) {
  lines_ = lines;
  QStringList full;
  for (const Line& l : lines_) full << l.full().toHtmlEscaped();
  setToolTip(full.join(QStringLiteral("<br>")));
  updateGeometry();
  update();
}

QFont ElidedLines::fontOf(const Line& line) const {
  QFont f = font();
  f.setBold(line.strong);
  return f;
}

int ElidedLines::textLeft(const Line& line) const {
  return line.swatch.isValid() ? kSwatch + kGap : 0;
}

QString ElidedLines::shownText(int i) const {
  const Line& l = lines_.at(i);
  const QFontMetrics fm(fontOf(l));
  const int room = std::max(0, width() - textLeft(l));
  if (fm.horizontalAdvance(l.full()) <= room) return l.full();
  const int tail = fm.horizontalAdvance(l.tail);
  // The text gives way first, down to "…" alone...
  const QString text = fm.elidedText(l.text, Qt::ElideRight,
                                     std::max(0, room - fm.horizontalAdvance(l.lead) - tail));
  if (!text.isEmpty() && fm.horizontalAdvance(l.lead + text + l.tail) <= room)
    return l.lead + text + l.tail;
  // ...then the lead, down to a letter and "…"; then the tail too.
  const QString lead = fm.elidedText(l.lead + l.text, Qt::ElideRight, std::max(0, room - tail));
  if (!l.tail.isEmpty() && lead.size() >= 2) return lead + l.tail;
  return fm.elidedText(l.full(), Qt::ElideRight, room);
}

QSize ElidedLines::sizeHint() const {
  int w = 0;
  for (const Line& l : lines_)
    w = std::max(w, textLeft(l) + QFontMetrics(fontOf(l)).horizontalAdvance(l.full()));
  return {w, static_cast<int>(lines_.size()) * fontMetrics().lineSpacing()};
}

QSize ElidedLines::minimumSizeHint() const {
  return {0, sizeHint().height()};
}

void ElidedLines::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const int h = fontMetrics().lineSpacing();
  for (int i = 0; i < lines_.size(); ++i) {
    const Line& l = lines_.at(i);
    const QRect row(0, i * h, width(), h);
    if (l.swatch.isValid()) p.fillRect(QRect(0, row.center().y() - kSwatch / 2, kSwatch, kSwatch), l.swatch);
    p.setFont(fontOf(l));
    p.setPen(l.strong ? QColor(0x33, 0x33, 0x33) : QColor(0x80, 0x80, 0x80));
    p.drawText(row.adjusted(textLeft(l), 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, shownText(i));
  }
}

}  // namespace tilesight::ui
