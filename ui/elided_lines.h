// A few lines of text, each on one line of its own whatever the width: what does not fit is
// elided ("…") and the tooltip gives every line in full. A line may start with a colour
// swatch (the Network lanes' colour of a collective). Used where a word-wrapped label would
// take the room of the view under it (the Network lanes' summary):
//
//   ■ all_to_all 80 MiB on 8 GPUs: direct/Simple, busbw 340 G…
//   ■ all_to_all 64 MiB on 8 GPUs: direct/Simple, busbw 336 G…
//   bottleneck gpu0->nvswitch (16 links carry traffic)
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
