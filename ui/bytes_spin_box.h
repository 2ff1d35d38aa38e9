// A byte count in the units people write sizes in ("256 MiB", "1.5 GiB", "4096 B"), as
// nccl-tests' "size" is given. The arrows halve and double (collective sizes go in powers
// of two); typing accepts B, KiB, MiB, GiB, TiB (and kB, MB, GB, TB) or a plain number.
// Values are whole bytes up to 2^50 (1 PiB), held in a double (exact below 2^53).
//
//   bytes [ 256 MiB  ▴▾]
#pragma once

#include <QDoubleSpinBox>
#include <optional>

namespace tilesight::ui {

class BytesSpinBox : public QDoubleSpinBox {
  Q_OBJECT

 public:
  explicit BytesSpinBox(QWidget* parent = nullptr);

  void stepBy(int steps) override;
  QString textFromValue(double bytes) const override;
  double valueFromText(const QString& text) const override;
  QValidator::State validate(QString& text, int& pos) const override;

  // The parser behind valueFromText: nullopt when `text` is not a size.
  static std::optional<double> parse(const QString& text);
  // "256 MiB": the largest binary unit that divides the count, else bytes.
  static QString format(double bytes);
};

}  // namespace tilesight::ui
