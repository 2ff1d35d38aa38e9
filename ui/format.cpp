#include "ui/format.h"

#include <QLocale>
#include <cmath>

#include "tilesight/report/diagnosis.h"

namespace tilesight::ui {

namespace {

// Three significant digits, no trailing zeros: 256, 2.54, 0.47.
QString significant(double v) {
  if (v == 0) return QStringLiteral("0");
  const double magnitude = std::floor(std::log10(std::fabs(v)));
  const int decimals = std::max(0, 2 - static_cast<int>(magnitude));
  QString s = QString::number(v, 'f', decimals);
  if (s.contains('.')) {
    while (s.endsWith('0')) s.chop(1);
    if (s.endsWith('.')) s.chop(1);
  }
  return s;
}

QString scaled(double v, const char* const* units, int count, double step) {
  int i = 0;
  while (std::fabs(v) >= step * 0.9995 && i + 1 < count) {
    v /= step;
    ++i;
  }
  return significant(v) + QLatin1Char(' ') + QString::fromUtf8(units[i]);
}

}  // namespace

QString format_time_us(double us) {
  static const char* const units[] = {"µs", "ms", "s"};
  // Under 0.1 µs in ns: "3.96 ns", not "0.00396 µs".
  if (std::fabs(us) < 0.09995 && us != 0) return significant(us * 1e3) + QStringLiteral(" ns");
  return scaled(us, units, 3, 1000.0);
}

// The engine's convention (binary, IEC names), so the app and the CLI print one figure alike.
QString format_bytes(double bytes) {
  return to_qstring(report::format_bytes(bytes));
}

QString format_percent(double fraction) {
  return QString::number(std::lround(fraction * 100.0)) + QLatin1Char('%');
}

QString format_flops(double flops) {
  static const char* const units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
  return scaled(flops, units, 6, 1000.0);
}

QString format_count(double value) {
  return QLocale(QLocale::English).toString(static_cast<qlonglong>(std::llround(value)));
}

QString unbroken(const QString& text) {
  QString out = text;
  return out.replace(QLatin1Char(' '), QChar(0x00A0));
}

QString to_qstring(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

}  // namespace tilesight::ui
