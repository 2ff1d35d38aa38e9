// Headless and screenshot runs: wait until the session's prediction (or its errors) reached
// the views, then write a PNG of the window. Used by `tilesight --screenshot FILE.png` and
// by the app when there is no display.
#pragma once

#include <QString>

class QWidget;

namespace tilesight::ui {

class PlanSession;

// Spins the event loop until the session is idle with a result, at most timeout_ms.
// Returns false on timeout.
bool wait_for_result(PlanSession& session, int timeout_ms);

// Grabs the window (shown offscreen if need be) into a PNG. "" on success, else why not.
QString write_snapshot(QWidget& window, const QString& path);

}  // namespace tilesight::ui
