// The form of the templates other than gemm, built from their parameter tables
// (ui/template_params.h) with the ranges and choices the engine accepts, in one group box
// per part of the problem. Optional parameters show "auto (value)", the engine's default
// for this plan, until set; setting a box back to "auto" removes the field. split_kv reads
// "auto (8)" for `true` (the template picks the count) and a count otherwise. Collective
// algorithms are those that run the plan's collective on its device count; devices go up
// to the GPUs of the plan's system profile. Where the engine itself picks (the collective
// algorithm and protocol, NCCL's tuner model) "auto" names its pick for this plan,
// "auto (ring)", once a prediction of the plan has said it.
//
//   ┌ Problem ───────────────────┐ ┌ Kernel ─────────────────┐ ┌ Communication ─────┐
//   │ batch [4]  heads [32] ...  │ │ variant [auto (fa2) ▾]  │ │ devices [8]        │
//   │ causal [x] dtype [bf16 ▾]  │ │ split_kv [auto (8)]     │ │ algorithm [auto ▾] │
//
// The tile fields, warps, stages and group_m have a slider beside the box over their legal
// values (ui/legal_values.h), its leftmost position "auto" where the field is optional.
#pragma once

#include <QHash>
#include <QMap>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QVBoxLayout;

namespace tilesight::ui {

struct ParamSpec;

class TemplateForm : public QWidget {
  Q_OBJECT

 public:
  explicit TemplateForm(QWidget* parent = nullptr);

  static bool hasForm(const std::string& kernel);
  // Rebuilds the form for `kernel` when it changed, and shows `params` without emitting.
  // `hardware`: the plan's profile (a system profile bounds `devices`).
  void showParams(const std::string& kernel, const nlohmann::json& params,
                  const std::string& hardware = {});
  // The engine chose `value` for the field `key` of a plan that left it out (`params` on
  // `hardware`, the predicted plan): "auto" reads "auto (value)" while the plan differs
  // from that one at most in this field. showParams draws it.
  void noteEngineChoice(const QString& key, const nlohmann::json& params, const std::string& hardware,
                        const QString& value);
  // The editor of a field ("seq_kv", "model.layers"), nullptr when the form has none.
  QWidget* editor(const QString& key) const { return editors_.value(key); }

 signals:
  // null: remove the field; merge false: a committed slider drag, its own undo step.
  void paramEdited(const QString& key, const nlohmann::json& value, bool merge = true);

 private:
  void build(const std::string& kernel);
  QWidget* makeEditor(const ParamSpec& spec);
  QWidget* withSlider(QWidget* editor, const ParamSpec& spec);
  void showValue(const ParamSpec& spec, const nlohmann::json* value, const QString& resolved,
                 const nlohmann::json& params);
  int deviceLimit(const std::string& hardware);
  QString engineChoice(const ParamSpec& spec, const nlohmann::json& params, const std::string& hardware) const;

  struct EngineChoice {
    nlohmann::json others;  // the plan's params without the field
    std::string hardware;
    QString value;
  };

  std::string kernel_;
  QVBoxLayout* column_ = nullptr;
  QList<QWidget*> groups_;
  QMap<QString, QWidget*> editors_;
  QHash<QString, int> device_limits_;  // system profile -> GPUs
  QHash<QString, EngineChoice> engine_choices_;  // field -> the engine's last pick
  bool updating_ = false;
};

}  // namespace tilesight::ui
