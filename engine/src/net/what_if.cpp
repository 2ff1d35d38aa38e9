#include "tilesight/net/what_if.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::net {

namespace {

Result<std::size_t> type_index(const NetworkHierarchy& net, const std::string& type) {
  const auto& types = net.link_types();
  for (std::size_t i = 0; i < types.size(); ++i)
    if (types[i].name == type) return i;
  std::string known;
  for (const auto& t : types) known += (known.empty() ? "" : ", ") + t.name;
  return Error{"", "unknown link type \"" + type + "\"; this system has: " + known};
}

bool has_links_of(const NetworkHierarchy& net, std::size_t type) {
  return std::any_of(net.links().begin(), net.links().end(), [&](const Link& l) { return l.type == type; });
}

// A node name not yet taken: base, else base2, base3, ...
std::string unused_name(const std::vector<NetworkNode>& nodes, const std::string& base) {
  auto taken = [&](const std::string& n) {
    return std::any_of(nodes.begin(), nodes.end(), [&](const NetworkNode& x) { return x.name == n; });
  };
  if (!taken(base)) return base;
  for (int i = 2;; ++i)
    if (!taken(base + std::to_string(i))) return base + std::to_string(i);
}

// The both-way link pair between nodes a and b, named as system profiles name links.
void connect(std::vector<Link>& links, const std::vector<NetworkNode>& nodes, std::size_t a, std::size_t b,
             std::size_t type, const std::string& suffix = "") {
  links.push_back({nodes[a].name + "->" + nodes[b].name + suffix, a, b, type});
  links.push_back({nodes[b].name + "->" + nodes[a].name + suffix, b, a, type});
}

}  // namespace

Result<NetworkHierarchy> scale_links(const NetworkHierarchy& net, const std::string& type, double factor) {
  auto t = type_index(net, type);
  if (!t) return t.errors();
  std::vector<LinkType> types = net.link_types();
  types[*t].bandwidth *= factor;
  return net.rebuilt(net.nodes(), std::move(types), net.links());
}

Result<NetworkHierarchy> add_rail(const NetworkHierarchy& net, const std::string& type, int rails) {
  auto t = type_index(net, type);
  if (!t) return t.errors();
  if (!has_links_of(net, *t)) return Error{"", "no links of type \"" + type + "\" to add a rail to"};
  std::vector<NetworkNode> nodes = net.nodes();
  std::vector<Link> links = net.links();
  // The rail's switches: those a device reaches over this type.
  std::set<std::size_t> level;
  for (const Link& l : net.links())
    if (l.type == *t && nodes[l.from].device && !nodes[l.to].device) level.insert(l.to);
  for (int r = 2; r < rails + 2; ++r) {
    std::map<std::size_t, std::size_t> twin;  // switch -> its copy in rail r
    for (std::size_t sw : level) {
      twin[sw] = nodes.size();
      nodes.push_back({unused_name(nodes, nodes[sw].name + "_rail" + std::to_string(r)), false});
    }
    auto end = [&](std::size_t n) { return twin.count(n) ? twin.at(n) : n; };
    for (const Link& l : net.links()) {
      if (l.type != *t || l.from > l.to) continue;  // each pair once, from its lower end
      const bool direct = nodes[l.from].device && nodes[l.to].device;
      if (!direct && !twin.count(l.from) && !twin.count(l.to)) continue;  // beyond the rail's switches
      connect(links, nodes, end(l.from), end(l.to), *t, direct ? " (rail " + std::to_string(r) + ")" : "");
    }
  }
  return net.rebuilt(std::move(nodes), net.link_types(), std::move(links));
}

Result<NetworkHierarchy> add_level(const NetworkHierarchy& net, const std::string& type) {
  auto t = type_index(net, type);
  if (!t) return t.errors();
  std::vector<NetworkNode> nodes = net.nodes();
  std::vector<Link> links = net.links();
  const std::size_t hub = nodes.size();
  nodes.push_back({unused_name(nodes, type + "_level"), false});
  for (std::size_t n = 0; n < hub; ++n)
    if (nodes[n].device) connect(links, nodes, n, hub, *t);
  return net.rebuilt(std::move(nodes), net.link_types(), std::move(links));
}

