// A small Sugiyama layered layout for the plan editor's tile-action DAG. Plain C++ (no Qt,
// no engine), so it is unit-tested on hand-counted graphs. Three steps:
//   1. layering: longest path from the sources (a node sits one layer below its deepest
//      dependency), long edges split by dummy nodes, one per layer crossed;
//   2. crossing reduction: barycentre ordering, sweeping down then up, keeping the best order
//      seen (adjacent-layer crossings counted exactly);
//   3. coordinates: each layer on its own row; nodes pulled toward the mean x of their
//      neighbours, then pushed apart to the minimum gap, in a few passes.
//
//   layer 0   load_a   load_b          edges point down (a dependency above its user)
//               │  ╲   ╱  │
//   layer 1     │   mma   ·  <- dummy node of the edge load_b -> store_c
//               │    │    │
//   layer 2        store_c
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace tilesight::ui::layout {

struct Edge {
  std::size_t from = 0, to = 0;  // from must run before to (a dependency edge)
};

struct Point {
  double x = 0, y = 0;
};

struct LayoutOptions {
  double node_width = 120;   // x distance between the centres of neighbours is at least
  double node_gap = 30;      // node_width + node_gap (dummies take a quarter of it)
  double layer_gap = 90;     // y distance between layers
  int sweeps = 4;            // down+up barycentre sweeps
  int coordinate_passes = 4;
};

// Layers and orders after the crossing reduction. Nodes 0..n-1 are the graph's; nodes n.. are
// dummies that carry long edges.
struct Layering {
  std::vector<std::size_t> layer;                  // per node, dummies included
  std::vector<std::vector<std::size_t>> rows;      // per layer, nodes left to right
  std::vector<std::pair<std::size_t, std::size_t>> segments;  // edges between adjacent layers
  std::vector<std::vector<std::size_t>> chains;  // per input edge: from, dummies..., to
                                                 // (just from, to for an ignored edge)
};

struct Layout {
  std::vector<Point> position;                  // centre of each real node
  std::vector<std::vector<Point>> edge_routes;  // per input edge: from, bends..., to
  std::vector<std::size_t> layer;               // per real node
  std::size_t layer_count = 0;
  int crossings = 0;                            // left after the crossing reduction
};

// Step 1. Longest-path layers of n nodes; edges that close a cycle (impossible in a valid
// plan, possible while one is being edited) are ignored rather than looping.
std::vector<std::size_t> longest_path_layers(std::size_t n, const std::vector<Edge>& edges);

// Crossings between adjacent layers of an ordering (rows) of the segments.
int count_crossings(const Layering& layering);

// Steps 1 and 2: layers, dummy nodes and the best order found.
Layering reduce_crossings(std::size_t n, const std::vector<Edge>& edges, int sweeps = 4);

// Steps 1 to 3.
Layout sugiyama_layout(std::size_t n, const std::vector<Edge>& edges,
                       const LayoutOptions& options = {});

}  // namespace tilesight::ui::layout
