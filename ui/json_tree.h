// A read-only tree of a JSON document (the config panel's view of a full tile program):
//
//   ▾ actions            [{"name":"load_a","op":"load",...
//       ▸ [0] load_a     {"name":"load_a","op":"load","bytes":16384,...
//       ▸ [2] mma        {"name":"mma","op":"mma_tc","flops":2097152,...
//   ▾ grid               {"dims":[...],"launch_order":{...}}
//       launch_order     {"kind":"grouped","group_m":8}
//
// Objects and arrays become branches with their compact JSON beside them (elided by the
// column, whole in the tooltip); elements with a name show it after their index. The model is
// a QStandardItemModel (children under column 0 only, as QAbstractItemModelTester expects;
// QTreeWidget's model reports them under every column).
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
