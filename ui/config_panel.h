// The plan's parameters. For a `gemm` template instance, a form with legal values only
// (the ranges parse_gemm_params accepts); for a full tile program (or a template without a
// form yet) the document read-only. The hardware selector lists hw_profiles/ in both cases.
//
//   Hardware  [h200            ▾]
//   ┌ Problem ─────────────┐ ┌ Tile ──────────────┐ ┌ Schedule ──────┐
//   │ M 4096  N 4096  K 4096│ │ block_m 128  ...   │ │ group_m 8 ...  │
//   dtype [bf16 ▾]  layout [nn ▾]
//   grid 32 × 32 = 1,024 blocks · 96 KiB shared memory · 168 registers per thread
//
// Every change emits planEdited with the whole document (other fields untouched); the
// session debounces and predicts.
#pragma once

#include <QMap>
#include <QWidget>

#include <nlohmann/json.hpp>

class QComboBox;
class QFormLayout;
class QLabel;
class QSpinBox;
class QStackedWidget;
class QTreeWidget;

namespace tilesight::ui {
class TemplateForm;
}

namespace tilesight::ui {

struct IntParam;

class ConfigPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ConfigPanel(QWidget* parent = nullptr);

  // Shows a plan without emitting planEdited.
  void setPlan(const nlohmann::json& doc);
  const nlohmann::json& plan() const { return doc_; }

  bool editable() const;  // a template instance with a form (gemm, attention, norms, ...)
  TemplateForm* templateForm() const { return form_; }
  QSpinBox* spinBox(const QString& key) const { return spins_.value(key); }
  QComboBox* comboBox(const QString& key) const { return combos_.value(key); }
  QComboBox* hardwareSelector() const { return hardware_; }

 signals:
  void planEdited(const nlohmann::json& doc, const QString& label);  // label: for undo

 private:
  QWidget* makeGemmForm();
  QWidget* makeProgramPage();
  void addSpin(QFormLayout* form, const IntParam& param);
  void showGemmParams();
  void showDerived();
  void setParam(const QString& key, const nlohmann::json& value);
  void setHardware(const QString& name);

  nlohmann::json doc_;
  QComboBox* hardware_ = nullptr;
  QStackedWidget* pages_ = nullptr;
  QLabel* kind_ = nullptr;
  QLabel* derived_ = nullptr;
  QTreeWidget* tree_ = nullptr;
  TemplateForm* form_ = nullptr;  // the other templates' parameters
  QMap<QString, QSpinBox*> spins_;
  QMap<QString, QComboBox*> combos_;
  bool updating_ = false;
};

}  // namespace tilesight::ui
