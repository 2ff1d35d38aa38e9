// A block of rich text for the report: what a word-wrapped rich-text QLabel shows, laid out
// once per text and width. A QLabel lays its document out again for every size query
// (sizeHint, minimumSizeHint, heightForWidth at each width the layouts try) and for every
// paint: with the report's four blocks that was 18 ms of the UI thread per edit, most of the
// edit-to-views time (`tilesight --bench-edit`). Here setHtml with the same text does
// nothing, the height at a width is computed once and kept, and painting reuses the layout.
// No mouse selection: the context menu copies the block's text.
#pragma once

#include <QString>
#include <QTextDocument>
#include <QWidget>
#include <array>
#include <utility>

namespace tilesight::ui {

class RichTextBlock : public QWidget {
  Q_OBJECT

 public:
  explicit RichTextBlock(QWidget* parent = nullptr);

  void setHtml(const QString& html);  // no-op when unchanged
  void clear() { setHtml({}); }
  const QString& html() const { return html_; }
  QString plainText() const { return doc_.toPlainText(); }
  // Times the document was laid out since it was made (tests: a repeated text or a repeated
  // query costs no layout).
  int layoutCount() const { return layouts_; }

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void layOut(int width) const;  // the document at `width`, unless it is laid out there
  void forgetHeights();

  mutable QTextDocument doc_;
  QString html_;
  mutable std::array<std::pair<int, int>, 4> heights_{};  // (width, height), width 0: empty slot
  mutable std::size_t next_slot_ = 0;
  mutable int layouts_ = 0;
};

}  // namespace tilesight::ui
