#include "tilesight/net/protocol.h"

namespace tilesight::net {

namespace {
constexpr std::array<std::string_view, kProtocolCount> kProtocolNames = {"LL", "LL128", "Simple"};
constexpr std::array<std::string_view, 5> kCollectiveNames = {"all_gather", "reduce_scatter", "all_reduce",
                                                              "all_to_all", "send_recv"};
}  // namespace

std::string_view protocol_name(Protocol p) { return kProtocolNames[static_cast<std::size_t>(p)]; }

std::optional<Protocol> protocol_from_name(std::string_view s) {
  for (Protocol p : kAllProtocols)
    if (protocol_name(p) == s) return p;
  return std::nullopt;
}

std::string_view collective_name(Collective c) { return kCollectiveNames[static_cast<std::size_t>(c)]; }

std::optional<Collective> collective_from_name(std::string_view s) {
  for (std::size_t i = 0; i < kCollectiveNames.size(); ++i)
    if (kCollectiveNames[i] == s) return static_cast<Collective>(i);
  return std::nullopt;
}

double protocol_bandwidth_fraction(Collective c, Protocol p) {
  switch (p) {
    case Protocol::kLL: return c == Collective::kAllReduce ? 1.0 / 4.0 : 1.0 / 3.0;
    case Protocol::kLL128: return 0.92;
    case Protocol::kSimple: return 1.0;
  }
  return 1.0;
}

double protocol_wire_fraction(Protocol p) {
  switch (p) {
    case Protocol::kLL: return 0.5;
    case Protocol::kLL128: return 120.0 / 128.0;
    case Protocol::kSimple: return 1.0;
  }
  return 1.0;
}

double protocol_base_latency(Protocol p) {
  constexpr std::array<double, kProtocolCount> base_us = {6.6, 14.0, 8.4};
  return base_us[static_cast<std::size_t>(p)] * 1e-6;
}

}  // namespace tilesight::net
