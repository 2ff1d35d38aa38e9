// The form of the templates other than gemm (attention; rmsnorm, layernorm, softmax,
// silu_mul, add), built from a table of their parameters (DESIGN.md's CLI contract) with the
// ranges the engine accepts. Optional parameters show "auto" (the template's default, which
// may depend on the GPU and the other parameters) until set; setting a box back to "auto"
// removes the field.
//
//   batch [4]  heads [32]  kv_heads [8]  seq_q [4096]  seq_kv [4096]  head_dim [128]
//   causal [x]  dtype [bf16 ▾]  variant [auto ▾]  block_m [auto] ...
#pragma once

#include <QMap>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QFormLayout;

namespace tilesight::ui {

class TemplateForm : public QWidget {
  Q_OBJECT

 public:
  explicit TemplateForm(QWidget* parent = nullptr);

  static bool hasForm(const std::string& kernel);
  // Rebuilds the form for `kernel` when it changed, and shows `params` without emitting.
  void showParams(const std::string& kernel, const nlohmann::json& params);
  QWidget* editor(const QString& key) const { return editors_.value(key); }

 signals:
  void paramEdited(const QString& key, const nlohmann::json& value);  // null: remove the field

 private:
  void build(const std::string& kernel);

  std::string kernel_;
  QFormLayout* form_ = nullptr;
  QMap<QString, QWidget*> editors_;
  bool updating_ = false;
};

}  // namespace tilesight::ui
