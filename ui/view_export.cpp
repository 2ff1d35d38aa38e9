#include "ui/view_export.h"

#include <QFileInfo>
#include <QImageWriter>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

namespace tilesight::ui {

namespace {

QString export_svg(QWidget& view, const QString& path, const QString& title) {
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(view.size());
  svg.setViewBox(view.rect());
  svg.setTitle(title);
  svg.setDescription(QStringLiteral("TileSight view"));
  QPainter painter;
  if (!painter.begin(&svg)) return QStringLiteral("cannot write %1").arg(path);
  view.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
  painter.end();
  return QFileInfo(path).size() > 0 ? QString() : QStringLiteral("nothing was written");
}

// One page the size of the view at 96 dpi, so that the drawing keeps its proportions.
QString export_pdf(QWidget& view, const QString& path, const QString& title) {
  QPdfWriter pdf(path);
  pdf.setTitle(title);
  pdf.setCreator(QStringLiteral("TileSight"));
  pdf.setResolution(96);
  pdf.setPageSize(QPageSize(QSizeF(view.width(), view.height()), QPageSize::Point));
  pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
  QPainter painter;
  if (!painter.begin(&pdf)) return QStringLiteral("cannot write %1").arg(path);
  const double scale = std::min(painter.viewport().width() / double(view.width()),
                                painter.viewport().height() / double(view.height()));
  painter.scale(scale, scale);
  view.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
  painter.end();
  return QFileInfo(path).size() > 0 ? QString() : QStringLiteral("nothing was written");
}

}  // namespace

QString export_view(QWidget& view, const QString& path, const QString& title) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (view.width() <= 0 || view.height() <= 0) return QStringLiteral("the view is not shown");
  if (suffix == QLatin1String("svg")) return export_svg(view, path, title);
  if (suffix == QLatin1String("pdf")) return export_pdf(view, path, title);
  if (suffix == QLatin1String("png")) {
    QImageWriter writer(path, "png");
    return writer.write(view.grab().toImage()) ? QString() : writer.errorString();
  }
  return QStringLiteral("unknown format \"%1\": use .png, .svg or .pdf").arg(suffix);
}

QString export_view_filter() {
  return QObject::tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)");
}

}  // namespace tilesight::ui
