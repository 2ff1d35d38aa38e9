// One look for every plot: fonts, axis colours, the phase and action palettes, and the
// perceptually uniform colour gradient of the heatmap. Colours start with the Okabe–Ito set,
// which stays distinguishable under the common colour-vision deficiencies.
#pragma once

#include <QColor>
#include <QString>

#include "tilesight/hw/resource.h"

class QCustomPlot;
class QCPColorGradient;
class QCPItemText;

namespace tilesight::ui {

enum class Phase { kPrologue, kSteady, kEpilogue };

QColor phase_color(Phase phase);  // solid: envelope bars
QColor phase_shade(Phase phase);  // translucent: timeline background
QColor action_color(int index);   // the index-th action of a plan, cycling
QColor pipeline_color(Resource resource);  // plan editor nodes: the action's dominant pipeline
QColor text_color();
QColor muted_text_color();

// Matplotlib's viridis as QCustomPlot stops: dark blue (0) -> yellow (1).
QCPColorGradient viridis_gradient();

// Axes, grid, fonts and background shared by all plots.
void apply_plot_style(QCustomPlot& plot);

// A centred grey message inside the axis rect ("no cross-device traffic", ...), hidden until
// set_plot_message shows it.
QCPItemText* add_plot_message(QCustomPlot& plot);
void set_plot_message(QCPItemText* item, const QString& text);

}  // namespace tilesight::ui
