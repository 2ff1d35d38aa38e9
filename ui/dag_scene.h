// The plan editor's drawing: the tile-action DAG laid out by ui/layout/sugiyama.h, one
// rounded box per action filled with its pipeline's colour, arrows from each dependency to
// its user, dependencies above. Selecting a box selects the action.
//
//   ┌──────────────┐  ┌──────────────┐
//   │ load_a  DRAM │  │ load_b  DRAM │     a long name: its tag on the line under it
//   │ load · 16 KiB │  │ load · 16 KiB │     │ load_kv_latent          │
//   └──────┬───────┘  └──────┬───────┘     │ load · 64 KiB      DRAM │
//          └──────┐   ┌──────┘
//            ┌────▼───▼────┐
//            │ mma      TC │ ...
#pragma once

#include <QGraphicsScene>
#include <QString>

#include "ui/tile_dag.h"

namespace tilesight::ui {

class DagScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit DagScene(QObject* parent = nullptr);
  // ~QGraphicsScene clears the items, which changes the selection: nobody may hear it then.
  ~DagScene() override { blockSignals(true); }

  // Redraws the DAG; the selected action stays selected if it is still there.
  void setDag(const TileDag& dag);
  const TileDag& dag() const { return dag_; }

  QString selectedAction() const;  // "" when none
  void selectAction(const QString& name);
  QGraphicsItem* nodeItem(const QString& name) const;
  QList<QRectF> nodeRects() const;  // every action's box, in scene coordinates
  int nodeCount() const { return static_cast<int>(dag_.actions.size()); }
  int edgeCount() const { return edges_; }
  int crossings() const { return crossings_; }

 signals:
  void actionSelected(const QString& name);  // "" when the selection is cleared

 private:
  void addNode(const DagAction& action, QPointF centre);
  void addEdge(const std::vector<QPointF>& route);

  TileDag dag_;
  int edges_ = 0;
  int crossings_ = 0;
  QString selected_;
};

}  // namespace tilesight::ui
