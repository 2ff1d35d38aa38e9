// A read-only tree of a JSON document (the config panel's view of a full tile program):
//
//   ▾ actions            4: load_a, load_b, mma, store_c
//       ▸ [0] load_a     bytes 16384, deps [], op load, result L2, ...
//       ▸ [2] mma        deps [load_a, load_b], flops 2097152, op mma_tc, ...
//   ▾ grid               dims [m, n], launch_order {…}
//       launch_order     group_m 8, kind grouped
//
// Objects and arrays become branches with what they hold beside them, to read without
// opening them: named elements by name, an object's fields as "key value" (elided by the
// column, the whole JSON in the tooltip); elements with a name show it after their index.
// The model is a QStandardItemModel (children under column 0 only, as
// QAbstractItemModelTester expects; QTreeWidget's model reports them under every column).
#pragma once

#include <nlohmann/json_fwd.hpp>

class QStandardItemModel;
class QTreeView;

namespace tilesight::ui {

// Refills `model` with `doc` (two columns: field, value).
void fill_json_model(QStandardItemModel& model, const nlohmann::json& doc);
// Expands the top level and sizes the field column to its contents.
void show_json_tree(QTreeView& tree);

}  // namespace tilesight::ui
