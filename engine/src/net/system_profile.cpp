// System profiles (docs/network-model.md): parsing collects every error with its JSON path.
#include "tilesight/net/system_profile.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <regex>

#include <nlohmann/json.hpp>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/util/data_dir.h"
#include "tilesight/util/json_input.h"

namespace tilesight::net {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::int64_t kMaxNodes = 4096;

// A number, or {"value": v, "source": "..."}; the source lands in spec.sources[path].
class SourcedReader {
 public:
  SourcedReader(std::optional<std::string> fallback, SystemSpec& spec, Errors& errors)
      : fallback_(std::move(fallback)), spec_(spec), errors_(errors) {}

  std::optional<double> read(const json& leaf, const std::string& path, double min, double max) {
    std::string source;
    std::optional<double> v;
    if (leaf.is_object()) {
      FieldReader r{leaf, path, errors_};
      r.reject_unknown({"value", "source"});
      v = r.number("value", min, max);
      if (auto s = r.string("source")) source = *s;
    } else {
      v = json_number(leaf, path, min, max, errors_);
      if (v && !fallback_) {
        errors_.push_back({path, "has no source: write {\"value\": ..., \"source\": \"...\"} or set default_source"});
        return std::nullopt;
      }
      source = fallback_.value_or("");
    }
    if (v && source.empty()) {
      errors_.push_back({nest(path, "source"), "must not be empty"});
      return std::nullopt;
    }
    if (v) spec_.sources[path] = source;
    return v;
  }

  std::optional<std::string> fallback_;

 private:
  SystemSpec& spec_;
  Errors& errors_;
};

// "gpu[0-7]" -> gpu0..gpu7; anything else is itself.
std::optional<std::vector<std::string>> expand(const std::string& pattern, const std::string& path, Errors& errors) {
  static const std::regex range(R"(^([A-Za-z_][A-Za-z0-9_]*)\[(\d+)-(\d+)\]$)");
  std::smatch m;
  if (!std::regex_match(pattern, m, range)) return std::vector<std::string>{pattern};
  const long first = std::stol(m[2]), last = std::stol(m[3]);
  if (last < first || last - first >= kMaxNodes) {
    errors.push_back({path, "range \"" + pattern + "\" must run upwards and name at most 4096 nodes"});
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (long i = first; i <= last; ++i) out.push_back(m[1].str() + std::to_string(i));
  return out;
}

std::optional<LinkClass> link_class_from_name(const std::string& s) {
  for (LinkClass c : {LinkClass::kNvlink, LinkClass::kPcie, LinkClass::kNet})
    if (link_class_name(c) == s) return c;
  return std::nullopt;
}

void read_alpha(const json& obj, const std::string& path, LinkType& t, SystemSpec& spec, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"LL", "LL128", "Simple", "source"});
  const auto source = r.string("source");
  for (Protocol p : kAllProtocols) {
    const std::string key(protocol_name(p));
    if (auto us = r.number(key.c_str(), 0, 1e6)) t.alpha_s[static_cast<std::size_t>(p)] = *us * 1e-6;
  }
  if (source && source->empty()) errors.push_back({nest(path, "source"), "must not be empty"});
  if (source) spec.sources[path] = *source;
}

LinkType read_link_type(const std::string& name, const json& obj, const std::string& path, SourcedReader& leaves,
                        SystemSpec& spec, Errors& errors) {
  LinkType t;
  t.name = name;
  if (!expect_object(obj, path, errors)) return t;
  FieldReader r{obj, path, errors};
  r.reject_unknown({"class", "bandwidth", "efficiency", "alpha_us", "notes"});
  if (auto c = r.string("class")) {
    if (auto lc = link_class_from_name(*c)) t.link_class = *lc;
    else errors.push_back({r.field_path("class"), "unknown link class \"" + *c + "\"; known: nvlink, pcie, net"});
  }
  if (r.present("bandwidth", true))
    t.bandwidth = leaves.read(obj.at("bandwidth"), r.field_path("bandwidth"), 1, 1e15).value_or(0);
  if (r.present("efficiency", true))
    t.efficiency = leaves.read(obj.at("efficiency"), r.field_path("efficiency"), 0.01, 1).value_or(1);
  if (const json* alpha = r.object("alpha_us")) read_alpha(*alpha, r.field_path("alpha_us"), t, spec, errors);
  return t;
}

// "launch_us": {"LL": .., "LL128": .., "Simple": .., "source": ".."}: a collective's fixed
// launch cost per protocol; protocols left out keep NCCL's model constant.
void read_launch(const json& obj, const std::string& path, std::array<std::optional<double>, kProtocolCount>& out,
                 SystemSpec& spec, Errors& errors) {
  FieldReader r{obj, path, errors};
  r.reject_unknown({"LL", "LL128", "Simple", "source"});
  const auto source = r.string("source");
  for (Protocol p : kAllProtocols) {
    const std::string key(protocol_name(p));
    if (r.has(key.c_str()))
      if (auto us = r.number(key.c_str(), 0, 1e6)) out[static_cast<std::size_t>(p)] = *us * 1e-6;
  }
  if (source && source->empty()) errors.push_back({nest(path, "source"), "must not be empty"});
  if (source) spec.sources[path] = *source;
}

