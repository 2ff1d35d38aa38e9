// Help > one short page per view (docs/views/*.md), shown as rendered Markdown in a
// non-modal window.
#pragma once

#include <QString>

class QMenu;
class QWidget;

namespace tilesight::ui {

// Path of docs/views/<name>.md in the data folder, "" when not found.
QString help_page_path(const QString& name);

// Adds one entry per view page to `menu`; each opens its page beside `parent`.
void fill_help_menu(QMenu* menu, QWidget* parent);

}  // namespace tilesight::ui
