#include "ui/template_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>

#include "tilesight/net/system_profile.h"
#include "ui/bytes_spin_box.h"
#include "ui/legal_values.h"
#include "ui/param_slider.h"
#include "ui/template_params.h"

namespace tilesight::ui {

namespace {

constexpr int kSplitAuto = 0;  // the split_kv box's "auto" position

int clamp_int(std::int64_t v) {
  return static_cast<int>(std::clamp<std::int64_t>(v, INT_MIN, INT_MAX));
}

QString auto_text(const QString& resolved) {
  return resolved.isEmpty() ? QObject::tr("auto") : QObject::tr("auto (%1)").arg(resolved);
}

}  // namespace

TemplateForm::TemplateForm(QWidget* parent) : QWidget(parent), column_(new QVBoxLayout(this)) {
  column_->setContentsMargins(0, 0, 0, 0);
}

bool TemplateForm::hasForm(const std::string& kernel) {
  return !template_params(kernel).empty();
}

QWidget* TemplateForm::makeEditor(const ParamSpec& s) {
  const QString key = QString::fromLatin1(s.key);
  switch (s.kind) {
    case ParamKind::kInt:
    case ParamKind::kSplit: {
      auto* spin = new QSpinBox(this);
      const bool split = s.kind == ParamKind::kSplit;
      const int low = split ? kSplitAuto : clamp_int(s.optional ? s.min - 1 : s.min);  // min - 1: "auto"
      spin->setRange(low, clamp_int(s.max));
      if (s.optional || split) spin->setSpecialValueText(tr("auto"));
      spin->setSingleStep(clamp_int(s.step));
      spin->setGroupSeparatorShown(s.max > 100000);
      spin->setAccelerated(true);
      connect(spin, &QSpinBox::valueChanged, this, [this, key, spin, s, split](int v) {
        if (updating_) return;
        if (v != spin->minimum() || !(s.optional || split)) return emit paramEdited(key, v);
        // "auto": split_kv asks the template for its count; other fields take the default.
        emit paramEdited(key, split && !s.absent_auto ? nlohmann::json(true) : nlohmann::json());
      });
      return spin;
    }
    case ParamKind::kBytes: {
      auto* spin = new BytesSpinBox(this);
      spin->setRange(static_cast<double>(s.min), static_cast<double>(s.max));
      connect(spin, &QDoubleSpinBox::valueChanged, this, [this, key](double v) {
        if (!updating_) emit paramEdited(key, static_cast<std::int64_t>(v));
      });
      return spin;
    }
    case ParamKind::kBool: {
      auto* box = new QCheckBox(this);
      connect(box, &QCheckBox::toggled, this, [this, key](bool on) {
        if (!updating_) emit paramEdited(key, on);
      });
      return box;
    }
    case ParamKind::kChoice: {
      auto* combo = new QComboBox(this);
      const bool optional = s.optional;
      connect(combo, &QComboBox::currentIndexChanged, this, [this, key, combo, optional](int i) {
        if (updating_ || i < 0) return;
        emit paramEdited(key, optional && i == 0 ? nlohmann::json()
                                                 : nlohmann::json(combo->currentText().toStdString()));
      });
      return combo;
    }
  }
  return nullptr;
}

// The spin box of an integer field with legal values, and a slider over them beside it; the
// slider's commit is one edit of its own (the spin box's "auto" position first, if optional).
QWidget* TemplateForm::withSlider(QWidget* editor, const ParamSpec& s) {
  auto* spin = qobject_cast<QSpinBox*>(editor);
  if (!spin || s.kind != ParamKind::kInt) return editor;
  std::vector<int> values = template_slider_values(s.key, s.min, s.max);
  if (values.empty()) return editor;
  if (s.optional) values.insert(values.begin(), spin->minimum());  // "auto"
  auto* row = new QWidget(this);
  auto* line = new QHBoxLayout(row);
  line->setContentsMargins(0, 0, 0, 0);
  auto* slider = new ParamSlider(spin, row);
  slider->setObjectName(QString::fromLatin1(s.key) + QStringLiteral("_slider"));
  slider->setValues(std::move(values));
  line->addWidget(spin, 2);
  line->addWidget(slider, 3);
  const QString key = QString::fromLatin1(s.key);
  const bool optional = s.optional;
  connect(slider, &ParamSlider::committed, this, [this, key, spin, optional](int v) {
    if (updating_) return;
    emit paramEdited(key, optional && v == spin->minimum() ? nlohmann::json() : nlohmann::json(v), false);
  });
  return row;
}

void TemplateForm::build(const std::string& kernel) {
  qDeleteAll(groups_);
  groups_.clear();
  while (QLayoutItem* item = column_->takeAt(0)) delete item;  // the old stretch
  editors_.clear();
  kernel_ = kernel;
  QString group;
  QFormLayout* form = nullptr;
  for (const ParamSpec& s : template_params(kernel)) {
    if (!form || group != QLatin1String(s.group)) {
      group = QString::fromLatin1(s.group);
      auto* box = new QGroupBox(tr(s.group), this);
      form = new QFormLayout(box);
      form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
      column_->addWidget(box);
      groups_ << box;
    }
    const QString key = QString::fromLatin1(s.key);
    QWidget* editor = makeEditor(s);
    editor->setToolTip(tr(s.tip));
    editor->setObjectName(key);
    // "model.layers" reads "layers" under the Model group.
    form->addRow(key.section(QLatin1Char('.'), -1), withSlider(editor, s));
    editors_.insert(key, editor);
  }
  column_->addStretch(1);
}

// The GPUs of the plan's system profile bound `devices`; a single-GPU profile or a path
// the engine cannot read keeps the parser's limit.
int TemplateForm::deviceLimit(const std::string& hardware) {
  const QString name = QString::fromStdString(hardware);
  if (auto it = device_limits_.constFind(name); it != device_limits_.cend()) return *it;
  int limit = 4096;
  if (!hardware.empty())
    if (auto system = net::load_system(hardware); system && system->devices() >= 2)
      limit = static_cast<int>(system->devices());
  device_limits_.insert(name, limit);
  return limit;
}

void TemplateForm::showValue(const ParamSpec& s, const nlohmann::json* v, const QString& resolved,
                             const nlohmann::json& params) {
  QWidget* editor = editors_.value(QString::fromLatin1(s.key));
  if (auto* bytes = qobject_cast<BytesSpinBox*>(editor)) {
    bytes->setValue(v && v->is_number() ? v->get<double>() : bytes->minimum());
  } else if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
    if (s.kind == ParamKind::kSplit) {
      // true: the template's count; a missing field: 1 (attention) or the count (mla_decode).
      int value = s.absent_auto ? kSplitAuto : 1;
      if (v && v->is_boolean()) value = v->get<bool>() ? kSplitAuto : 1;
      else if (v && v->is_number_integer()) value = clamp_int(std::max<std::int64_t>(1, v->get<std::int64_t>()));
      spin->setSpecialValueText(auto_text(resolved));
      spin->setValue(value);
      return;
    }
    if (s.optional) spin->setSpecialValueText(auto_text(resolved));
    spin->setValue(v && v->is_number_integer()
                       ? clamp_int(std::clamp<std::int64_t>(v->get<std::int64_t>(), spin->minimum(), spin->maximum()))
                       : spin->minimum());
  } else if (auto* box = qobject_cast<QCheckBox*>(editor)) {
    const bool fallback = s.key == std::string("fused");  // silu_mul's default
    box->setChecked(v ? (v->is_boolean() ? v->get<bool>() : v->is_number_integer() && v->get<int>() != 0)
                      : fallback);
  } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    QStringList items = legal_choices(kernel_, s, params);
    if (s.optional) items.prepend(auto_text(resolved));
    const QString current = v && v->is_string() ? QString::fromStdString(v->get<std::string>()) : QString();
    if (!current.isEmpty() && !items.contains(current)) items << current;  // shown, the engine says why
    // Same length: rename in place (this may run inside the combo's own signal).
    if (combo->count() == items.size())
      for (int i = 0; i < items.size(); ++i) combo->setItemText(i, items[i]);
    else {
      combo->clear();
      combo->addItems(items);
    }
    const int i = current.isEmpty() ? 0 : combo->findText(current);
    combo->setCurrentIndex(std::max(i, 0));
  }
}

