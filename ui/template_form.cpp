#include "ui/template_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QSpinBox>
#include <climits>
#include <span>

namespace tilesight::ui {

namespace {

enum class Kind { kInt, kBool, kChoice };

struct Spec {
  const char* key;
  Kind kind;
  int min = 0, max = 0, step = 1;
  bool optional = false;
  const char* choices = "";  // "|"-separated, for kChoice
  const char* tip = "";
};

constexpr Spec kAttention[] = {
    {"batch", Kind::kInt, 1, 65535, 1, false, "", "sequences"},
    {"heads", Kind::kInt, 1, 65535, 1, false, "", "query heads"},
    {"kv_heads", Kind::kInt, 1, 65535, 1, false, "", "key/value heads; heads must be a multiple"},
    {"seq_q", Kind::kInt, 1, INT_MAX, 128, false, "", "query tokens per sequence; 1 = decode"},
    {"seq_kv", Kind::kInt, 1, INT_MAX, 128, false, "", "key/value tokens per sequence"},
    {"head_dim", Kind::kInt, 8, 512, 8, false, "", "elements per head"},
    {"causal", Kind::kBool, 0, 1, 1, false, "", "mask keys after the query"},
    {"dtype", Kind::kChoice, 0, 0, 1, false, "bf16|fp16|fp8", "element type"},
    {"variant", Kind::kChoice, 0, 0, 1, true, "fa2|fa3|fa4", "kernel structure; auto: by GPU"},
    {"mma", Kind::kChoice, 0, 0, 1, true, "mma_sync|wgmma", "tensor-core instruction"},
    {"block_m", Kind::kInt, 16, 512, 16, true, "", "query rows per tile"},
    {"block_n", Kind::kInt, 16, 512, 16, true, "", "keys per inner step"},
    {"warps", Kind::kInt, 1, 32, 1, true, "", "warps per block"},
    {"stages", Kind::kInt, 1, 8, 1, true, "", "K/V pipeline stages"},
    {"split_kv", Kind::kInt, 1, 1024, 1, true, "", "key blocks split over this many blocks"}};

constexpr Spec kMemoryBound[] = {
    {"rows", Kind::kInt, 1, INT_MAX, 256, false, "", "rows (tokens)"},
    {"cols", Kind::kInt, 1, INT_MAX, 256, false, "", "columns (hidden size)"},
    {"dtype", Kind::kChoice, 0, 0, 1, false, "bf16|fp16|fp32", "element type"}};

std::span<const Spec> specs(const std::string& kernel) {
  if (kernel == "attention") return kAttention;
  for (const char* k : {"rmsnorm", "layernorm", "softmax", "silu_mul", "add"})
    if (kernel == k) return kMemoryBound;
  return {};
}

}  // namespace

TemplateForm::TemplateForm(QWidget* parent) : QWidget(parent), form_(new QFormLayout(this)) {
  form_->setContentsMargins(0, 0, 0, 0);
}

bool TemplateForm::hasForm(const std::string& kernel) {
  return !specs(kernel).empty();
}

void TemplateForm::build(const std::string& kernel) {
  while (form_->rowCount() > 0) form_->removeRow(0);
  editors_.clear();
  kernel_ = kernel;
  for (const Spec& s : specs(kernel)) {
    const QString key = QString::fromLatin1(s.key);
    QWidget* editor = nullptr;
    if (s.kind == Kind::kInt) {
      auto* spin = new QSpinBox(this);
      spin->setRange(s.optional ? s.min - 1 : s.min, s.max);  // min - 1 reads "auto"
      if (s.optional) spin->setSpecialValueText(tr("auto"));
      spin->setSingleStep(s.step);
      spin->setGroupSeparatorShown(s.max > 100000);
      spin->setAccelerated(true);
      connect(spin, &QSpinBox::valueChanged, this, [this, key, spin, s](int v) {
        if (updating_) return;
        emit paramEdited(key, s.optional && v == spin->minimum() ? nlohmann::json() : nlohmann::json(v));
      });
      editor = spin;
    } else if (s.kind == Kind::kBool) {
      auto* box = new QCheckBox(this);
      connect(box, &QCheckBox::toggled, this, [this, key](bool on) {
        if (!updating_) emit paramEdited(key, on);
      });
      editor = box;
    } else {
      auto* combo = new QComboBox(this);
      if (s.optional) combo->addItem(tr("auto"));
      combo->addItems(QString::fromLatin1(s.choices).split(QLatin1Char('|')));
      connect(combo, &QComboBox::currentIndexChanged, this, [this, key, combo, s](int i) {
        if (updating_ || i < 0) return;
        emit paramEdited(key, s.optional && i == 0 ? nlohmann::json()
                                                   : nlohmann::json(combo->currentText().toStdString()));
      });
      editor = combo;
    }
    editor->setToolTip(tr(s.tip));
    form_->addRow(key, editor);
    editors_.insert(key, editor);
  }
}

void TemplateForm::showParams(const std::string& kernel, const nlohmann::json& params) {
  if (kernel != kernel_) build(kernel);
  updating_ = true;
  for (const Spec& s : specs(kernel)) {
    const auto it = params.is_object() ? params.find(s.key) : params.end();
    const bool present = params.is_object() && it != params.end();
    QWidget* editor = editors_.value(QString::fromLatin1(s.key));
    if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
      int value = spin->minimum();
      if (present && it->is_number_integer())
        value = static_cast<int>(std::clamp<std::int64_t>(it->get<std::int64_t>(), spin->minimum(), spin->maximum()));
      else if (present && it->is_boolean())  // split_kv: true
        value = it->get<bool>() ? spin->minimum() : 1;
      spin->setValue(value);
    } else if (auto* box = qobject_cast<QCheckBox*>(editor)) {
      box->setChecked(present && ((it->is_boolean() && it->get<bool>()) ||
                                  (it->is_number_integer() && it->get<int>() != 0)));
    } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
      const int i = present && it->is_string() ? combo->findText(QString::fromStdString(it->get<std::string>())) : -1;
      combo->setCurrentIndex(i >= 0 ? i : 0);
    }
  }
  updating_ = false;
}

}  // namespace tilesight::ui
