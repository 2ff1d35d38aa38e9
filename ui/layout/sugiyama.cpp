#include "ui/layout/sugiyama.h"

#include <algorithm>
#include <numeric>

namespace tilesight::ui::layout {

namespace {

// Position of every node within its row.
std::vector<std::size_t> positions(const Layering& l) {
  std::vector<std::size_t> pos(l.layer.size(), 0);
  for (const auto& row : l.rows)
    for (std::size_t i = 0; i < row.size(); ++i) pos[row[i]] = i;
  return pos;
}

// Orders one row by the mean position of each node's neighbours in the adjacent row
// (`upper`: predecessors, else successors). A node with no neighbour there keeps its place.
void order_by_barycentre(Layering& l, std::size_t row, bool upper) {
  const auto pos = positions(l);
  std::vector<double> sum(l.layer.size(), 0), count(l.layer.size(), 0);
  for (const auto& [u, v] : l.segments) {
    if (upper && l.layer[v] == row) sum[v] += static_cast<double>(pos[u]), ++count[v];
    if (!upper && l.layer[u] == row) sum[u] += static_cast<double>(pos[v]), ++count[u];
  }
  auto& nodes = l.rows[row];
  std::vector<double> key(l.layer.size(), 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::size_t node = nodes[i];
    key[node] = count[node] > 0 ? sum[node] / count[node] : static_cast<double>(i);
  }
  std::stable_sort(nodes.begin(), nodes.end(),
                   [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
}

Layering make_layering(std::size_t n, const std::vector<Edge>& edges) {
  Layering l;
  l.layer = longest_path_layers(n, edges);
  const std::size_t layers = n == 0 ? 0 : *std::max_element(l.layer.begin(), l.layer.end()) + 1;
  l.rows.assign(layers, {});
  for (std::size_t v = 0; v < n; ++v) l.rows[l.layer[v]].push_back(v);
  for (const auto& e : edges) {
    std::vector<std::size_t> chain{e.from};
    if (e.from < n && e.to < n && l.layer[e.from] < l.layer[e.to]) {
      for (std::size_t k = l.layer[e.from] + 1; k < l.layer[e.to]; ++k) {
        const std::size_t dummy = l.layer.size();
        l.layer.push_back(k);
        l.rows[k].push_back(dummy);
        l.segments.emplace_back(chain.back(), dummy);
        chain.push_back(dummy);
      }
      l.segments.emplace_back(chain.back(), e.to);
    }
    chain.push_back(e.to);
    l.chains.push_back(std::move(chain));
  }
  return l;
}

}  // namespace

std::vector<std::size_t> longest_path_layers(std::size_t n, const std::vector<Edge>& edges) {
  // Kahn's topological order; nodes on a cycle never reach in-degree 0 and stay where their
  // acyclic dependencies put them.
  std::vector<std::vector<std::size_t>> out(n);
  std::vector<std::size_t> indegree(n, 0), layer(n, 0);
  for (const auto& e : edges)
    if (e.from < n && e.to < n && e.from != e.to) out[e.from].push_back(e.to), ++indegree[e.to];
  std::vector<std::size_t> ready;
  for (std::size_t v = 0; v < n; ++v)
    if (indegree[v] == 0) ready.push_back(v);
  while (!ready.empty()) {
    const std::size_t u = ready.back();
    ready.pop_back();
    for (std::size_t v : out[u]) {
      layer[v] = std::max(layer[v], layer[u] + 1);
      if (--indegree[v] == 0) ready.push_back(v);
    }
  }
  return layer;
}

int count_crossings(const Layering& l) {
  const auto pos = positions(l);
  int crossings = 0;
  for (std::size_t i = 0; i < l.segments.size(); ++i)
    for (std::size_t j = i + 1; j < l.segments.size(); ++j) {
      const auto [a, b] = l.segments[i];
      const auto [c, d] = l.segments[j];
      if (l.layer[a] != l.layer[c]) continue;  // segments of different layer pairs never meet
      const auto top = static_cast<long>(pos[a]) - static_cast<long>(pos[c]);
      const auto bottom = static_cast<long>(pos[b]) - static_cast<long>(pos[d]);
      if ((top < 0 && bottom > 0) || (top > 0 && bottom < 0)) ++crossings;
    }
  return crossings;
}

Layering reduce_crossings(std::size_t n, const std::vector<Edge>& edges, int sweeps) {
  Layering l = make_layering(n, edges);
  Layering best = l;
  int best_crossings = count_crossings(l);
  for (int sweep = 0; sweep < sweeps && best_crossings > 0; ++sweep) {
    for (std::size_t row = 1; row < l.rows.size(); ++row) order_by_barycentre(l, row, true);
    for (std::size_t row = l.rows.size(); row-- > 1;) order_by_barycentre(l, row - 1, false);
    if (const int c = count_crossings(l); c < best_crossings) best = l, best_crossings = c;
  }
  return best;
}

Layout sugiyama_layout(std::size_t n, const std::vector<Edge>& edges,
                       const LayoutOptions& options) {
  const Layering l = reduce_crossings(n, edges, options.sweeps);
  const std::size_t total = l.layer.size();
  auto width = [&](std::size_t v) { return v < n ? options.node_width : options.node_width / 4; };
  auto gap = [&](std::size_t a, std::size_t b) {
    return (width(a) + width(b)) / 2 + (a < n && b < n ? options.node_gap : options.node_gap / 4);
  };
  std::vector<double> x(total, 0);
  for (const auto& row : l.rows) {  // packed rows, centred on 0
    double at = 0;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) at += gap(row[i - 1], row[i]);
      x[row[i]] = at;
    }
    for (std::size_t v : row) x[v] -= at / 2;
  }
  std::vector<std::vector<std::size_t>> neighbours(total);
  for (const auto& [u, v] : l.segments) neighbours[u].push_back(v), neighbours[v].push_back(u);
  for (int pass = 0; pass < options.coordinate_passes; ++pass) {
    for (const auto& row : l.rows) {
      std::vector<double> want(row.size());
      for (std::size_t i = 0; i < row.size(); ++i) {
        const auto& nb = neighbours[row[i]];
        want[i] = nb.empty() ? x[row[i]]
                             : std::accumulate(nb.begin(), nb.end(), 0.0,
                                               [&](double s, std::size_t v) { return s + x[v]; }) /
                                   static_cast<double>(nb.size());
      }
      // Left to right at the minimum gap, then the whole row shifted so that on average
      // nodes sit where their neighbours want them.
      double shift = 0;
      for (std::size_t i = 0; i < row.size(); ++i) {
        x[row[i]] = i == 0 ? want[i] : std::max(want[i], x[row[i - 1]] + gap(row[i - 1], row[i]));
        shift += want[i] - x[row[i]];
      }
      if (!row.empty()) shift /= static_cast<double>(row.size());
      for (std::size_t v : row) x[v] += shift;
    }
  }
  Layout out;
  out.layer.assign(l.layer.begin(), l.layer.begin() + static_cast<long>(n));
  out.layer_count = l.rows.size();
  out.crossings = count_crossings(l);
  auto point = [&](std::size_t v) {
    return Point{x[v], static_cast<double>(l.layer[v]) * options.layer_gap};
  };
  for (std::size_t v = 0; v < n; ++v) out.position.push_back(point(v));
  for (const auto& chain : l.chains) {
    std::vector<Point> route;
    for (std::size_t v : chain)
      if (v < total) route.push_back(point(v));
    out.edge_routes.push_back(std::move(route));
  }
  return out;
}

}  // namespace tilesight::ui::layout
