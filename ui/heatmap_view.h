// Predicted cache hit rate per tile of the grid (report::HitRateMap): one cell per tile,
// rows along the grid's first dimension (M tiles of a GEMM), columns along the second
// (N tiles), coloured with viridis from 0% (dark blue) to 100% (yellow); a combo box picks
// the tensor and the cache level:
//
//   m tile  0 | ■■■■■■■■■■■■   hit rate (%)
//           1 | ■■■□□□□□■■■■     100 ■ yellow
//          .. | □□□□□□□□□□□□      50 ■ green
//             +-------------       0 ■ dark blue
//               n tile
//
// A grid one tile wide or high (rmsnorm's N x 1 row blocks, decode's single query block)
// would be one flat column of colour: it is drawn as a profile instead, the hit rate (%) per
// tile along the long dimension, with the grid's shape in the axis label:
//
//   hit rate (%) 100 |▇▇▇▇▇▇▆▆▆▇▇▇▇▇▇▇
//                  0 +----------------  row tile (16384 × 1 grid)
//
// Hovering a cell (or a tile of the profile) shows the tile's hit rate and mean reuse
// distance. The first-touch cache model gives no per-tile map; the view then says so.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "tilesight/report/prediction.h"

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCPItemText;
class QMouseEvent;

namespace tilesight::ui {

class HeatmapView : public QWidget {
  Q_OBJECT

 public:
  explicit HeatmapView(QWidget* parent = nullptr);

  void setPrediction(const report::Prediction& prediction);
  QCustomPlot* plot() const { return plot_; }
  QComboBox* mapSelector() const { return selector_; }
  // Cells of the map drawn now (rows × cols), 0 when the model gave none.
  int cellCount() const;
  bool profileShown() const;  // a one-wide grid drawn as hit rate per tile
  QString message() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;  // as many x ticks as fit again

 private:
  void fitTicks();
  void showMap(int index);
  void showFrame(bool visible);
  void showProfile(const report::HitRateMap& m);
  void tileTip(QMouseEvent* event, int row, int col);
  void onMouseMove(QMouseEvent* event);

  QComboBox* selector_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QCPGraph* profile_ = nullptr;
  QCPItemText* message_ = nullptr;
  std::vector<report::HitRateMap> maps_;
  QString cache_model_;
  std::int64_t blocks_ = 0;  // the prediction's tiles: past cache::kMaxMapTiles no maps are drawn
  int shown_ = -1;
};

}  // namespace tilesight::ui
