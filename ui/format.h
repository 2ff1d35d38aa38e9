// How the views print numbers: three significant digits and a unit a person reads at a
// glance ("256 µs", "2.54 ms", "101 MB", "95%"), the same words as the CLI's text report.
#pragma once

#include <QString>
#include <string_view>

namespace tilesight::ui {

QString format_time_us(double us);        // "0.47 µs", "256 µs", "2.54 ms", "1.20 s"
QString format_bytes(double bytes);       // decimal units as the CLI prints: "16.4 kB", "101 MB"
QString format_percent(double fraction);  // 0.953 -> "95%"
QString format_flops(double flops);       // "2.10 GFLOP"
QString format_count(double value);       // "1,024"

// The engine's names ("tensor core", "L1.5") as QString.
QString to_qstring(std::string_view text);

}  // namespace tilesight::ui