Result<NetworkHierarchy> remove_level(const NetworkHierarchy& net, const std::string& type) {
  auto t = type_index(net, type);
  if (!t) return t.errors();
  std::vector<Link> links;
  for (const Link& l : net.links())
    if (l.type != *t) links.push_back(l);
  auto out = net.rebuilt(net.nodes(), net.link_types(), std::move(links));
  if (!out) return Error{"", "without " + type + ", " + out.errors().front().message};
  return out;
}

Result<TopologyWhatIf> parse_what_if(const nlohmann::json& w) {
  Errors errors;
  if (!expect_object(w, "what_if", errors)) return errors;
  FieldReader f{w, "what_if", errors};
  f.reject_unknown({"remove_level", "add_level", "add_rail", "bandwidth_scale"});
  TopologyWhatIf out;
  for (const char* key : {"remove_level", "add_level"}) {
    if (!f.has(key)) continue;
    const nlohmann::json* list = f.array(key);
    if (!list) continue;
    auto& into = std::string_view(key) == "remove_level" ? out.remove_level : out.add_level;
    for (std::size_t i = 0; i < list->size(); ++i) {
      if ((*list)[i].is_string())
        into.push_back((*list)[i].get<std::string>());
      else
        errors.push_back({f.field_path(key) + "[" + std::to_string(i) + "]",
                          "must be a link type name, got " + json_type_phrase((*list)[i])});
    }
  }
  if (f.has("add_rail"))
    if (const nlohmann::json* rails = f.object("add_rail"))
      for (const auto& [type, count] : rails->items())
        if (auto n = json_integer(count, nest("what_if.add_rail", type), 1, 7, errors)) out.add_rail[type] = static_cast<int>(*n);
  if (f.has("bandwidth_scale"))
    if (const nlohmann::json* scale = f.object("bandwidth_scale"))
      for (const auto& [type, factor] : scale->items())
        if (auto x = json_number(factor, nest("what_if.bandwidth_scale", type), 1e-3, 1e3, errors))
          out.bandwidth_scale[type] = *x;
  if (!errors.empty()) return errors;
  return out;
}

Result<NetworkHierarchy> apply_what_if(const NetworkHierarchy& net, const TopologyWhatIf& w) {
  NetworkHierarchy now = net;
  Errors errors;
  // One step: on success the hierarchy moves on, on failure the error takes the field's path.
  auto step = [&](Result<NetworkHierarchy> next, const std::string& path) {
    if (next)
      now = std::move(next).value();
    else
      errors.push_back({path, next.errors().front().message});
  };
  for (std::size_t i = 0; i < w.remove_level.size(); ++i)
    step(remove_level(now, w.remove_level[i]), "what_if.remove_level[" + std::to_string(i) + "]");
  for (std::size_t i = 0; i < w.add_level.size(); ++i)
    step(add_level(now, w.add_level[i]), "what_if.add_level[" + std::to_string(i) + "]");
  for (const auto& [type, count] : w.add_rail)
    step(add_rail(now, type, count), nest("what_if.add_rail", type));
  for (const auto& [type, factor] : w.bandwidth_scale)
    step(scale_links(now, type, factor), nest("what_if.bandwidth_scale", type));
  if (!errors.empty()) return errors;
  return now;
}

std::vector<TopologyVariant> topology_variants(const NetworkHierarchy& net) {
  std::vector<TopologyVariant> out;
  std::set<std::string> types;
  for (const Link& l : net.links()) types.insert(net.link_types()[l.type].name);
  for (const auto& type : types)
    out.push_back({"+1 " + type + " rail", {{"add_rail", {{type, 1}}}}});
  for (const auto& type : types)
    if (remove_level(net, type)) out.push_back({"without " + type, {{"remove_level", nlohmann::json::array({type})}}});
  std::vector<std::size_t> all(net.device_count());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const auto node = net.nodes_of(all);
  const bool several_nodes = std::any_of(node.begin(), node.end(), [](std::size_t n) { return n > 0; });
  for (const auto& type : types) {
    auto t = type_index(net, type);
    if (!several_nodes || net.link_types()[*t].link_class != LinkClass::kNvlink) continue;
    out.push_back({type + " over all " + std::to_string(net.device_count()) + " GPUs",
                   {{"remove_level", nlohmann::json::array({type})}, {"add_level", nlohmann::json::array({type})}}});
  }
  return out;
}

}  // namespace tilesight::net
