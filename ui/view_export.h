// Export of any view (a dock's widget, or the whole window) as PNG (QWidget::grab, at the
// screen's pixel ratio), SVG (QSvgGenerator: vector, text stays text) or PDF (QPdfWriter, one
// page sized to the view), picked by the file's suffix.
#pragma once

#include <QString>

class QWidget;

namespace tilesight::ui {

// "" on success, else why not (unknown suffix, cannot write).
QString export_view(QWidget& view, const QString& path, const QString& title = {});

// The suffixes export_view knows, for file dialogs: "PNG image (*.png);;SVG ...".
QString export_view_filter();

}  // namespace tilesight::ui
