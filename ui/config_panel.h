// The plan's parameters. For a `gemm` template instance, a form with legal values only
// (the ranges parse_gemm_params accepts); for a full tile program (or a template without a
// form yet) the document read-only. The hardware selector lists hw_profiles/ in both cases.
//
//   Hardware  [h200            ▾]
//   ┌ Problem ──────────────────┐
//   │ M       [4096 ⇕] ───●──── │   spin box: any value the parser takes;
//   │ block_m [ 128 ⇕] ───●──── │   slider: the legal ones (ui/legal_values.h)
//   dtype [bf16 ▾]  layout [nn ▾]
//   grid 32 × 32 = 1,024 blocks · 96 KiB shared memory · 168 registers per thread
//   ✖ block_m, block_n, block_k, stages, dtype: needs 288 KiB of shared memory per block; ...
//
// Under every form, the checks of ui/param_checks.h run as the values are typed: errors in
// red and warnings in amber, with the fields they name tinted; the edit itself is kept.
//
// Every change emits planEdited with the whole document (other fields untouched); the
// session debounces and predicts.
#pragma once

#include <QMap>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "tilesight/report/prediction.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QScrollArea;
class QSpinBox;
class QStackedWidget;
class QStandardItemModel;
class QTreeView;

namespace tilesight::ui {
class ParamSlider;
class RichTextBlock;
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
  // What the engine chose for `plan` (the plan the prediction was made from) where the plan
  // left the choice to it: the collective algorithm and protocol read "auto (ring)".
  void showEngineChoices(const report::Prediction& prediction, const nlohmann::json& plan);
  const nlohmann::json& plan() const { return doc_; }

  bool editable() const;  // a template instance with a form (gemm, attention, norms, ...)
  TemplateForm* templateForm() const { return form_; }
  QSpinBox* spinBox(const QString& key) const { return spins_.value(key); }
  ParamSlider* slider(const QString& key) const { return sliders_.value(key); }
  QComboBox* comboBox(const QString& key) const { return combos_.value(key); }
  QComboBox* hardwareSelector() const { return hardware_; }
  QTreeView* programTree() const { return tree_; }  // a tile program's JSON, read-only
  // The editor of a parameter on the page shown ("block_m", "model.heads"), or nullptr.
  QWidget* fieldEditor(const QString& key) const;
  QString problemText() const;  // the checks' text under the form, "" when all is well
  // "error", "warning" or "" for the editor of `key`.
  QString fieldProblem(const QString& key) const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;  // the form's width

 signals:
  // label: for undo; merge: may join the previous edit of the same label (a spin box's held
  // arrow), false for a committed slider drag (its own undo step).
  void planEdited(const nlohmann::json& doc, const QString& label, bool merge = true);

 private:
  QWidget* makeGemmForm();
  QWidget* makeProgramPage();
  void addSpin(QFormLayout* form, const IntParam& param);
  void showGemmParams();
  void showDerived();
  void setParam(const QString& key, const nlohmann::json& value, bool merge = true);
  void showSliderValues();
  void setHardware(const QString& name);
  void showChecks();
  void showFittingProfiles();

  nlohmann::json doc_;
  QComboBox* hardware_ = nullptr;
  QStackedWidget* pages_ = nullptr;
  QLabel* kind_ = nullptr;
  RichTextBlock* derived_ = nullptr;
  QLabel* checks_ = nullptr;
  QList<QWidget*> marked_;  // editors tinted by the last checks
  QString problem_text_;
  QTreeView* tree_ = nullptr;
  QStandardItemModel* tree_model_ = nullptr;
  TemplateForm* form_ = nullptr;  // the other templates' parameters
  QScrollArea* form_area_ = nullptr;  // it scrolls down, never sideways
  QMap<QString, QSpinBox*> spins_;
  QMap<QString, ParamSlider*> sliders_;
  QMap<QString, QComboBox*> combos_;
  bool updating_ = false;
};

}  // namespace tilesight::ui
