#include "ui/config_panel.h"

#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>
#include <climits>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"
#include "ui/format.h"
#include "ui/json_tree.h"
#include "ui/legal_values.h"
#include "ui/param_slider.h"
#include "ui/param_checks.h"
#include "ui/profile_kinds.h"
#include "ui/rich_text_block.h"
#include "ui/plan_document.h"
#include "ui/template_form.h"
#include "ui/template_params.h"

namespace tilesight::ui {

// One integer parameter of the gemm template: the range parse_gemm_params accepts, the step
// the arrows take, and the value the template assumes when the field is absent.
struct IntParam {
  const char* key;
  int min, max, step, fallback;
  const char* tip;
};

namespace {

constexpr IntParam kProblem[] = {{"M", 1, INT_MAX, 256, 4096, "rows of A and C"},
                                 {"N", 1, INT_MAX, 256, 4096, "columns of B and C"},
                                 {"K", 1, INT_MAX, 256, 4096, "the reduction dimension"}};
constexpr IntParam kTile[] = {
    {"block_m", 1, 1024, 16, 128, "rows of the C tile one block computes (BLOCK_M)"},
    {"block_n", 1, 1024, 16, 128, "columns of the C tile one block computes (BLOCK_N)"},
    {"block_k", 1, 1024, 16, 64, "K step of one pipeline iteration (BLOCK_K)"}};
constexpr IntParam kSchedule[] = {
    {"group_m", 1, 65536, 1, 1, "grouped launch order (Triton's GROUP_M); 1 = row-major"},
    {"stages", 1, 16, 1, 3, "software-pipeline stages (num_stages)"},
    {"warps", 1, 64, 1, 4, "warps per block (num_warps), producer warps included"}};

const QStringList kDtypes = {"bf16", "fp16", "fp8", "tf32", "fp32"};
const QStringList kLayouts = {"nn", "nt", "tn", "tt"};

}  // namespace

ConfigPanel::ConfigPanel(QWidget* parent)
    : QWidget(parent),
      hardware_(new QComboBox(this)),
      pages_(new QStackedWidget(this)),
      kind_(new QLabel(this)) {
  for (const auto& name : hw::list_profiles()) hardware_->addItem(QString::fromStdString(name));
  hardware_->setToolTip(tr("Hardware profile from hw_profiles/"));
  auto* top = new QFormLayout;
  top->addRow(tr("Hardware"), hardware_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  // Wrapped: "ulysses_attention template: edit a value…" on one line made the dock 400 px
  // wide and a 1280x800 window 1314 px.
  kind_->setWordWrap(true);
  layout->addWidget(kind_);
  layout->addWidget(pages_, 1);
  checks_ = new QLabel(this);
  checks_->setObjectName(QStringLiteral("param_checks"));
  checks_->setWordWrap(true);
  checks_->setTextFormat(Qt::RichText);
  checks_->hide();
  layout->addWidget(checks_);
  pages_->addWidget(makeGemmForm());
  pages_->addWidget(makeProgramPage());
  form_ = new TemplateForm(this);
  auto* scroll = new QScrollArea(this);  // llm_decode's and ag_gemm's forms are long
  form_area_ = scroll;
  scroll->setWidget(form_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  form_->installEventFilter(this);  // its minimum width is the dock's (eventFilter)
  pages_->addWidget(scroll);
  connect(form_, &TemplateForm::paramEdited, this,
          [this](const QString& key, const nlohmann::json& value, bool merge) { setParam(key, value, merge); });
  connect(hardware_, &QComboBox::currentTextChanged, this, &ConfigPanel::setHardware);
}

QWidget* ConfigPanel::makeGemmForm() {
  auto* page = new QWidget(this);
  auto* column = new QVBoxLayout(page);
  column->setContentsMargins(0, 0, 0, 0);
  auto group = [&](const QString& title, const auto& params) {
    auto* box = new QGroupBox(title, page);
    auto* form = new QFormLayout(box);
    for (const auto& p : params) addSpin(form, p);
    column->addWidget(box);
    return form;
  };
  group(tr("Problem"), kProblem);
  group(tr("Tile"), kTile);
  auto* types = group(tr("Schedule and types"), kSchedule);
  for (const auto& [key, options, tip] :
       {std::tuple{QStringLiteral("dtype"), kDtypes, tr("element type; fp8 is e4m3 in, bf16 out")},
        std::tuple{QStringLiteral("layout"), kLayouts,
                   tr("A then B: n = row-major as torch.matmul, t = transposed")}}) {
    auto* combo = new QComboBox(page);
    combo->addItems(options);
    combo->setToolTip(tip);
    types->addRow(key, combo);
    combos_.insert(key, combo);
    connect(combo, &QComboBox::currentTextChanged, this,
            [this, key = key](const QString& v) { setParam(key, v.toStdString()); });
  }
  derived_ = new RichTextBlock(page);  // new text every edit: laid out once, not per size query
  QPalette grey = derived_->palette();
  grey.setColor(QPalette::WindowText, QColor(0x55, 0x55, 0x55));
  derived_->setPalette(grey);
  column->addWidget(derived_);
  column->addStretch(1);
  return page;
}

QWidget* ConfigPanel::makeProgramPage() {
  tree_ = new QTreeView(this);
  tree_model_ = new QStandardItemModel(this);
  tree_->setModel(tree_model_);
  tree_->setAlternatingRowColors(true);
  tree_->setUniformRowHeights(true);
  return tree_;
}

void ConfigPanel::addSpin(QFormLayout* form, const IntParam& param) {
  auto* spin = new QSpinBox(form->parentWidget());
  spin->setRange(param.min, param.max);
  spin->setSingleStep(param.step);
  spin->setValue(param.fallback);
  spin->setGroupSeparatorShown(param.max > 100000);
  spin->setToolTip(tr("%1 (%2 to %3)").arg(tr(param.tip)).arg(param.min).arg(param.max));
  spin->setAccelerated(true);
  const QString key = QString::fromLatin1(param.key);
  // The spin box takes any value the parser accepts; the slider beside it the legal ones.
  auto* row = new QWidget(form->parentWidget());
  auto* line = new QHBoxLayout(row);
  line->setContentsMargins(0, 0, 0, 0);
  auto* slider = new ParamSlider(spin, row);
  slider->setObjectName(key + QStringLiteral("_slider"));
  line->addWidget(spin, 2);
  line->addWidget(slider, 3);
  form->addRow(key, row);
  spins_.insert(key, spin);
  sliders_.insert(key, slider);
  connect(spin, qOverload<int>(&QSpinBox::valueChanged), this,
          [this, key](int v) { setParam(key, v); });
  // A drag is one committed edit: its own undo step, never merged with the next.
  connect(slider, &ParamSlider::committed, this, [this, key](int v) { setParam(key, v, false); });
}

// The form scrolls down, not sideways: the dock is as wide as its widest row needs (a
// 250 px dock cut llm_decode's "experts_per_token [auto (28672)]" at the spin boxes).
bool ConfigPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == form_ && event->type() == QEvent::LayoutRequest)
    form_area_->setMinimumWidth(form_->minimumSizeHint().width() +
                                form_area_->verticalScrollBar()->sizeHint().width());
  return QWidget::eventFilter(watched, event);
}

// The sliders' legal values follow the tile and the hardware (the stages that fit).
void ConfigPanel::showSliderValues() {
  const auto params = doc_.value("params", nlohmann::json::object());
  const std::string hardware = plan_hardware(doc_);
  for (auto it = sliders_.cbegin(); it != sliders_.cend(); ++it)
    it.value()->setValues(gemm_slider_values(it.key().toStdString(), params, hardware));
}

bool ConfigPanel::editable() const {
  if (plan_kind(doc_) == PlanKind::kGemmTemplate) return true;
  return plan_kind(doc_) == PlanKind::kOtherTemplate &&
         TemplateForm::hasForm(doc_.value("kernel", std::string()));
}

void ConfigPanel::setPlan(const nlohmann::json& doc) {
  const QSignalBlocker block_hw(hardware_);
  updating_ = true;
  doc_ = doc;
  const QString hw = QString::fromStdString(plan_hardware(doc_));
  if (!hw.isEmpty() && hardware_->findText(hw) < 0) hardware_->addItem(hw);  // a path
  hardware_->setCurrentIndex(hw.isEmpty() ? -1 : hardware_->findText(hw));
  showFittingProfiles();
  const std::string kernel = doc_.is_object() ? doc_.value("kernel", std::string()) : std::string();
  if (plan_kind(doc_) == PlanKind::kOtherTemplate && TemplateForm::hasForm(kernel)) {
    kind_->setText(tr("<b>%1</b> template: edit a value and the views update")
                       .arg(QString::fromStdString(kernel)));
    form_->showParams(kernel, doc_.value("params", nlohmann::json::object()), plan_hardware(doc_));
    pages_->setCurrentIndex(2);
  } else if (plan_kind(doc_) == PlanKind::kGemmTemplate) {
    kind_->setText(tr("<b>gemm</b> template: edit a value and the views update"));
    showGemmParams();
    pages_->setCurrentIndex(0);
  } else {
    const bool program = plan_kind(doc_) == PlanKind::kTileProgram;
    kind_->setText(program
                       ? tr("<b>Tile program</b> (read-only here; edit the JSON file)")
                       : tr("<b>%1</b> template (read-only: no form for it yet)")
                             .arg(QString::fromStdString(doc_.value("kernel", std::string("?")))));
    fill_json_model(*tree_model_, doc_);
    show_json_tree(*tree_);
    pages_->setCurrentIndex(1);
  }
  updating_ = false;
  showChecks();
}

void ConfigPanel::showEngineChoices(const report::Prediction& prediction, const nlohmann::json& plan) {
  if (!editable() || plan_kind(doc_) != PlanKind::kOtherTemplate) return;
  const std::string kernel = doc_.value("kernel", std::string());
  if (!plan.is_object() || plan.value("kernel", std::string()) != kernel) return;
  const auto params = plan.value("params", nlohmann::json::object());
  for (const auto& [key, value] : engine_choices(prediction))
    form_->noteEngineChoice(QString::fromStdString(key), params, plan_hardware(plan), value);
  form_->showParams(kernel, doc_.value("params", nlohmann::json::object()), plan_hardware(doc_));
}

// Only the profiles that can run the plan are offered: systems for the distributed
// templates, single GPUs for the rest (the others stay listed, greyed, with the reason).
void ConfigPanel::showFittingProfiles() {
  auto* model = qobject_cast<QStandardItemModel*>(hardware_->model());
  if (!model) return;
  for (int i = 0; i < hardware_->count(); ++i) {
    const std::string name = hardware_->itemText(i).toStdString();
    const bool fits = profile_fits(doc_, name);
    QStandardItem* item = model->item(i);
    item->setEnabled(fits);
    item->setToolTip(fits ? QString()
                     : profile_kind(name) == ProfileKind::kSystem
                         ? tr("a system of GPUs: this plan runs on one GPU")
                         : tr("one GPU: this plan needs a system of GPUs (collectives, ag_gemm, gemm_rs, "
                              "ulysses_attention)"));
  }
}

void ConfigPanel::showGemmParams() {
  const nlohmann::json params = doc_.contains("params") && doc_["params"].is_object()
                                    ? doc_["params"]
                                    : nlohmann::json::object();
  for (const auto* list : {&kProblem, &kTile, &kSchedule})
    for (const auto& p : *list) {
      QSpinBox* spin = spins_.value(QString::fromLatin1(p.key));
      const auto it = params.find(p.key);
      const bool integer = it != params.end() && it->is_number_integer();
      const QSignalBlocker block(spin);
      spin->setValue(integer ? static_cast<int>(
                                   std::clamp<std::int64_t>(it->get<std::int64_t>(), p.min, p.max))
                             : p.fallback);
    }
  for (auto [key, fallback] :
       {std::pair{QStringLiteral("dtype"), "bf16"}, std::pair{QStringLiteral("layout"), "nn"}}) {
    const auto it = params.find(key.toStdString());
    const QString value = it != params.end() && it->is_string()
                              ? QString::fromStdString(it->get<std::string>())
                              : QString::fromLatin1(fallback);
    const QSignalBlocker block(combos_[key]);
    combos_[key]->setCurrentIndex(combos_[key]->findText(value));
  }
  showSliderValues();
  showDerived();
}

// What the compiler would allocate for this tile config, the limits occupancy depends on.
void ConfigPanel::showDerived() {
  auto params = kernels::parse_gemm_params(doc_.value("params", nlohmann::json::object()));
  if (!params) return derived_->clear();  // the checks under the form say why
  const auto& p = *params;
  const auto tiles_m = (p.M + p.block_m - 1) / p.block_m,
             tiles_n = (p.N + p.block_n - 1) / p.block_n;
  derived_->setHtml(
      tr("grid %1 × %2 = %3 blocks<br>%4 shared memory and %5 registers per thread per block")
          .arg(tiles_m)
          .arg(tiles_n)
          .arg(format_count(static_cast<double>(tiles_m * tiles_n * p.batch)))
          .arg(QStringLiteral("%1 KiB").arg(
              static_cast<double>(kernels::gemm_smem_bytes(p)) / 1024.0, 0, 'g', 4))
          .arg(kernels::gemm_registers_per_thread(p)));
}

void ConfigPanel::setParam(const QString& key, const nlohmann::json& value, bool merge) {
  if (updating_ || !editable()) return;
  if (!doc_.contains("params") || !doc_["params"].is_object())
    doc_["params"] = nlohmann::json::object();
  set_param(doc_["params"], key.toStdString(), value);  // null ("auto"): the default
  if (plan_kind(doc_) == PlanKind::kGemmTemplate) {
    showSliderValues();
    showDerived();
  }
  // The "auto (value)" texts and the legal choices follow the other fields.
  else form_->showParams(doc_.value("kernel", std::string()), doc_["params"], plan_hardware(doc_));
  showChecks();
  emit planEdited(doc_, tr("Set %1").arg(key), merge);
}

void ConfigPanel::setHardware(const QString& name) {
  if (updating_ || name.isEmpty() || !doc_.is_object()) return;
  doc_["hardware"] = name.toStdString();
  if (plan_kind(doc_) == PlanKind::kGemmTemplate) showSliderValues();  // warps, stages
  if (editable() && plan_kind(doc_) == PlanKind::kOtherTemplate)  // a system bounds devices
    form_->showParams(doc_.value("kernel", std::string()), doc_.value("params", nlohmann::json::object()),
                      plan_hardware(doc_));
  showChecks();
  emit planEdited(doc_, tr("Hardware %1").arg(name));
}

}  // namespace tilesight::ui