struct Parsed {
  std::vector<NetworkNode> nodes;
  std::vector<LinkType> types;
  std::vector<Link> links;
};

std::optional<std::size_t> find_node(const Parsed& p, const std::string& name) {
  for (std::size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].name == name) return i;
  return std::nullopt;
}

void read_links(const json& arr, Parsed& p, Errors& errors) {
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string path = "links[" + std::to_string(i) + "]";
    if (!expect_object(arr[i], path, errors)) continue;
    FieldReader r{arr[i], path, errors};
    r.reject_unknown({"between", "type"});
    const auto type = r.string("type");
    const json* between = r.array("between");
    if (!type || !between) continue;
    auto t = std::find_if(p.types.begin(), p.types.end(), [&](const LinkType& lt) { return lt.name == *type; });
    if (t == p.types.end()) {
      errors.push_back({r.field_path("type"), "unknown link type \"" + *type + "\" (not in link_types)"});
      continue;
    }
    if (between->size() != 2 || !(*between)[0].is_string() || !(*between)[1].is_string()) {
      errors.push_back({r.field_path("between"), "must be two node names, e.g. [\"gpu[0-7]\", \"nvswitch\"]"});
      continue;
    }
    auto a = expand((*between)[0].get<std::string>(), nest(r.field_path("between"), "[0]"), errors);
    auto b = expand((*between)[1].get<std::string>(), nest(r.field_path("between"), "[1]"), errors);
    if (!a || !b) continue;
    if (a->size() != b->size() && a->size() != 1 && b->size() != 1) {
      errors.push_back({r.field_path("between"), "lists of " + std::to_string(a->size()) + " and " +
                                                     std::to_string(b->size()) + " nodes cannot be paired"});
      continue;
    }
    const std::size_t count = std::max(a->size(), b->size());
    for (std::size_t k = 0; k < count; ++k) {
      const std::string& na = (*a)[a->size() == 1 ? 0 : k];
      const std::string& nb = (*b)[b->size() == 1 ? 0 : k];
      const auto ia = find_node(p, na), ib = find_node(p, nb);
      if (!ia || !ib) {
        errors.push_back({r.field_path("between"), "unknown node \"" + (!ia ? na : nb) +
                                                       "\" (devices are gpu0..gpuN-1; switches are listed in \"switches\")"});
        break;
      }
      if (*ia == *ib) {
        errors.push_back({r.field_path("between"), "links " + na + " to itself"});
        break;
      }
      const auto type_index = static_cast<std::size_t>(t - p.types.begin());
      p.links.push_back({na + "->" + nb, *ia, *ib, type_index});
      p.links.push_back({nb + "->" + na, *ib, *ia, type_index});
    }
  }
}

void read_nodes(FieldReader& root, Parsed& p, Errors& errors) {
  const auto devices = root.integer("devices", 2, kMaxNodes);
  for (std::int64_t i = 0; devices && i < *devices; ++i) p.nodes.push_back({"gpu" + std::to_string(i), true});
  const json* switches = root.array("switches", false);
  if (!switches) return;
  for (std::size_t i = 0; i < switches->size(); ++i) {
    const std::string path = "switches[" + std::to_string(i) + "]";
    if (!(*switches)[i].is_string()) {
      errors.push_back({path, "must be a switch name, got " + json_type_phrase((*switches)[i])});
      continue;
    }
    auto names = expand((*switches)[i].get<std::string>(), path, errors);
    for (const auto& n : names.value_or(std::vector<std::string>{})) {
      if (find_node(p, n)) errors.push_back({path, "node \"" + n + "\" is named twice"});
      else p.nodes.push_back({n, false});
    }
  }
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none found" : out;
}

}  // namespace

bool is_system_document(const json& doc) {
  return doc.is_object() && doc.contains("device") && doc.contains("links");
}

