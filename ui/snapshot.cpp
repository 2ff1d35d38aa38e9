#include "ui/snapshot.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QImageWriter>
#include <QPixmap>
#include <QThread>
#include <QWidget>

#include "ui/plan_session.h"

namespace tilesight::ui {

namespace {
constexpr int kSettleMs = 100;
}

bool wait_for_result(PlanSession& session, int timeout_ms) {
  QDeadlineTimer deadline(timeout_ms);
  auto done = [&] {
    return !session.busy() && (session.prediction() || !session.errors().empty());
  };
  while (!done()) {
    if (deadline.hasExpired()) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (!done()) QThread::msleep(2);
  }
  QCoreApplication::processEvents();  // let the views lay out and repaint
  return true;
}

QString write_snapshot(QWidget& window, const QString& path) {
  if (!window.isVisible()) window.show();
  // Views fit themselves to their laid-out size a turn of the event loop later (the plan
  // editor's DAG, its overview): a few turns, so that the picture is the settled window, not
  // the DAG of the previous size under an overview it no longer needs.
  QDeadlineTimer settle(kSettleMs);
  while (!settle.hasExpired()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    QThread::msleep(2);
  }
  const QPixmap pixmap = window.grab();
  if (pixmap.isNull()) return QStringLiteral("the window could not be drawn");
  QImageWriter writer(path, "png");
  if (!writer.write(pixmap.toImage())) return writer.errorString();
  return {};
}

}  // namespace tilesight::ui
