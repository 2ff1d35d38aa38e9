// The plan editor's overview: the whole DAG in a small box in a corner of the drawing, the
// part the drawing shows outlined in blue. It appears only when the DAG does not fit (a wide
// or zoomed-in DAG) and the user has not hidden it (the editor's Overview button); clicking
// or dragging in it moves the drawing there. Of the four corners it takes the one where it
// hides the least of the action boxes in view (the bottom-right when it hides none there).
//
//   ┌ drawing ─────────────────────────────┐
//   │  load_a   load_b   load_c  ...        │
//   │      mma_0    mma_1 ...   ┌─────────┐ │
//   │                           │▣▣ ▫▫ ▫▫ │ │   ▣: shown in the drawing
//   │                           │ ▣  ▫  ▫ │ │
//   └───────────────────────────┴─────────┴─┘
#pragma once

#include <QGraphicsView>

namespace tilesight::ui {

class DagMinimap : public QGraphicsView {
 public:
  // Sizes of the box: at most this wide or tall, never wider than a third of the drawing.
  static constexpr int kMaxWidth = 180, kMaxHeight = 120, kMargin = 8;

  // Watches `main` (its scene, scroll bars and size) and sits over its bottom-right corner.
  explicit DagMinimap(QGraphicsView* main);

  // The part of the scene the drawing shows, in scene coordinates.
  QRectF shownRect() const;
  // Shows the box when the DAG does not fit in the drawing, places and refits it.
  void refresh();
  // Off: never shown (the user hid it); on: shown whenever the DAG does not fit.
  void setWanted(bool wanted);
  bool wanted() const { return wanted_; }

 protected:
  void drawForeground(QPainter* painter, const QRectF& rect) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void centreMainAt(const QPoint& pixel);

  QRect corner(QSize size) const;  // the least-covering corner of the drawing for a box this size

  QGraphicsView* main_;
  bool wanted_ = true;
};

}  // namespace tilesight::ui