void TemplateForm::noteEngineChoice(const QString& key, const nlohmann::json& params,
                                    const std::string& hardware, const QString& value) {
  if (param_at(params, key.toStdString())) return;  // set by the plan: not the engine's pick
  engine_choices_.insert(key, {params, hardware, value});
}

QString TemplateForm::engineChoice(const ParamSpec& spec, const nlohmann::json& params,
                                   const std::string& hardware) const {
  const auto it = engine_choices_.constFind(QString::fromLatin1(spec.key));
  if (it == engine_choices_.cend() || it->hardware != hardware) return {};
  nlohmann::json others = params;
  set_param(others, spec.key, nlohmann::json());
  return others == it->others ? it->value : QString();
}

void TemplateForm::showParams(const std::string& kernel, const nlohmann::json& params,
                              const std::string& hardware) {
  if (kernel != kernel_) {
    build(kernel);
    engine_choices_.clear();
  }
  updating_ = true;
  for (const ParamSpec& s : template_params(kernel)) {
    if (std::string(s.key) == "devices")
      if (auto* spin = qobject_cast<QSpinBox*>(editors_.value(QStringLiteral("devices"))))
        spin->setMaximum(deviceLimit(hardware));
    const bool has_auto = s.optional || s.kind == ParamKind::kSplit;
    QString resolved = has_auto ? auto_value(kernel, s, params) : QString();
    if (has_auto && resolved.isEmpty()) resolved = engineChoice(s, params, hardware);
    showValue(s, param_at(params, s.key), resolved, params);
  }
  updating_ = false;
}

}  // namespace tilesight::ui
