#include "tilesight/net/network_hierarchy.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

namespace tilesight::net {

namespace {
// Routes minimise α + β·1 MiB: bandwidth decides between paths of equal hop count (NVLink
// over the NIC inside a node), latency between equally fast ones.
constexpr double kRoutingBytes = 1024.0 * 1024.0;

double routing_cost(const LinkType& t) {
  return t.alpha_s[static_cast<std::size_t>(Protocol::kSimple)] + kRoutingBytes / (t.bandwidth * t.efficiency);
}

// Dijkstra from node `from` over the links not `excluded`; devices other than `from` are not
// transit nodes (a GPU never forwards another GPU's traffic).
struct PathSearch {
  std::vector<double> dist;
  std::vector<std::size_t> via;  // the link into each node on its least-cost path
};

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

PathSearch search_from(std::size_t from, const std::vector<NetworkNode>& nodes, const std::vector<LinkType>& types,
                       const std::vector<Link>& links, const std::vector<std::vector<std::size_t>>& out,
                       const std::vector<bool>& excluded) {
  PathSearch p{std::vector<double>(nodes.size(), std::numeric_limits<double>::infinity()),
               std::vector<std::size_t>(nodes.size(), kNone)};
  using Item = std::pair<double, std::size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  p.dist[from] = 0;
  queue.push({0.0, from});
  while (!queue.empty()) {
    auto [cost, node] = queue.top();
    queue.pop();
    if (cost > p.dist[node]) continue;
    if (nodes[node].device && node != from) continue;
    for (std::size_t l : out[node]) {
      if (excluded[l]) continue;
      const double next = cost + routing_cost(types[links[l].type]);
      const std::size_t to = links[l].to;
      if (next < p.dist[to]) {
        p.dist[to] = next;
        p.via[to] = l;
        queue.push({next, to});
      }
    }
  }
  return p;
}

Route trace(const PathSearch& p, const std::vector<Link>& links, std::size_t from, std::size_t to) {
  Route r;
  for (std::size_t node = to; node != from; node = links[p.via[node]].from) r.insert(r.begin(), p.via[node]);
  return r;
}

// Parallel rails are few (NCCL drives at most a handful of NICs per GPU); the cap bounds the
// search on a pathological custom topology.
constexpr std::size_t kMaxParallelRoutes = 16;

}  // namespace

std::string link_class_name(LinkClass c) {
  switch (c) {
    case LinkClass::kNvlink: return "nvlink";
    case LinkClass::kPcie: return "pcie";
    case LinkClass::kNet: return "net";
  }
  return "nvlink";
}

double LinkType::beta(Collective c, Protocol p) const {
  return 1.0 / (bandwidth * efficiency * protocol_bandwidth_fraction(c, p));
}

Result<NetworkHierarchy> NetworkHierarchy::build(std::vector<NetworkNode> nodes, std::vector<LinkType> types,
                                                 std::vector<Link> links) {
  NetworkHierarchy h;
  h.nodes_ = std::move(nodes);
  h.types_ = std::move(types);
  h.links_ = std::move(links);
  for (std::size_t i = 0; i < h.nodes_.size(); ++i)
    if (h.nodes_[i].device) h.devices_.push_back(i);
  const std::size_t d = h.devices_.size();
  std::vector<std::vector<std::size_t>> out(h.nodes_.size());
  for (std::size_t l = 0; l < h.links_.size(); ++l) out[h.links_[l].from].push_back(l);

  Errors errors;
  h.routes_.assign(d * d, {});
  const std::vector<bool> none(h.links_.size(), false);
  for (std::size_t s = 0; s < d; ++s) {
    const std::size_t from = h.devices_[s];
    const PathSearch first = search_from(from, h.nodes_, h.types_, h.links_, out, none);
    h.routes_[s * d + s] = {Route{}};  // a device to itself: no links
    for (std::size_t t = 0; t < d; ++t) {
      if (s == t) continue;
      const std::size_t to = h.devices_[t];
      if (first.via[to] == kNone) {
        errors.push_back({"links", h.nodes_[from].name + " cannot reach " + h.nodes_[to].name});
        continue;
      }
      Routes& routes = h.routes_[s * d + t];
      routes.push_back(trace(first, h.links_, from, to));
      // Further routes as cheap as the first that share none of its (or each other's) links.
      std::vector<bool> used = none;
      while (routes.size() < kMaxParallelRoutes) {
        for (std::size_t l : routes.back()) used[l] = true;
        const PathSearch next = search_from(from, h.nodes_, h.types_, h.links_, out, used);
        if (next.via[to] == kNone || next.dist[to] > first.dist[to] * (1 + 1e-9)) break;
        routes.push_back(trace(next, h.links_, from, to));
      }
    }
  }
  if (!errors.empty()) return errors;
  return h;
}

double NetworkHierarchy::route_latency(const Route& r, Protocol p) const {
  double sum = 0;
  for (std::size_t l : r) sum += type_of(l).alpha_s[static_cast<std::size_t>(p)];
  return sum;
}

double NetworkHierarchy::launch_latency(Collective c, Protocol p) const {
  const double p2p = p2p_launch_s_[static_cast<std::size_t>(p)];
  return runs_p2p(c) && p2p >= 0 ? p2p : launch_latency(p);
}

std::vector<std::size_t> NetworkHierarchy::nodes_of(const std::vector<std::size_t>& group) const {
  std::vector<std::size_t> node(group.size(), 0), first;  // first: a representative rank per node
  for (std::size_t r = 0; r < group.size(); ++r) {
    std::size_t k = 0;
    for (; k < first.size(); ++k) {
      const Route& route = this->route(group[first[k]], group[r]);
      if (std::none_of(route.begin(), route.end(), [&](std::size_t l) { return type_of(l).link_class == LinkClass::kNet; }))
        break;
    }
    if (k == first.size()) first.push_back(r);
    node[r] = k;
  }
  return node;
}

Result<NetworkHierarchy> NetworkHierarchy::rebuilt(std::vector<NetworkNode> nodes, std::vector<LinkType> types,
                                                   std::vector<Link> links) const {
  auto h = build(std::move(nodes), std::move(types), std::move(links));
  if (!h) return h;
  NetworkHierarchy& out = h.value();
  out.launch_s_ = launch_s_;
  out.p2p_launch_s_ = p2p_launch_s_;
  out.channels_ = channels_;
  out.tuner_ = tuner_;
  return h;
}

}  // namespace tilesight::net
