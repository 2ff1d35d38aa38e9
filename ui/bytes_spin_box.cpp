#include "ui/bytes_spin_box.h"

#include <QRegularExpression>
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <utility>

namespace tilesight::ui {

namespace {

constexpr double kMaxBytes = 1125899906842624.0;  // 2^50, the engine's limit

// Unit names (lower case) and their sizes.
constexpr std::array<std::pair<const char*, double>, 11> kUnits = {{
    {"b", 1.0},
    {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
    {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
    {"k", 1024.0}, {"m", 1048576.0},
}};

}  // namespace

BytesSpinBox::BytesSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
  setDecimals(0);
  setRange(1, kMaxBytes);
  setAccelerated(true);
  setKeyboardTracking(false);  // "25" on the way to "256 MiB" is not an edit
}

void BytesSpinBox::stepBy(int steps) {
  const double v = std::ldexp(value(), steps);
  setValue(std::clamp(std::round(v), minimum(), maximum()));
}

QString BytesSpinBox::format(double bytes) {
  static constexpr std::array<const char*, 5> names = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = std::round(bytes);
  std::size_t unit = 0;
  while (unit + 1 < names.size() && v >= 1024 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++unit;
  }
  // Not a whole number of any unit past bytes: 1.5 GiB reads better than 1610612736 B.
  if (unit == 0 && bytes >= 1024 * 1024) {
    while (unit + 1 < names.size() && v >= 1024) {
      v /= 1024;
      ++unit;
    }
    return QStringLiteral("%1 %2").arg(v, 0, 'g', 6).arg(QLatin1String(names[unit]));
  }
  return QStringLiteral("%1 %2").arg(static_cast<qint64>(v)).arg(QLatin1String(names[unit]));
}

std::optional<double> BytesSpinBox::parse(const QString& text) {
  static const QRegularExpression re(QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]*)?)\\s*([a-zA-Z]*)\\s*$"));
  const auto m = re.match(text);
  if (!m.hasMatch()) return std::nullopt;
  bool ok = false;
  const double number = m.captured(1).toDouble(&ok);
  if (!ok) return std::nullopt;
  const QString unit = m.captured(2).toLower();
  if (unit.isEmpty()) return std::round(number);
  for (const auto& [name, size] : kUnits)
    if (unit == QLatin1String(name)) return std::round(number * size);
  return std::nullopt;
}

QString BytesSpinBox::textFromValue(double bytes) const {
  return format(bytes);
}

double BytesSpinBox::valueFromText(const QString& text) const {
  return parse(text).value_or(value());
}

QValidator::State BytesSpinBox::validate(QString& text, int&) const {
  if (const auto v = parse(text)) return *v >= minimum() && *v <= maximum() ? QValidator::Acceptable
                                                                            : QValidator::Intermediate;
  static const QRegularExpression partial(QStringLiteral("^\\s*[0-9]*(?:\\.[0-9]*)?\\s*[a-zA-Z]{0,3}\\s*$"));
  return partial.match(text).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
}

}  // namespace tilesight::ui
