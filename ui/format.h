// How the views print numbers: three significant digits and a unit a person reads at a
// glance ("256 µs", "2.54 ms", "96.3 MiB", "95%"). Sizes are binary with their IEC names
// everywhere in the app (tiles, shared memory and collective buffers are powers of two:
// "16 KiB", "256 MiB", as the byte fields read); rates stay decimal ("345 GB/s").
#pragma once

#include <QString>
#include <string_view>

namespace tilesight::ui {

QString format_time_us(double us);        // "39.6 ns", "0.47 µs", "256 µs", "2.54 ms", "1.20 s"
QString format_bytes(double bytes);       // binary units: "16 KiB", "96.3 MiB", "1.5 GiB"
QString format_percent(double fraction);  // 0.953 -> "95%"
QString format_flops(double flops);       // "2.10 GFLOP"
QString format_count(double value);       // "1,024"

// The text with no-break spaces: a figure and its unit ("4.8 µs") never split across lines
// of rich text that wraps.
QString unbroken(const QString& text);

// The engine's names ("tensor core", "L1.5") as QString.
QString to_qstring(std::string_view text);

}  // namespace tilesight::ui
