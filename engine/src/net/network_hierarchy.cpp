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
  const std::size_t n = h.nodes_.size(), d = h.devices_.size();
  std::vector<std::vector<std::size_t>> out(n);
  for (std::size_t l = 0; l < h.links_.size(); ++l) out[h.links_[l].from].push_back(l);

  Errors errors;
  h.routes_.assign(d * d, {});
  for (std::size_t s = 0; s < d; ++s) {
    // Dijkstra from device s; devices other than s and the destination are not transit nodes.
    std::vector<double> dist(n, std::numeric_limits<double>::infinity());
    std::vector<std::size_t> via(n, std::numeric_limits<std::size_t>::max());
    using Item = std::pair<double, std::size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
    dist[h.devices_[s]] = 0;
    queue.push({0.0, h.devices_[s]});
    while (!queue.empty()) {
      auto [cost, node] = queue.top();
      queue.pop();
      if (cost > dist[node]) continue;
      if (h.nodes_[node].device && node != h.devices_[s]) continue;
      for (std::size_t l : out[node]) {
        const double next = cost + routing_cost(h.types_[h.links_[l].type]);
        const std::size_t to = h.links_[l].to;
        if (next < dist[to]) {
          dist[to] = next;
          via[to] = l;
          queue.push({next, to});
        }
      }
    }
    for (std::size_t t = 0; t < d; ++t) {
      if (s == t) continue;
      std::size_t node = h.devices_[t];
      if (via[node] == std::numeric_limits<std::size_t>::max()) {
        errors.push_back({"links", h.nodes_[h.devices_[s]].name + " cannot reach " + h.nodes_[node].name});
        continue;
      }
      Route r;
      while (node != h.devices_[s]) {
        r.insert(r.begin(), via[node]);
        node = h.links_[via[node]].from;
      }
      h.routes_[s * d + t] = std::move(r);
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

Result<NetworkHierarchy> NetworkHierarchy::with_bandwidth_scaled(const std::string& type_name, double factor) const {
  std::vector<LinkType> types = types_;
  auto it = std::find_if(types.begin(), types.end(), [&](const LinkType& t) { return t.name == type_name; });
  if (it == types.end()) {
    std::string known;
    for (const auto& t : types_) known += (known.empty() ? "" : ", ") + t.name;
    return Error{"", "unknown link type \"" + type_name + "\"; this system has: " + known};
  }
  it->bandwidth *= factor;
  auto scaled = build(nodes_, std::move(types), links_);
  if (scaled) {
    scaled.value().launch_s_ = launch_s_;
    scaled.value().channels_ = channels_;
  }
  return scaled;
}

}  // namespace tilesight::net
