#include "ui/plan_editor.h"

#include <QAction>
#include <QGraphicsView>
#include <QLabel>
#include <QMenu>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSplitter>
#include <QToolBar>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "tilesight/kernels/plan_input.h"
#include "tilesight/plan/tile_program.h"
#include "ui/action_properties.h"
#include "ui/dag_minimap.h"
#include "ui/dag_scene.h"
#include "ui/plan_edits.h"

namespace tilesight::ui {

PlanEditor::PlanEditor(QWidget* parent)
    : QWidget(parent),
      scene_(new DagScene(this)),
      view_(new QGraphicsView(scene_, this)),
      properties_(new ActionProperties(this)),
      note_(new QLabel(this)) {
  view_->setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  view_->setDragMode(QGraphicsView::ScrollHandDrag);
  view_->setBackgroundBrush(QColor(0xfa, 0xfa, 0xfa));
  view_->viewport()->installEventFilter(this);
  minimap_ = new DagMinimap(view_);
  note_->setObjectName(QStringLiteral("plan_note"));
  note_->setWordWrap(true);
  note_->setStyleSheet(QStringLiteral("color: #555; padding: 0 4px;"));
  auto* split = new QSplitter(Qt::Vertical, this);
  drawing_ = split;
  split->addWidget(view_);
  // The property form scrolls, so the dock can be short and leave the report its height.
  form_area_ = new QScrollArea(this);
  form_area_->setWidget(properties_);
  form_area_->setWidgetResizable(true);
  form_area_->setFrameShape(QFrame::NoFrame);
  form_area_->setMinimumHeight(properties_->minimumSizeHint().height());
  split->addWidget(form_area_);
  // The form keeps its height (two fields a row: about 150 px; one line with no action
  // selected) and the drawing takes the rest of the dock; the splitter's handle gives either
  // more.
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 0);
  split->setChildrenCollapsible(false);
  view_->setMinimumHeight(120);
  connect(split, &QSplitter::splitterMoved, this, &PlanEditor::fitView);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(makeToolBar());
  layout->addWidget(note_);
  layout->addWidget(split, 1);
  layout->addStretch(0);  // takes the room when the drawing is hidden: the note stays on top

  connect(scene_, &DagScene::actionSelected, this, &PlanEditor::onSelection);
  connect(properties_, &ActionProperties::fieldEdited, this, &PlanEditor::setField);
  connect(properties_, &ActionProperties::depToggled, this,
          [this](const QString& from, const QString& to, bool on) {
            if (on) return connectActions(from, to);
            apply(disconnect_actions(doc_, from.toStdString(), to.toStdString()),
                  tr("Disconnect %1 → %2").arg(from, to), to);
          });
}

QWidget* PlanEditor::makeToolBar() {
  auto* bar = new QToolBar(this);
  tool_bar_ = bar;
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  bar->setIconSize(QSize(16, 16));
  auto* menu = new QMenu(bar);
  for (auto op : plan::kAllOps) {
    const QString name = QString::fromUtf8(plan::op_name(op).data());
    menu->addAction(name, this, [this, name] { addTileAction(name); });
  }
  auto* add = bar->addAction(QIcon(QStringLiteral(":/icons/add_action.svg")), tr("Add"));
  add_ = add;
  add->setMenu(menu);
  add->setToolTip(tr("Add an action after the selected one"));
  if (auto* button = qobject_cast<QToolButton*>(bar->widgetForAction(add)))
    button->setPopupMode(QToolButton::InstantPopup);
  remove_ = bar->addAction(QIcon(QStringLiteral(":/icons/remove_action.svg")), tr("Remove"), this,
                           &PlanEditor::removeSelected);
  remove_->setToolTip(tr("Remove the selected action and the deps on it"));
  connect_ = bar->addAction(QIcon(QStringLiteral(":/icons/connect_actions.svg")), tr("Connect"));
  connect_->setCheckable(true);
  connect_->setToolTip(
      tr("Select an action, press Connect, then click the action that should wait for it"));
  connect(connect_, &QAction::toggled, this, [this](bool on) {
    connect_from_ = on ? selectedAction() : QString();
    if (on && connect_from_.isEmpty()) {
      connect_->setChecked(false);
      emit editRefused(tr("Select the action to connect from first"));
    }
  });
  overview_ = bar->addAction(QIcon(QStringLiteral(":/icons/dag_overview.svg")), tr("Overview"));
  overview_->setCheckable(true);
  overview_->setChecked(true);
  overview_->setToolTip(tr("Show an overview of the whole DAG in a corner of the drawing when "
                           "part of it is out of view"));
  connect(overview_, &QAction::toggled, minimap_, &DagMinimap::setWanted);
  QAction* fit = bar->addAction(QIcon(QStringLiteral(":/icons/fit_view.svg")), tr("Fit"), this,
                                &PlanEditor::resetZoom);
  fit_ = fit;
  fit->setToolTip(tr("Fit the DAG in view, undoing any zoom (Ctrl+0); Ctrl+wheel zooms"));
  fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  fit->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  constexpr double kStep = 1.25;
  auto* zoom_in = new QAction(tr("Zoom in"), this);
  zoom_in->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
  zoom_in->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(zoom_in, &QAction::triggered, this, [this] { zoomBy(kStep); });
  auto* zoom_out = new QAction(tr("Zoom out"), this);
  zoom_out->setShortcuts(QKeySequence::ZoomOut);
  zoom_out->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(zoom_out, &QAction::triggered, this, [this] { zoomBy(1 / kStep); });
  addAction(zoom_in);
  addAction(zoom_out);
  text_bar_width_ = bar->sizeHint().width();
  return bar;
}