Result<SystemSpec> parse_system(const json& doc) {
  if (!doc.is_object()) return Error{"", "a system profile must be a JSON object, got " + json_type_phrase(doc)};
  Errors errors;
  SystemSpec spec;
  FieldReader root{doc, "", errors};
  root.reject_unknown({"name", "display_name", "device", "profile_source", "default_source", "notes", "devices",
                       "switches", "link_types", "links", "launch_us", "p2p_launch_us", "nccl_channels",
                       "nccl_tuner"});
  spec.name = root.string("name").value_or("");
  spec.display_name = root.string("display_name", "").value_or("");
  if (auto src = root.string("profile_source", "datasheet")) {
    if (*src == "measured") spec.profile_source = hw::ProfileSource::kMeasured;
    else if (*src != "datasheet") errors.push_back({"profile_source", "must be \"measured\" or \"datasheet\""});
  }
  const auto device = root.string("device");
  if (device) {
    auto hw = hw::load_profile(*device);
    if (!hw) errors.push_back({"device", "cannot load device profile \"" + *device + "\": " + hw.error_text("; ")});
    else spec.device = std::move(hw).value();
  }
  SourcedReader leaves{root.has("default_source") ? root.string("default_source") : std::nullopt, spec, errors};
  Parsed p;
  read_nodes(root, p, errors);
  if (const json* types = root.object("link_types")) {
    for (const auto& [name, obj] : types->items())
      p.types.push_back(read_link_type(name, obj, nest("link_types", name), leaves, spec, errors));
  }
  if (const json* links = root.array("links")) read_links(*links, p, errors);
  std::array<std::optional<double>, kProtocolCount> launch{};
  if (root.has("launch_us"))
    if (const json* l = root.object("launch_us")) read_launch(*l, "launch_us", launch, spec, errors);
  std::array<std::optional<double>, kProtocolCount> p2p_launch{};
  if (root.has("p2p_launch_us"))
    if (const json* l = root.object("p2p_launch_us")) read_launch(*l, "p2p_launch_us", p2p_launch, spec, errors);
  std::optional<NcclChannels> channels;
  if (root.has("nccl_channels")) {
    std::string source;
    channels = read_nccl_channels(doc.at("nccl_channels"), "nccl_channels", source, errors);
    if (channels) spec.sources["nccl_channels"] = source;
  }
  std::optional<NcclTunerSpec> tuner;
  if (root.has("nccl_tuner")) {
    std::string source;
    tuner = read_nccl_tuner(doc.at("nccl_tuner"), "nccl_tuner", source, errors);
    if (tuner) spec.sources["nccl_tuner"] = source;
  }
  if (!errors.empty()) return errors;
  auto net = NetworkHierarchy::build(std::move(p.nodes), std::move(p.types), std::move(p.links));
  if (!net) return net.errors();
  spec.network = std::move(net).value();
  for (Protocol pr : kAllProtocols)
    if (const auto& secs = launch[static_cast<std::size_t>(pr)]) spec.network.set_launch_latency(pr, *secs);
  for (Protocol pr : kAllProtocols)
    if (const auto& secs = p2p_launch[static_cast<std::size_t>(pr)]) spec.network.set_p2p_launch_latency(pr, *secs);
  if (channels) spec.network.set_channels(std::move(*channels));
  if (tuner) {
    // NCCL's generation from the device's arch ("sm_90"); its intra-node class from the
    // system's GPU links (NVLink unless every non-network link is PCIe).
    const std::string& arch = spec.device.arch;
    if (arch.size() > 3 && arch.starts_with("sm_")) tuner->compute_capability = std::atoi(arch.c_str() + 3);
    tuner->nvlink = std::any_of(spec.network.link_types().begin(), spec.network.link_types().end(),
                                [](const LinkType& t) { return t.link_class == LinkClass::kNvlink; });
    spec.network.set_nccl_tuner(*tuner);
  }
  return spec;
}

std::vector<std::string> list_systems() {
  std::vector<std::string> names;
  for (const auto& name : hw::list_profiles()) {
    const auto dir = data_dir();
    if (!dir) break;
    auto doc = read_json_file((*dir / "hw_profiles" / (name + ".json")).string());
    if (doc && is_system_document(*doc)) names.push_back(name);
  }
  return names;
}

Result<SystemSpec> load_system(const std::string& name_or_path) {
  const bool file = name_or_path.find('/') != std::string::npos ||
                    (name_or_path.size() > 5 && name_or_path.ends_with(".json"));
  fs::path path = name_or_path;
  if (!file) {
    const auto dir = data_dir();
    const auto names = hw::list_profiles();
    if (!dir || std::find(names.begin(), names.end(), name_or_path) == names.end())
      return Error{"", "unknown hardware \"" + name_or_path + "\"; system profiles: " + joined(list_systems())};
    path = *dir / "hw_profiles" / (name_or_path + ".json");
  }
  auto doc = read_json_file(path.string());
  if (!doc) return doc.errors();
  if (!is_system_document(*doc))
    return Error{"", "\"" + name_or_path + "\" is a single-GPU profile; collectives need a system profile (" +
                         joined(list_systems()) + ")"};
  auto spec = parse_system(*doc);
  if (spec) return spec;
  Errors errors = spec.errors();
  for (auto& e : errors) e.message = path.string() + ": " + e.message;
  return errors;
}

Result<SystemSpec> load_one_gpu_system(const std::string& name_or_path) {
  auto gpu = hw::load_profile(name_or_path);
  if (!gpu) return gpu.errors();
  auto network = NetworkHierarchy::build({NetworkNode{.name = "gpu0", .device = true}}, {}, {});
  if (!network) return network.errors();
  SystemSpec s{.name = gpu->name, .display_name = gpu->display_name, .device = *gpu, .network = std::move(network).value()};
  s.profile_source = gpu->profile_source;
  return s;
}

}  // namespace tilesight::net
