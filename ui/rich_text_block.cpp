#include "ui/rich_text_block.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QMenu>
#include <QPainter>
#include <cmath>

namespace tilesight::ui {

namespace {
constexpr int kMinChars = 12;        // the narrowest a block gets, in average characters
constexpr int kPreferredChars = 48;  // its preferred width before the layout widens it
}  // namespace

RichTextBlock::RichTextBlock(QWidget* parent) : QWidget(parent) {
  doc_.setDocumentMargin(0);
  doc_.setDefaultFont(font());
  doc_.setUndoRedoEnabled(false);
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Minimum);  // never shorter than its text
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
}

void RichTextBlock::setHtml(const QString& html) {
  if (html == html_) return;
  html_ = html;
  doc_.setHtml(html);  // laid out at the width it had (the one shown, once painted)
  ++layouts_;
  forgetHeights();
  updateGeometry();
  update();
}

void RichTextBlock::forgetHeights() {
  heights_.fill({0, 0});
}

void RichTextBlock::layOut(int width) const {
  if (doc_.textWidth() == width) return;
  doc_.setTextWidth(width);
  ++layouts_;
}

int RichTextBlock::heightForWidth(int width) const {
  if (html_.isEmpty()) return 0;
  const QMargins m = contentsMargins();
  width = std::max(width - m.left() - m.right(), 1);
  for (const auto& [w, h] : heights_)
    if (w == width) return h;
  layOut(width);
  const int height = static_cast<int>(std::ceil(doc_.size().height())) + m.top() + m.bottom();
  heights_[next_slot_] = {width, height};
  next_slot_ = (next_slot_ + 1) % heights_.size();
  return height;
}

QSize RichTextBlock::sizeHint() const {
  const int width = fontMetrics().averageCharWidth() * kPreferredChars;
  return {width, heightForWidth(this->width() > 1 ? this->width() : width)};
}

QSize RichTextBlock::minimumSizeHint() const {
  return {fontMetrics().averageCharWidth() * kMinChars, 0};
}

void RichTextBlock::paintEvent(QPaintEvent* event) {
  if (html_.isEmpty()) return;
  const QRect inside = contentsRect();
  layOut(std::max(inside.width(), 1));
  QPainter painter(this);
  painter.setClipRect(event->rect());
  painter.translate(inside.topLeft());
  QAbstractTextDocumentLayout::PaintContext context;
  context.palette = palette();
  context.palette.setColor(QPalette::Text, palette().color(QPalette::WindowText));
  context.clip = QRectF(event->rect().translated(-inside.topLeft()));
  doc_.documentLayout()->draw(&painter, context);
}

void RichTextBlock::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addAction(tr("&Copy"), this, [this] { QApplication::clipboard()->setText(plainText()); });
  menu.exec(event->globalPos());
}

void RichTextBlock::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) {
    doc_.setDefaultFont(font());
    ++layouts_;
    forgetHeights();
    updateGeometry();
  }
}

}  // namespace tilesight::ui
