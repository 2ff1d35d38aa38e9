// NCCL's protocols and the collectives the network model knows (§3.6, DESIGN.md "Net stage
// time"). NCCL's achieved bandwidth differs by protocol and collective: LL sends 8-byte
// words that carry 4 bytes of data and a 4-byte flag; LL128 128-byte lines with 8 bytes of
// flags; Simple plain chunks behind memory fences. So β is per link *and* per
// collective/protocol, and each protocol has its own per-hop and per-launch latency.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace tilesight::net {

enum class Protocol { kLL, kLL128, kSimple };
inline constexpr std::size_t kProtocolCount = 3;
inline constexpr std::array<Protocol, kProtocolCount> kAllProtocols = {Protocol::kLL, Protocol::kLL128,
                                                                       Protocol::kSimple};

enum class Collective { kAllGather, kReduceScatter, kAllReduce, kAllToAll, kSendRecv };

// All-to-all and send/recv run NCCL's p2p kernel (grouped send/recv over the p2p channels),
// the others its ring/tree collective kernels.
inline bool runs_p2p(Collective c) { return c == Collective::kAllToAll || c == Collective::kSendRecv; }

std::string_view protocol_name(Protocol p);  // "LL", "LL128", "Simple"
std::optional<Protocol> protocol_from_name(std::string_view s);
std::string_view collective_name(Collective c);  // "all_gather", ..., "send_recv"
std::optional<Collective> collective_from_name(std::string_view s);

// Fraction of a link's achieved Simple bandwidth that a protocol reaches for a collective.
// Source: NCCL src/graph/tuning.cc (v2.18-2.21, ncclTopoTuneModel): LL is capped at 1/4 of
// the bus bandwidth for all-reduce and 1/3 otherwise; LL128 at 0.92 (120/128 of the line
// carries data, less flag overhead); Simple at 1.
double protocol_bandwidth_fraction(Collective c, Protocol p);

// Share of the bytes on the wire that are payload: LL moves 8-byte words of 4 data bytes
// and a 4-byte flag (1/2); LL128 128-byte lines of which 8 bytes are flags (120/128);
// Simple plain data (1). The link bound of a protocol where NCCL's channels are measured.
double protocol_wire_fraction(Protocol p);

// Fixed cost of one collective launch per protocol, seconds. Source: NCCL tuning.cc
// baseLat, Ring row (LL 6.6, LL128 14.0, Simple 8.4 us). The default of a system profile
// without "launch_us" (NetworkHierarchy::launch_latency).
double protocol_base_latency(Protocol p);

// Where the two numbers above come from, for reports.
inline constexpr const char* kProtocolSource =
    "NCCL src/graph/tuning.cc (v2.18-2.21): baseLat (Ring row) and the LL/LL128 bandwidth caps of ncclTopoTuneModel";

}  // namespace tilesight::net
