#include "ui/dag_minimap.h"

#include <QEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTimer>
#include <algorithm>
#include <cmath>

#include "ui/dag_scene.h"

namespace tilesight::ui {

DagMinimap::DagMinimap(QGraphicsView* main) : QGraphicsView(main->scene(), main), main_(main) {
  setObjectName(QStringLiteral("dag_minimap"));
  setInteractive(false);  // a click moves the drawing; it never selects a node
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setRenderHints(QPainter::Antialiasing);
  setFrameShape(QFrame::Box);
  setStyleSheet(QStringLiteral("QGraphicsView { border: 1px solid #9aa0a6; background: #ffffff; }"));
  setCursor(Qt::PointingHandCursor);
  setToolTip(tr("Overview of the whole DAG: click or drag to move the drawing there"));
  auto later = [this] { QTimer::singleShot(0, this, &DagMinimap::refresh); };
  connect(main->horizontalScrollBar(), &QScrollBar::valueChanged, this, [this] { viewport()->update(); });
  connect(main->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] { viewport()->update(); });
  connect(main->horizontalScrollBar(), &QScrollBar::rangeChanged, this, later);
  connect(main->verticalScrollBar(), &QScrollBar::rangeChanged, this, later);
  connect(main->scene(), &QGraphicsScene::sceneRectChanged, this, later);
  main->installEventFilter(this);  // resizes
  hide();
}

QRectF DagMinimap::shownRect() const {
  return main_->mapToScene(main_->viewport()->rect()).boundingRect().intersected(scene()->sceneRect());
}

void DagMinimap::refresh() {
  const QRectF scene_rect = scene()->sceneRect();
  const QRectF shown = shownRect();
  // Shown only when the drawing leaves part of the DAG out (a pixel of slack for rounding).
  const bool clipped = !scene()->items().isEmpty() && (shown.width() + 1 < scene_rect.width() ||
                                                       shown.height() + 1 < scene_rect.height());
  if (!clipped || !wanted_) return hide();
  const int room_w = std::min(kMaxWidth, main_->width() / 3), room_h = std::min(kMaxHeight, main_->height() / 3);
  const double scale = std::min(room_w / scene_rect.width(), room_h / scene_rect.height());
  // Whole pixels that hold the scaled DAG; the scale's rounding error (120.0000001 px) is no
  // pixel more than the room.
  const auto pixels = [&](double length) {
    return static_cast<int>(std::ceil(length * scale - 1e-6));
  };
  const int w = std::max(24, pixels(scene_rect.width()) + 2 * frameWidth());
  const int h = std::max(16, pixels(scene_rect.height()) + 2 * frameWidth());
  setGeometry(corner(QSize(w, h)));
  setTransform(QTransform::fromScale(scale, scale));
  centerOn(scene_rect.center());
  show();
  raise();
  viewport()->update();
}

void DagMinimap::setWanted(bool wanted) {
  wanted_ = wanted;
  refresh();
}

// Inside the viewport (clear of the scroll bars), in the corner whose box covers the least
// area of action boxes as the drawing shows them now; edges may pass under it.
QRect DagMinimap::corner(QSize size) const {
  const QRect port = main_->viewport()->geometry();
  const int left = port.left() + kMargin, right = port.right() - size.width() - kMargin + 1;
  const int top = port.top() + kMargin, bottom = port.bottom() - size.height() - kMargin + 1;
  const QPoint corners[] = {{right, bottom}, {left, bottom}, {right, top}, {left, top}};
  const auto* dag = qobject_cast<const DagScene*>(scene());
  const QList<QRectF> nodes = dag ? dag->nodeRects() : QList<QRectF>();
  QRect best;
  double least = -1;
  for (const QPoint& at : corners) {
    const QRect box(at, size);
    // The box in the viewport's coordinates, then in the scene's.
    const QRectF covered = main_->mapToScene(box.translated(-port.topLeft())).boundingRect();
    double area = 0;
    for (const QRectF& node : nodes) {
      const QRectF both = node.intersected(covered);
      area += both.width() * both.height();
    }
    if (least < 0 || area < least) least = area, best = box;
  }
  return best;
}

void DagMinimap::drawForeground(QPainter* painter, const QRectF&) {
  const QRectF shown = shownRect();
  painter->save();
  painter->setBrush(QColor(0x1f, 0x77, 0xb4, 40));
  painter->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 0));  // cosmetic: one pixel at any scale
  painter->drawRect(shown);
  painter->restore();
}

void DagMinimap::centreMainAt(const QPoint& pixel) {
  main_->centerOn(mapToScene(pixel));
  viewport()->update();
}

void DagMinimap::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) centreMainAt(event->position().toPoint());
}

void DagMinimap::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) centreMainAt(event->position().toPoint());
}

void DagMinimap::wheelEvent(QWheelEvent* event) {
  event->ignore();  // the overview does not scroll itself
}

bool DagMinimap::eventFilter(QObject* watched, QEvent* event) {
  if (watched == main_ && event->type() == QEvent::Resize) QTimer::singleShot(0, this, &DagMinimap::refresh);
  return QGraphicsView::eventFilter(watched, event);
}

}  // namespace tilesight::ui
