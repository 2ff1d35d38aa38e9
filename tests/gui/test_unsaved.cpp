// No lost work: closing the window or opening another plan with unsaved edits asks
// Save / Discard / Cancel (the answer injected, or the real dialog answered by a timer);
// and a plan file dropped on the window (a real QDragEnterEvent + QDropEvent) opens it.
#include <QDropEvent>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "gui_test_util.h"
#include "ui/file_commands.h"
#include "ui/main_window.h"

using namespace tilesight::ui;

class UnsavedTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;
  QTemporaryDir dir_;
  QStringList asked_;  // the actions the prompt was asked about
  QMessageBox::StandardButton answer_ = QMessageBox::Cancel;

  PlanSession& session() { return window_->session(); }
  QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }

  // A copy of the default example in the temporary folder, opened: File > Save writes there.
  void openCopy() {
    QFile::remove(path("plan.json"));
    QVERIFY(QFile::copy(test::example_path(), path("plan.json")));
    QFile(path("plan.json")).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    QVERIFY(window_->files().openPath(path("plan.json"), true).isEmpty());
  }
  void editStages(int stages) {
    auto plan = session().plan();
    plan["params"]["stages"] = stages;
    session().edit(plan, QStringLiteral("Set stages"));
    QVERIFY(session().modified());
  }
  static int stagesIn(const QString& file) {
    auto doc = load_plan_file(file);
    return doc ? (*doc)["params"]["stages"].get<int>() : -1;
  }
  // Sends what a drag of `file` from a file manager onto the window sends; true if the
  // window accepted the drop.
  bool dropFile(const QString& file) {
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(file)});
    const QPoint at = window_->rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &enter);
    if (!enter.isAccepted()) return false;
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &drop);
    return drop.isAccepted();
  }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void init() {
    asked_.clear();
    window_ = std::make_unique<MainWindow>(MainWindowOptions{.persist = false});
    window_->setUnsavedPrompt([this](const QString& action) {
      asked_ << action;
      return answer_;
    });
    window_->show();
    openCopy();
  }
  void cleanup() { window_.reset(); }

  void closingASavedPlanAsksNothing() {
    QVERIFY(window_->close());
    QVERIFY(asked_.isEmpty());
  }

  void cancelKeepsTheWindowAndTheEdits() {
    editStages(5);
    answer_ = QMessageBox::Cancel;
    QVERIFY(!window_->close());
    QCOMPARE(asked_, QStringList{QStringLiteral("closing TileSight")});
    QVERIFY(window_->isVisible());
    QVERIFY(session().modified());
    QCOMPARE(session().plan()["params"]["stages"].get<int>(), 5);
  }

  void discardClosesWithoutWriting() {
    const int on_disk = stagesIn(path("plan.json"));
    editStages(on_disk + 1);
    answer_ = QMessageBox::Discard;
    QVERIFY(window_->close());
    QCOMPARE(asked_.size(), 1);
    QCOMPARE(stagesIn(path("plan.json")), on_disk);
  }

  void saveWritesTheFileThenCloses() {
    editStages(6);
    answer_ = QMessageBox::Save;
    QVERIFY(window_->close());
    QCOMPARE(stagesIn(path("plan.json")), 6);
    QVERIFY(!session().modified());
  }

  void openingAnotherPlanAsksFirst() {
    editStages(7);
    const QString other = test::example_path("rmsnorm_h200.json");
    answer_ = QMessageBox::Cancel;
    const QString kept = window_->files().openPath(other, true);
    QVERIFY2(kept.contains(QLatin1String("not opened")), qPrintable(kept));
    QCOMPARE(asked_, QStringList{QStringLiteral("opening rmsnorm_h200.json")});
    QCOMPARE(session().plan()["params"]["stages"].get<int>(), 7);
    QVERIFY(session().path().endsWith(QLatin1String("plan.json")));

    answer_ = QMessageBox::Discard;
    QVERIFY(window_->files().openPath(other, true).isEmpty());
    QCOMPARE(session().plan()["kernel"].get<std::string>(), std::string("rmsnorm"));
    QVERIFY(!session().modified());
    QCOMPARE(asked_.size(), 2);
    // Nothing unsaved now: the next open asks nothing.
    QVERIFY(window_->files().openPath(path("plan.json"), true).isEmpty());
    QCOMPARE(asked_.size(), 2);
  }

  // A bad file replaces nothing, so there is nothing to ask about.
  void aBadFileAsksNothing() {
    editStages(5);
    QFile bad(path("bad.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"kernel\": ");
    bad.close();
    QVERIFY(!window_->files().openPath(path("bad.json"), true).isEmpty());
    QVERIFY(asked_.isEmpty());
    QCOMPARE(session().plan()["params"]["stages"].get<int>(), 5);
  }

  // The dialog a user sees: Save, Discard and Cancel, naming the file; Escape cancels.
  void theRealDialogOffersSaveDiscardCancel() {
    window_->setUnsavedPrompt({});
    editStages(5);
    QStringList buttons;
    QString text;
    QTimer::singleShot(0, this, [&] {
      auto* box = window_->findChild<QMessageBox*>(QStringLiteral("unsaved_dialog"));
      if (!box) return;
      text = box->text() + QLatin1Char(' ') + box->informativeText();
      for (QAbstractButton* b : box->buttons())
        buttons << QString::number(box->standardButton(b));
      box->reject();  // Escape
    });
    QVERIFY(!window_->close());
    QVERIFY2(text.contains(QLatin1String("plan.json")) && text.contains(QLatin1String("closing")),
             qPrintable(text));
    buttons.sort();
    QStringList expected{QString::number(QMessageBox::Save), QString::number(QMessageBox::Discard),
                         QString::number(QMessageBox::Cancel)};
    expected.sort();
    QCOMPARE(buttons, expected);
    QVERIFY(window_->isVisible());
    QVERIFY(session().modified());
  }

  void droppingAPlanFileOpensIt() {
    test::ResultWaiter wait(session());
    QVERIFY(dropFile(test::example_path("attention_prefill_h200.json")));
    QVERIFY(session().path().endsWith(QLatin1String("attention_prefill_h200.json")));
    QVERIFY(wait.waitReady());
    QCOMPARE(QString::fromStdString(session().prediction()->kernel), QStringLiteral("attention"));
  }

  void aDropRespectsUnsavedEditsAndIgnoresOtherFiles() {
    editStages(5);
    answer_ = QMessageBox::Cancel;
    QVERIFY(dropFile(test::example_path("rmsnorm_h200.json")));  // taken, then kept back
    QCOMPARE(asked_.size(), 1);
    QCOMPARE(session().plan()["params"]["stages"].get<int>(), 5);
    QFile text(path("notes.txt"));
    QVERIFY(text.open(QIODevice::WriteOnly));
    text.close();
    QVERIFY(!dropFile(path("notes.txt")));  // not a plan: the drag is refused
    QCOMPARE(asked_.size(), 1);
  }
};

QTEST_MAIN(UnsavedTest)
#include "test_unsaved.moc"
