#include "ui/dag_scene.h"

#include <QBrush>
#include <QFont>
#include <QFontMetricsF>
#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QPainterPath>
#include <QPen>

#include "ui/format.h"
#include "ui/layout/sugiyama.h"
#include "ui/plot_style.h"

namespace tilesight::ui {

namespace {

constexpr double kNodeWidth = 156, kNodeHeight = 50, kLayerGap = 96, kNodeGap = 28;
constexpr int kNameRole = 0;  // QGraphicsItem::data key holding the action name

// In the box: the work of a compute action (its operand bytes are in the tooltip), the bytes
// of a memory one, so that "mma_tc · 2.1 MFLOP" fits without elision.
QString box_amount(const DagAction& a) {
  return a.flops > 0 ? format_flops(a.flops) : format_bytes(a.bytes);
}

QString amount(const DagAction& a) {
  if (a.flops > 0 && a.bytes > 0) return format_flops(a.flops) + " · " + format_bytes(a.bytes);
  if (a.flops > 0) return format_flops(a.flops);
  return format_bytes(a.bytes);
}

// Cubic segments that leave and enter vertically, with an arrowhead at the end.
QPainterPath edge_path(const std::vector<QPointF>& route) {
  QPainterPath path(route.front());
  for (std::size_t i = 1; i < route.size(); ++i) {
    const QPointF a = route[i - 1], b = route[i];
    const double dy = (b.y() - a.y()) / 2;
    path.cubicTo(a + QPointF(0, dy), b - QPointF(0, dy), b);
  }
  return path;
}

}  // namespace

DagScene::DagScene(QObject* parent) : QGraphicsScene(parent) {
  connect(this, &QGraphicsScene::selectionChanged, this, [this] {
    const QString now = selectedAction();
    if (now == selected_) return;
    selected_ = now;
    emit actionSelected(now);
  });
}

void DagScene::setDag(const TileDag& dag) {
  const QString keep = selected_;
  const QSignalBlocker block(this);
  clear();
  dag_ = dag;
  edges_ = 0;
  std::vector<layout::Edge> edges;
  for (std::size_t v = 0; v < dag_.actions.size(); ++v)
    for (std::size_t u : dag_.actions[v].deps) edges.push_back({u, v});
  const auto placed =
      layout::sugiyama_layout(dag_.actions.size(), edges,
                              {.node_width = kNodeWidth, .node_gap = kNodeGap, .layer_gap = kLayerGap});
  crossings_ = placed.crossings;
  for (const auto& route : placed.edge_routes) {
    std::vector<QPointF> points;
    for (const auto& p : route) points.emplace_back(p.x, p.y);
    if (points.size() < 2) continue;
    points.front().ry() += kNodeHeight / 2;
    points.back().ry() -= kNodeHeight / 2 + 1;
    addEdge(points);
  }
  for (std::size_t v = 0; v < dag_.actions.size(); ++v)
    addNode(dag_.actions[v], QPointF(placed.position[v].x, placed.position[v].y));
  setSceneRect(itemsBoundingRect().adjusted(-24, -24, 24, 24));
  if (QGraphicsItem* item = nodeItem(keep)) item->setSelected(true);
  selected_ = selectedAction();
}

void DagScene::addNode(const DagAction& a, QPointF centre) {
  const QColor fill = pipeline_color(a.pipeline);
  auto* box = addRect(QRectF(-kNodeWidth / 2, -kNodeHeight / 2, kNodeWidth, kNodeHeight),
                      QPen(fill.darker(160), 1.2), fill);
  box->setPos(centre);
  box->setFlag(QGraphicsItem::ItemIsSelectable);
  box->setData(kNameRole, QString::fromStdString(a.name));
  box->setZValue(1);
  box->setToolTip(tr("<b>%1</b> (%2)<br>pipeline: %3%4<br>loop: %5<br>result in: %6<br>%7")
                      .arg(QString::fromStdString(a.name).toHtmlEscaped(),
                           QString::fromStdString(a.op), to_qstring(resource_label(a.pipeline)),
                           a.pipeline_predicted ? QString() : tr(" (guessed from the op)"),
                           a.loop.empty() ? tr("tile body") : QString::fromStdString(a.loop),
                           QString::fromStdString(a.result_level), amount(a)));
  const QColor ink = fill.lightness() > 160 ? text_color() : QColor(Qt::white);
  auto text = [&](const QString& s, QPointF at, bool bold, Qt::Alignment align) {
    auto* item = new QGraphicsSimpleTextItem(s, box);
    QFont font = item->font();
    font.setBold(bold);
    font.setPointSizeF(bold ? 10 : 9);  // at PlanEditor::kMinScale: 8 and 7.2 pt
    item->setFont(font);
    item->setBrush(ink);
    const QRectF r = item->boundingRect();
    item->setPos(at.x() - (align & Qt::AlignRight ? r.width() : 0), at.y() - r.height() / 2);
    return item;
  };
  const double left = -kNodeWidth / 2 + 8, right = kNodeWidth / 2 - 8;
  QFont small;
  small.setPointSizeF(9);
  // The pipeline's tag ends the name's line, or the line under it when the name needs the
  // room ("load_kv_latent"); what still does not fit is elided, the tooltip has all of it.
  const QString lane = to_qstring(resource_lane(a.pipeline));
  QFont bold;
  bold.setPointSizeF(10);
  bold.setBold(true);
  const QFontMetricsF bold_metrics(bold), small_metrics(small);
  const double tag = small_metrics.horizontalAdvance(lane) + 6;
  QString name = QString::fromStdString(a.name);
  QString detail = QString::fromStdString(a.op) + " · " + box_amount(a);
  const bool tag_below = bold_metrics.horizontalAdvance(name) + tag > right - left &&
                         small_metrics.horizontalAdvance(detail) + tag <= right - left;
  name = bold_metrics.elidedText(name, Qt::ElideRight, right - left - (tag_below ? 0 : tag));
  detail = small_metrics.elidedText(detail, Qt::ElideRight, right - left - (tag_below ? tag : 0));
  text(name, {left, -10}, true, Qt::AlignLeft);
  text(lane, {right, tag_below ? 11.0 : -10.0}, false, Qt::AlignRight);
  text(detail, {left, 11}, false, Qt::AlignLeft);
}

void DagScene::addEdge(const std::vector<QPointF>& route) {
  const QColor ink(0x70, 0x70, 0x70);
  addPath(edge_path(route), QPen(ink, 1.4))->setZValue(0);
  const QPointF tip = route.back();
  QPolygonF head;
  head << tip << tip + QPointF(-5, -9) << tip + QPointF(5, -9);
  addPolygon(head, QPen(ink), ink)->setZValue(0);
  ++edges_;
}

QString DagScene::selectedAction() const {
  for (QGraphicsItem* item : selectedItems())
    if (const QString name = item->data(kNameRole).toString(); !name.isEmpty()) return name;
  return {};
}

void DagScene::selectAction(const QString& name) {
  if (name == selectedAction()) return;
  clearSelection();
  if (QGraphicsItem* item = nodeItem(name)) item->setSelected(true);
}

QGraphicsItem* DagScene::nodeItem(const QString& name) const {
  if (name.isEmpty()) return nullptr;
  for (QGraphicsItem* item : items())
    if (item->data(kNameRole).toString() == name) return item;
  return nullptr;
}

QList<QRectF> DagScene::nodeRects() const {
  QList<QRectF> rects;
  for (QGraphicsItem* item : items())
    if (!item->data(kNameRole).toString().isEmpty()) rects << item->sceneBoundingRect();
  return rects;
}

}  // namespace tilesight::ui
