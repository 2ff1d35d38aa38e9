// A few lines of text, each on one line of its own whatever the width: what does not fit is
// elided ("…") and the tooltip gives every line in full. A line may start with a colour
// swatch (the Network lanes' colour of a collective), and its words may be split in three:
// a lead and a tail (its key figure) around the text, which gives way first; then the lead
// does, the tail last. Used where a word-wrapped label would take the room of the view under
// it (the Network lanes' summary):
//
//   ■ 2 × all_to_all 64 MiB on 8 G…, busbw 336 GB/s     lead, text (cut), tail
//   ■ 2 × all_to_all…, busbw 336 GB/s                    narrower: no room for the text
//   bottleneck gpu0->nvswitch (16 links carry t…         a line of text alone
#pragma once

#include <QColor>
#include <QList>
#include <QString>
#include <QWidget>

namespace tilesight::ui {

class ElidedLines : public QWidget {
 public:
  struct Line {
    QString text;
    QColor swatch;  // invalid: none
    bool strong = false;  // bold and dark; else grey
    QString lead = {};    // before the text, cut only when the text is down to "…"
    QString tail = {};    // after it, cut only when the lead is down to a letter and "…"
    QString full() const { return lead + text + tail; }
  };

  explicit ElidedLines(QWidget* parent = nullptr);

  void setLines(const QList<Line>& lines);
  const QList<Line>& lines() const { return lines_; }
  // Line i as drawn at the current width ("…" where it was cut).
  QString shownText(int i) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QFont fontOf(const Line& line) const;
  int textLeft(const Line& line) const;

  QList<Line> lines_;
};

}  // namespace tilesight::ui
