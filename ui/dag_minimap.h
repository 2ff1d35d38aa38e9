// The plan editor's overview: the whole DAG in a small box in the drawing's bottom-right
// corner, the part the drawing shows outlined in blue. It appears only when the DAG does not
// fit (a wide or zoomed-in DAG); clicking or dragging in it moves the drawing there.
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

 protected:
  void drawForeground(QPainter* painter, const QRectF& rect) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void centreMainAt(const QPoint& pixel);

  QGraphicsView* main_;
};

}  // namespace tilesight::ui