// The buttons' words where the dock has room for them all (the default window), else their
// icons (the tooltips name them): in the 250 px dock of a 1280x800 window, Overview and Fit
// went into an overflow menu.
void PlanEditor::fitToolBar() {
  tool_bar_->setToolButtonStyle(width() >= text_bar_width_ ? Qt::ToolButtonTextOnly
                                                           : Qt::ToolButtonIconOnly);
}

void PlanEditor::setPlan(const nlohmann::json& doc) {
  if (doc == doc_) return;
  // Another plan (not an edit of this one) starts fitted again.
  if (!doc.is_object() || !doc_.is_object() || doc.value("kernel", std::string()) != doc_.value("kernel", std::string()))
    user_zoom_ = false;
  doc_ = doc;
  redraw();
  if (!user_zoom_) fitView();
}

void PlanEditor::setPrediction(const report::Prediction& prediction) {
  timeline_ = prediction.timeline;
  redraw();
}

void PlanEditor::redraw() {
  TileDag dag = tile_dag(doc_, timeline_);
  // A new prediction of the plan just drawn (every edit brings one): the same drawing, kept.
  if (drawn_ && same_dag(dag, *drawn_)) return;
  scene_->setDag(dag);
  const std::string kernel = doc_.is_object() && doc_.contains("params") ? doc_.value("kernel", std::string()) : "";
  const auto tile_templates = kernels::template_names();
  if (!dag.errors.empty() && !kernel.empty() &&
      std::find(tile_templates.begin(), tile_templates.end(), kernel) == tile_templates.end())
    // llm_decode, the collectives and the fused templates compose kernels and transfers.
    note_->setText(tr("<b>%1</b> spans GPUs or kernels: there is no single tile DAG to edit. "
                      "Its parameters are in the configuration panel; its transfers in the "
                      "network lanes.")
                       .arg(QString::fromStdString(kernel).toHtmlEscaped()));
  else if (!dag.errors.empty())
    note_->setText(tr("No DAG: %1").arg(QString::fromStdString(join(dag.errors, "; "))));
  else if (dag.lifted)
    note_->setText(tr("Lifted from the <b>%1</b> template: an edit here makes it a tile "
                      "program (undo brings the template back).")
                       .arg(QString::fromStdString(dag.kernel)));
  else
    note_->setText(tr("Tile program: %1 actions, %2 deps").arg(scene_->nodeCount()).arg(scene_->edgeCount()));
  showProperties(dag, scene_->selectedAction());
  remove_->setEnabled(!scene_->selectedAction().isEmpty());
  // No DAG (a collective, a decode step, a plan that does not parse): the note alone, not an
  // empty canvas over an empty form.
  drawing_->setVisible(dag.errors.empty());
  add_->setEnabled(dag.errors.empty());
  connect_->setEnabled(dag.errors.empty());
  fit_->setEnabled(dag.errors.empty());
  overview_->setEnabled(dag.errors.empty());
  drawn_ = std::move(dag);
}

bool PlanEditor::hasDag() const {
  return !drawing_->isHidden();
}

QStringList PlanEditor::loopNames() const {
  QStringList names;
  auto program = as_tile_program(doc_);
  if (!program || !program->contains("loops") || !(*program)["loops"].is_array()) return names;
  for (const auto& loop : (*program)["loops"])
    if (loop.is_object() && loop.contains("name") && loop["name"].is_string())
      names << QString::fromStdString(loop["name"].get<std::string>());
  return names;
}

// The form of the selected action; its height follows whether there is one (its fields, or
// the line that says to select one), the drawing keeping the rest.
void PlanEditor::showProperties(const TileDag& dag, const QString& name) {
  const bool had_action = !properties_->action().isEmpty();
  properties_->showAction(dag, name, loopNames());
  if (had_action != !properties_->action().isEmpty()) sizeForm();
}

// The form as tall as its content, at most half the splitter, the drawing the rest (the
// stretch factors keep the form's height through resizes; the handle moves it). A drawing
// that grew or shrank is fitted again, and keeps the selected action in view.
void PlanEditor::sizeForm() {
  const int total = drawing_->height();
  if (total <= 0 || drawing_->isHidden()) return;
  const int form = std::min(properties_->sizeHint().height(), total / 2);
  drawing_->setSizes({total - form, form});
  split_sized_ = true;
  QTimer::singleShot(0, this, [this] {
    fitView();
    if (QGraphicsItem* item = scene_->nodeItem(selectedAction()))
      view_->ensureVisible(item, 20, 20);
  });
}

