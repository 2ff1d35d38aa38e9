#include "tilesight/net/nccl_channels.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::net {

namespace {

constexpr std::int64_t kMaxChannels = 1024;

// Channels slow each other through what they share: one channel's rate, as a share f of the
// lone channel's, falls with the aggregate rate X of all of them. f(X) is read off the
// collective's Simple points (X_k, (X_k / k) / (X_1 / 1)), linear between them, flat below
// the first, continued along the last segment past the last (never below 1%).
double share_at(const std::vector<ChannelRate>& curve, double x) {
  const double lone = curve.front().bytes_per_s / curve.front().channels;
  auto f = [&](std::size_t i) { return curve[i].bytes_per_s / curve[i].channels / lone; };
  if (curve.size() == 1 || x <= curve.front().bytes_per_s) return f(0);
  std::size_t i = 1;
  while (i + 1 < curve.size() && x > curve[i].bytes_per_s) ++i;
  const double x0 = curve[i - 1].bytes_per_s, x1 = curve[i].bytes_per_s;
  const double w = x1 > x0 ? (x - x0) / (x1 - x0) : 0.0;
  return std::max(0.01, f(i - 1) + w * (f(i) - f(i - 1)));
}

// The aggregate rate k channels of lone rate `lone` reach: X = k · lone · f(X), found by
// bisection (g(X) = X - k·lone·f(X) rises with X).
double aggregate_rate(const std::vector<ChannelRate>& curve, double lone, double k) {
  double top = k * lone, fmax = 1.0;
  for (std::size_t i = 0; i < curve.size(); ++i) fmax = std::max(fmax, share_at(curve, curve[i].bytes_per_s));
  double lo = 0, hi = top * fmax;
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    (mid - top * share_at(curve, mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::vector<ChannelRate> read_points(const nlohmann::json& arr, const std::string& path, Errors& errors) {
  std::vector<ChannelRate> pts;
  if (!arr.is_array() || arr.empty()) {
    errors.push_back({path, "must be a non-empty list of [channels, GB/s] pairs, got " + json_type_phrase(arr)});
    return pts;
  }
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = path + "[" + std::to_string(i) + "]";
    if (!arr[i].is_array() || arr[i].size() != 2) {
      errors.push_back({p, "must be a [channels, GB/s] pair"});
      continue;
    }
    const auto k = json_integer(arr[i][0], p + "[0]", 1, kMaxChannels, errors);
    const auto gbps = json_number(arr[i][1], p + "[1]", 1e-3, 1e5, errors);
    if (!k || !gbps) continue;
    if (!pts.empty() && static_cast<double>(*k) <= pts.back().channels) {
      errors.push_back({p + "[0]", "channel counts must rise from pair to pair"});
      continue;
    }
    pts.push_back({static_cast<double>(*k), *gbps * 1e9});
  }
  return pts;
}

// The "send_gbps_by_bytes" list of one collective and protocol: sizes rising, each with its
// [channels, GB/s] points.
std::vector<SizedRates> read_sized(const nlohmann::json& arr, const std::string& path, Errors& errors) {
  std::vector<SizedRates> out;
  if (!arr.is_array() || arr.empty()) {
    errors.push_back({path, "must be a non-empty list of {\"bytes\", \"gbps\"} objects, got " +
                                json_type_phrase(arr)});
    return out;
  }
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = path + "[" + std::to_string(i) + "]";
    if (!expect_object(arr[i], p, errors)) continue;
    FieldReader r{arr[i], p, errors};
    r.reject_unknown({"bytes", "gbps"});
    const auto bytes = r.number("bytes", 1, 1e15);
    if (!r.present("gbps", true)) continue;
    auto points = read_points(arr[i].at("gbps"), r.field_path("gbps"), errors);
    if (!bytes || points.empty()) continue;
    if (!out.empty() && *bytes <= out.back().bytes) {
      errors.push_back({r.field_path("bytes"), "sizes must rise from entry to entry"});
      continue;
    }
    out.push_back({*bytes, std::move(points)});
  }
  return out;
}

// A table keyed by collective, then protocol ({"all_gather": {"Simple": ...}}): `read` gets
// each entry with its JSON path; unknown names are errors naming the field.
template <typename Read>
void for_each_rate_list(const nlohmann::json& table, const std::string& path, Errors& errors, Read read) {
  for (const auto& [cname, by_proto] : table.items()) {
    const std::string cpath = nest(path, cname);
    const auto c = collective_from_name(cname);
    if (!c) {
      errors.push_back({cpath, "unknown collective \"" + cname + "\"; known: all_gather, reduce_scatter, "
                                                                  "all_reduce, all_to_all, send_recv"});
      continue;
    }
    if (!expect_object(by_proto, cpath, errors)) continue;
    for (const auto& [pname, entry] : by_proto.items()) {
      const auto p = protocol_from_name(pname);
      if (!p) {
        errors.push_back({nest(cpath, pname), "unknown protocol \"" + pname + "\"; known: LL, LL128, Simple"});
        continue;
      }
      read(*c, *p, entry, nest(cpath, pname));
    }
  }
}

// k channels' rate at one measured size: that size's points, its first point the lone rate.
double sized_rate(const SizedRates& s, double k) {
  return aggregate_rate(s.points, s.points.front().bytes_per_s / s.points.front().channels, k);
}

}  // namespace

std::int64_t NcclChannels::channels(Collective c, Protocol p, double bytes) const {
  if (runs_p2p(c)) return std::max<std::int64_t>(p2p, 1);
  const double per = bytes_per_channel[static_cast<std::size_t>(p)];
  if (per <= 0) return std::max<std::int64_t>(ring, 1);
  const double k = std::floor(bytes / per);
  return static_cast<std::int64_t>(std::clamp(k, 1.0, static_cast<double>(std::max<std::int64_t>(ring, 1))));
}

std::optional<double> NcclChannels::send_rate(Collective c, Protocol p, std::int64_t k, double bytes) const {
  if (const auto sized = by_bytes.find({c, p}); bytes > 0 && sized != by_bytes.end()) {
    const std::vector<SizedRates>& s = sized->second;
    const double kk = static_cast<double>(k);
    if (bytes <= s.front().bytes) return sized_rate(s.front(), kk);
    if (bytes >= s.back().bytes) return sized_rate(s.back(), kk);
    std::size_t i = 1;
    while (bytes > s[i].bytes) ++i;
    const double w = std::log(bytes / s[i - 1].bytes) / std::log(s[i].bytes / s[i - 1].bytes);
    return (1 - w) * sized_rate(s[i - 1], kk) + w * sized_rate(s[i], kk);
  }
  const auto own = rates.find({c, p});
  const auto simple = rates.find({c, Protocol::kSimple});
  if (own == rates.end() && simple == rates.end()) return std::nullopt;
  const std::vector<ChannelRate>& curve = simple != rates.end() ? simple->second : own->second;
  // The lone channel: the protocol's own first point, else Simple's times NCCL's tuner share.
  const double lone = own != rates.end()
                          ? own->second.front().bytes_per_s / own->second.front().channels
                          : curve.front().bytes_per_s / curve.front().channels * protocol_bandwidth_fraction(c, p);
  return aggregate_rate(curve, lone, static_cast<double>(k));
}

std::optional<NcclChannels> read_nccl_channels(const nlohmann::json& obj, const std::string& path,
                                               std::string& source, Errors& errors) {
  if (!expect_object(obj, path, errors)) return std::nullopt;
  const std::size_t before = errors.size();
  FieldReader r{obj, path, errors};
  r.reject_unknown({"ring", "p2p", "bytes_per_channel", "send_gbps", "send_gbps_by_bytes", "source", "notes"});
  NcclChannels out;
  out.ring = r.integer("ring", 1, kMaxChannels).value_or(0);
  out.p2p = r.integer("p2p", 1, kMaxChannels).value_or(0);
  source = r.string("source").value_or("");
  if (r.has("source") && source.empty()) errors.push_back({r.field_path("source"), "must not be empty"});
  if (const nlohmann::json* per = r.object("bytes_per_channel")) {
    FieldReader pr{*per, r.field_path("bytes_per_channel"), errors};
    pr.reject_unknown({"LL", "LL128", "Simple"});
    for (Protocol p : kAllProtocols) {
      const std::string key(protocol_name(p));
      out.bytes_per_channel[static_cast<std::size_t>(p)] = pr.number(key.c_str(), 1, 1e12).value_or(0);
    }
  }
  if (const nlohmann::json* send = r.object("send_gbps"))
    for_each_rate_list(*send, r.field_path("send_gbps"), errors,
                       [&](Collective c, Protocol p, const nlohmann::json& pts, const std::string& at) {
      auto points = read_points(pts, at, errors);
      if (!points.empty()) out.rates[{c, p}] = std::move(points);
    });
  if (const nlohmann::json* sized = r.object("send_gbps_by_bytes", false))
    for_each_rate_list(*sized, r.field_path("send_gbps_by_bytes"), errors,
                       [&](Collective c, Protocol p, const nlohmann::json& list, const std::string& at) {
      auto sizes = read_sized(list, at, errors);
      if (!sizes.empty()) out.by_bytes[{c, p}] = std::move(sizes);
    });
  if (errors.size() != before) return std::nullopt;
  return out;
}

}  // namespace tilesight::net