namespace tilesight::ui {

namespace {
const char* const kProblemProperty = "paramProblem";
const char* const kTipProperty = "paramTip";  // the editor's own tooltip, under the problem
}  // namespace

QWidget* ConfigPanel::fieldEditor(const QString& key) const {
  if (plan_kind(doc_) == PlanKind::kGemmTemplate) {
    if (QWidget* spin = spins_.value(key)) return spin;
    return combos_.value(key);
  }
  return editable() ? form_->editor(key) : nullptr;
}

// Errors and warnings of the values as they are now, under the form; the fields they name
// are tinted and their tooltips lead with the problem. Nothing is undone or refused.
void ConfigPanel::showChecks() {
  for (QWidget* editor : std::as_const(marked_)) {
    editor->setStyleSheet({});
    editor->setToolTip(editor->property(kTipProperty).toString());
    editor->setProperty(kProblemProperty, QVariant());
  }
  marked_.clear();
  const auto problems = editable() ? check_params(doc_) : std::vector<ParamProblem>{};
  QStringList lines, plain;
  for (const auto& problem : problems) {
    const QString color = problem.error ? QStringLiteral("#b00020") : QStringLiteral("#9a6700");
    const QString fields = problem.fields.join(QStringLiteral(", "));
    lines << QStringLiteral("<div style='color:%1'>%2 %3%4</div>")
                 .arg(color, problem.error ? QStringLiteral("✖") : QStringLiteral("⚠"),
                      fields.isEmpty() ? QString() : QStringLiteral("<b>%1</b>: ").arg(fields.toHtmlEscaped()),
                      problem.message.toHtmlEscaped());
    plain << (problem.fields.isEmpty() ? problem.message : fields + QStringLiteral(": ") + problem.message);
    for (const QString& key : problem.fields) {
      QWidget* editor = fieldEditor(key);
      if (!editor) continue;
      const bool already = marked_.contains(editor);
      if (!already) {
        editor->setProperty(kTipProperty, editor->toolTip());
        marked_ << editor;
      }
      if (!already || problem.error) {
        editor->setProperty(kProblemProperty, problem.error ? "error" : "warning");
        editor->setStyleSheet(problem.error ? QStringLiteral("background-color: #fde8ea;")
                                            : QStringLiteral("background-color: #fff4d6;"));
      }
      editor->setToolTip(problem.message + QStringLiteral("\n\n") + editor->property(kTipProperty).toString());
    }
  }
  problem_text_ = plain.join(QLatin1Char('\n'));
  checks_->setText(lines.join(QString()));
  checks_->setVisible(!lines.isEmpty());
}

QString ConfigPanel::problemText() const {
  return problem_text_;
}

QString ConfigPanel::fieldProblem(const QString& key) const {
  const QWidget* editor = fieldEditor(key);
  return editor ? editor->property(kProblemProperty).toString() : QString();
}

}  // namespace tilesight::ui
