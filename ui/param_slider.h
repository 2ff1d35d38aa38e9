// A slider beside a spin box, over the parameter's legal values only (ui/legal_values.h):
// position i is values()[i]. Linked both ways: the spin box moves the slider to the nearest
// legal value; dragging the slider shows each value in the spin box as it goes and commits
// once, on release, so a drag is one edit (one undo step); a key press or a click on the
// groove commits at once.
//
//   block_m [ 128 ⇕]  ──────●────  (16 32 64 128 256)
#pragma once

#include <QSlider>
#include <vector>

class QSpinBox;

namespace tilesight::ui {

class ParamSlider : public QSlider {
  Q_OBJECT

 public:
  ParamSlider(QSpinBox* spin, QWidget* parent = nullptr);

  // The legal values, ascending; the slider moves to the spin box's value.
  void setValues(std::vector<int> values);
  const std::vector<int>& values() const { return values_; }
  // Follows the spin box (call after setting it with its signals blocked).
  void sync();
  int legalValue() const;  // the value at the slider's position

 signals:
  void committed(int value);  // a drag released, a key pressed, the groove clicked

 private:
  int positionOf(int value) const;  // the nearest legal value's position
  void showInSpin(int position);

  QSpinBox* spin_;
  std::vector<int> values_;
  bool syncing_ = false;
};

}  // namespace tilesight::ui
