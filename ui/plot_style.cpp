#include "ui/plot_style.h"

#include <qcustomplot.h>

#include <array>

namespace tilesight::ui {

QColor phase_color(Phase phase) {
  switch (phase) {
    case Phase::kPrologue:
      return QColor(0x56, 0xb4, 0xe9);  // sky blue
    case Phase::kSteady:
      return QColor(0x00, 0x72, 0xb2);  // blue
    case Phase::kEpilogue:
      return QColor(0xe6, 0x9f, 0x00);  // orange
  }
  return Qt::gray;
}

QColor phase_shade(Phase phase) {
  switch (phase) {
    case Phase::kPrologue:
      return QColor(0x56, 0xb4, 0xe9, 36);
    case Phase::kSteady:
      return QColor(0x80, 0x80, 0x80, 22);
    case Phase::kEpilogue:
      return QColor(0xe6, 0x9f, 0x00, 40);
  }
  return Qt::transparent;
}

QColor action_color(int index) {
  // Okabe–Ito without black, then Paul Tol's muted set: twelve colours a reader can tell apart.
  static const std::array<QColor, 12> palette = {
      QColor("#0072b2"), QColor("#e69f00"), QColor("#009e73"), QColor("#cc79a7"),
      QColor("#56b4e9"), QColor("#d55e00"), QColor("#f0e442"), QColor("#332288"),
      QColor("#882255"), QColor("#44aa99"), QColor("#999933"), QColor("#aa4499")};
  return palette[static_cast<std::size_t>(index) % palette.size()];
}

QColor pipeline_color(Resource resource) {
  // Compute warm, memory cool, in the lanes' order: TC, CUDA, SFU, TMEM, SMEM, L1.5, L2,
  // DRAM, Net (Okabe–Ito hues, the light ones darkened enough for white text).
  static const std::array<QColor, kResourceCount> palette = {
      QColor("#d55e00"), QColor("#e69f00"), QColor("#cc79a7"), QColor("#b8a200"),
      QColor("#009e73"), QColor("#44aa99"), QColor("#56b4e9"), QColor("#0072b2"),
      QColor("#666666")};
  return palette[index(resource)];
}

QColor text_color() {
  return QColor(0x30, 0x30, 0x30);
}
QColor muted_text_color() {
  return QColor(0x80, 0x80, 0x80);
}

QCPColorGradient viridis_gradient() {
  static const std::array<const char*, 11> stops = {"#440154", "#482475", "#414487", "#355f8d",
                                                    "#2a788e", "#21918c", "#22a884", "#44bf70",
                                                    "#7ad151", "#bddf26", "#fde725"};
  QCPColorGradient g;
  g.clearColorStops();
  for (std::size_t i = 0; i < stops.size(); ++i)
    g.setColorStopAt(static_cast<double>(i) / static_cast<double>(stops.size() - 1),
                     QColor(stops[i]));
  g.setColorInterpolation(QCPColorGradient::ciRGB);
  return g;
}

namespace {

void style_axis(QCPAxis* axis) {
  const QPen axis_pen(QColor(0x90, 0x90, 0x90));
  axis->setBasePen(axis_pen);
  axis->setTickPen(axis_pen);
  axis->setSubTickPen(axis_pen);
  axis->setTickLabelColor(text_color());
  axis->setLabelColor(text_color());
  axis->grid()->setPen(QPen(QColor(0xe4, 0xe4, 0xe4), 0, Qt::SolidLine));
  axis->grid()->setSubGridVisible(false);
}

}  // namespace

void apply_plot_style(QCustomPlot& plot) {
  plot.setBackground(QBrush(Qt::white));
  plot.setAntialiasedElements(QCP::aeAll);
  plot.setNotAntialiasedElements(QCP::aeAxes | QCP::aeGrid);
  for (QCPAxis* axis : plot.axisRect()->axes()) style_axis(axis);
  plot.legend->setBorderPen(QPen(QColor(0xd0, 0xd0, 0xd0)));
  plot.legend->setBrush(QBrush(QColor(255, 255, 255, 230)));
  plot.legend->setTextColor(text_color());
  plot.setMinimumSize(200, 140);
  // replot() draws into the plot's buffer and asks for a repaint with the next frame, not a
  // repaint() at once: QCustomPlot's default would paint (and flush) the whole window's dirty
  // region inside each view's setPrediction, once per plot, before the report's new layout.
  plot.setPlottingHint(QCP::phImmediateRefresh, false);
}

QCPItemText* add_plot_message(QCustomPlot& plot) {
  auto* item = new QCPItemText(&plot);
  item->position->setType(QCPItemPosition::ptAxisRectRatio);
  item->position->setCoords(0.5, 0.5);
  item->setPositionAlignment(Qt::AlignCenter);
  item->setTextAlignment(Qt::AlignCenter);
  item->setColor(muted_text_color());
  QFont font = plot.font();
  font.setPointSizeF(font.pointSizeF() * 1.1);
  item->setFont(font);
  item->setClipToAxisRect(false);
  item->setVisible(false);
  return item;
}

void set_plot_message(QCPItemText* item, const QString& text) {
  item->setText(text);
  item->setVisible(!text.isEmpty());
}

}  // namespace tilesight::ui