void PlanEditor::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitToolBar();
  // Laid out the first time: the form its height, the drawing the rest.
  if (!split_sized_ && drawing_->height() > 0) sizeForm();
  QTimer::singleShot(0, this, &PlanEditor::fitView);  // after the splitter laid out the view
}

void PlanEditor::resetZoom() {
  user_zoom_ = false;
  fitView();
}

void PlanEditor::zoomBy(double factor, const QPoint& anchor) {
  const double scale = std::clamp(viewScale() * factor, kMinZoom, kMaxZoom);
  if (scale == viewScale()) return;
  const QPoint at = anchor.isNull() ? view_->viewport()->rect().center() : anchor;
  const QPointF fixed = view_->mapToScene(at);  // the scene point under the mouse stays there
  view_->setTransform(QTransform::fromScale(scale, scale));
  const QPointF moved = view_->mapToScene(at);
  const QPointF centre = view_->mapToScene(view_->viewport()->rect().center());
  view_->centerOn(centre + fixed - moved);
  user_zoom_ = true;
  minimap_->refresh();
}

bool PlanEditor::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_->viewport() && event->type() == QEvent::Wheel) {
    auto* wheel = static_cast<QWheelEvent*>(event);
    if (wheel->modifiers() & Qt::ControlModifier) {
      const double notches = wheel->angleDelta().y() / 120.0;
      if (notches != 0) zoomBy(std::pow(1.15, notches), wheel->position().toPoint());
      return true;  // not a scroll
    }
  }
  return QWidget::eventFilter(watched, event);
}

void PlanEditor::fitView() {
  if (scene_->items().isEmpty() || user_zoom_) return;
  const QRectF r = scene_->sceneRect();
  const QSizeF port = view_->maximumViewportSize();  // the viewport without scroll bars
  const double fit = std::min(port.width() / r.width(), port.height() / r.height());
  // Never blow a small DAG up past its natural size (oversized text), nor shrink a large
  // one until its labels cannot be read.
  const double scale = std::clamp(fit, kMinScale, 1.0);
  // Reset first: the same scale again would leave the scroll bars the last DAG's ranges.
  view_->resetTransform();
  view_->setTransform(QTransform::fromScale(scale, scale));
  if (scale <= fit) {
    view_->centerOn(r.center());
  } else {
    // Too large: its top-left, where the first actions are; the rest scrolls. A DAG narrower
    // than the view stays centred across it.
    const QSizeF shown = QSizeF(view_->viewport()->size()) / scale;
    const double x = r.width() <= shown.width() ? r.center().x() : r.left() + shown.width() / 2;
    view_->centerOn(x, r.top() + shown.height() / 2);
  }
  minimap_->refresh();
}

double PlanEditor::viewScale() const {
  return view_->transform().m11();
}

QString PlanEditor::selectedAction() const {
  return scene_->selectedAction();
}

void PlanEditor::selectAction(const QString& name) {
  scene_->selectAction(name);
  if (QGraphicsItem* item = scene_->nodeItem(name)) view_->ensureVisible(item, 20, 20);
}

void PlanEditor::onSelection(const QString& name) {
  if (connect_->isChecked() && !connect_from_.isEmpty() && !name.isEmpty() &&
      name != connect_from_) {
    const QString from = connect_from_;
    connect_->setChecked(false);
    connectActions(from, name);
    return;
  }
  showProperties(scene_->dag(), name);
  remove_->setEnabled(!name.isEmpty());
  emit actionSelected(name);
}

void PlanEditor::apply(const Result<nlohmann::json>& edited, const QString& label,
                       const QString& select) {
  if (!edited) {
    emit editRefused(QString::fromStdString(edited.error_text("; ")));
    drawn_.reset();  // the same DAG, drawn again: the panel shows the document's values again
    redraw();
    return;
  }
  doc_ = *edited;
  redraw();
  if (!select.isEmpty()) selectAction(select);
  emit planEdited(doc_, label);
}

void PlanEditor::addTileAction(const QString& op) {
  const QString after = selectedAction();
  auto edited = add_action(doc_, op.toStdString(), after.toStdString());
  const QString name = edited ? QString::fromStdString(last_action_name(*edited)) : QString();
  apply(edited, tr("Add action %1").arg(name), name);
}

void PlanEditor::removeSelected() {
  const QString name = selectedAction();
  if (name.isEmpty()) return;
  apply(remove_action(doc_, name.toStdString()), tr("Remove action %1").arg(name));
}

void PlanEditor::connectActions(const QString& from, const QString& to) {
  apply(connect_actions(doc_, from.toStdString(), to.toStdString()),
        tr("Connect %1 → %2").arg(from, to), to);
}

void PlanEditor::setField(const QString& action, const QString& key, const nlohmann::json& value) {
  if (action.isEmpty()) return;
  const QString select = key == QLatin1String("name") ? QString::fromStdString(value.get<std::string>())
                                                      : action;
  apply(set_action_field(doc_, action.toStdString(), key.toStdString(), value),
        tr("Set %1 of %2").arg(key, action), select);
}

}  // namespace tilesight::ui
