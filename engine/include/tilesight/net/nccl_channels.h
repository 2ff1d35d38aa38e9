// NCCL's channels (issue 7: "NCCL's achieved bandwidth differs by collective and protocol").
// A channel is one CTA that moves one slice of the buffer; a GPU sends no faster than its
// channels do, whatever the links allow. Two facts, both measured on the system
// (tests/validation/h200x2/nccl_channels.py, the system profile's "nccl_channels"):
//
//  - how many channels NCCL runs: ring collectives add a channel per `bytes_per_channel`
//    of the buffer (its thread threshold times threads per CTA) up to `ring`; send/recv and
//    all-to-all run `p2p` channels;
//  - what k channels send per second per GPU, per collective and protocol (nccl-tests'
//    busbw with k forced through NCCL's min/max CTAs). Channels slow each other through what
//    they share: a channel's rate, as a share f of a lone channel's, falls with the
//    aggregate rate X of them all. f(X) comes from the collective's Simple points; a
//    protocol's k channels reach the X that solves X = k · lone_p · f(X), lone_p being its
//    own one-channel rate (LL and LL128 points past one channel are then checks: 16 LL128
//    channels of all_gather, 186 GB/s from this rule, 188 measured).
//
// Where the rates were also measured across message sizes (`send_gbps_by_bytes`,
// tests/validation/h200x2/channel_sizes.py), the curve of each measured size gives k
// channels' rate at that size by the same rule, and a size between two measured ones takes
// the rate interpolated in log(bytes) (clamped at the ends): many channels reach less of
// their rate on small buffers and keep gaining up to 4 GiB (32 Simple all_gather channels:
// 176 GB/s at 16 MiB, 263 at 64 MiB, 336 at 4 GiB; 4 channels: flat from 64 MiB).
//
// The bound enters a stage as T >= bytes a device sends / send_rate (stage_cost.h).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/net/protocol.h"
#include "tilesight/util/result.h"

namespace tilesight::net {

struct ChannelRate {
  double channels = 0;
  double bytes_per_s = 0;  // what a GPU sends with that many channels
};

// One measured size: the collective's [channels, rate] points at that buffer size.
struct SizedRates {
  double bytes = 0;  // nccl-tests' size
  std::vector<ChannelRate> points;
};

struct NcclChannels {
  std::int64_t ring = 0;  // channels of ring collectives at full size (0: not measured)
  std::int64_t p2p = 0;   // channels of send/recv and all-to-all
  std::array<double, kProtocolCount> bytes_per_channel{};  // buffer bytes per ring channel
  std::map<std::pair<Collective, Protocol>, std::vector<ChannelRate>> rates;  // sorted by channels
  std::map<std::pair<Collective, Protocol>, std::vector<SizedRates>> by_bytes;  // sorted by bytes

  bool measured() const { return ring > 0; }

  // Channels NCCL runs for a collective of `bytes` (nccl-tests' size) with protocol p.
  std::int64_t channels(Collective c, Protocol p, double bytes) const;

  // Bytes per second a GPU's `channels` send for (c, p). A protocol without its own
  // measurement takes the collective's Simple rate times NCCL's tuner share
  // (protocol_bandwidth_fraction); nullopt where the collective has no measurement (then
  // NCCL's tuner shares stand for the channel limit on the links, stage_cost.h). With
  // `bytes` > 0 and sized rates for (c, p), the rate at that buffer size.
  std::optional<double> send_rate(Collective c, Protocol p, std::int64_t channels, double bytes = 0) const;
};

// Reads the system profile's "nccl_channels" object (errors name the JSON path):
//   {"ring": 24, "p2p": 32, "bytes_per_channel": {"LL": 8192, "LL128": 5120, "Simple": 32768},
//    "send_gbps": {"all_gather": {"Simple": [[1, 15.2], [2, 30.4], ...], "LL": [...]}, ...},
//    "send_gbps_by_bytes": {"all_gather": {"Simple": [{"bytes": 16777216, "gbps": [[1, 15.2], ...]},
//                                                     ...]}, ...},
//    "source": "..."}
std::optional<NcclChannels> read_nccl_channels(const nlohmann::json& obj, const std::string& path,
                                               std::string& source, Errors& errors);

}  // namespace tilesight::net
