// Where a field sits in a JSON text: the line of the value at an error's JSON path
// ("params.blokc_m", "actions[3].deps[0]"), so the bad-file dialog can name the line of a
// field the parser accepted but the plan reader rejected. Falls back to the deepest part of
// the path that exists; 0 when none does or the text is not JSON.
#pragma once

#include <string_view>

namespace tilesight::ui {

int line_of_json_path(std::string_view text, std::string_view path);

}  // namespace tilesight::ui
