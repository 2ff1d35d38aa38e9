#include "ui/help_pages.h"

#include <QDialog>
#include <QFile>
#include <QMenu>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "tilesight/util/data_dir.h"

namespace tilesight::ui {

namespace {

struct Page {
  const char* name;
  const char* title;
};

constexpr Page kPages[] = {{"plan-editor", "Plan editor"},   {"configuration", "Configuration"},
                           {"timeline", "Timeline"},         {"report", "Report"},
                           {"envelope", "Envelope"},         {"cache-heatmap", "Cache heatmap"},
                           {"network", "Network lanes"},     {"what-if", "What-if topology"},
                           {"validation", "Validation corpus"}};

void show_page(const QString& name, const QString& title, QWidget* parent) {
  QFile file(help_page_path(name));
  const QString text = file.open(QIODevice::ReadOnly)
                           ? QString::fromUtf8(file.readAll())
                           : QObject::tr("# %1\n\nThe help page docs/views/%2.md was not found; "
                                         "set TILESIGHT_DATA to the TileSight folder.")
                                 .arg(title, name);
  auto* dialog = new QDialog(parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(QObject::tr("TileSight help: %1").arg(title));
  auto* browser = new QTextBrowser(dialog);
  browser->setMarkdown(text);
  browser->setOpenExternalLinks(true);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(browser);
  dialog->resize(560, 420);
  dialog->show();
}

}  // namespace

QString help_page_path(const QString& name) {
  const auto dir = data_dir();
  if (!dir) return {};
  const auto path = *dir / "docs" / "views" / (name.toStdString() + ".md");
  return std::filesystem::exists(path) ? QString::fromStdString(path.string()) : QString();
}

void fill_help_menu(QMenu* menu, QWidget* parent) {
  for (const auto& page : kPages) {
    const QString name = QString::fromLatin1(page.name), title = QObject::tr(page.title);
    menu->addAction(title, parent, [name, title, parent] { show_page(name, title, parent); });
  }
}

}  // namespace tilesight::ui
