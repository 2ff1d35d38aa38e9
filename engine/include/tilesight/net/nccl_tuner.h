// NCCL's own choice of algorithm and protocol (issue 7: "algorithm choice by message size and
// device count, as NCCL's tuner does"). NCCL does not time the pairs: at init it fills a
// table of a latency (µs) and a bandwidth (GB/s) per collective, algorithm and protocol from
// its topology search (the ring and tree graphs: channels and per-channel bandwidth) and
// fixed constants, and each call runs the pair of least
//     time = latency + bytes / (1000 · bandwidth)        (bytes: nccl-tests' size)
// The model then costs that pair with its own stages (collective_cost.h). Facts, all from
// NCCL's src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime; v2.23 and later) and
// checked against the table NCCL 2.28.9 logged on 2 x H200 (NCCL_DEBUG_SUBSYS=TUNING,
// tests/validation/h200x2/p2p_sizes_log.txt): every one of its 24 ring and tree entries, and
// the protocol of all 54 logged calls (nccl_channels_log.txt), follow from the rules below
// with the logged graphs (ring 12 channels x 30 GB/s, tree 12 x 60 GB/s).
//
// Ring and tree only (NVLink SHARP, CollNet and PAT are off or absent on the systems modelled:
// NCCL_NVLS_ENABLE=0, no SHARP switch, PAT needs one GPU per node). All-to-all and send/recv
// do not go through this table: NCCL's p2p path runs LL when a peer's bytes fit its channels'
// LL threshold (16 KiB per channel, NCCL_P2P_LL_THRESHOLD; a peer's bytes take one channel
// per 64 KiB, so LL exactly when a peer gets at most 16 KiB) and Simple otherwise, never LL128
// (enqueue.cc, addP2pToPlan). p2p_sizes.csv shows it: forcing Simple
// (NCCL_P2P_LL_THRESHOLD=0) slows the 8-32 KiB all-to-alls and leaves the larger ones.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/net/protocol.h"
#include "tilesight/util/result.h"

namespace tilesight::net {

enum class NcclAlgo { kTree, kRing };
std::string_view nccl_algo_name(NcclAlgo a);  // "tree", "ring": the engine's algorithm names

// One graph of NCCL's topology search, as its init log prints it ("Pattern 4, crossNic 0,
// nChannels 12, bw 30.000000/30.000000": channels, bandwidth per channel inside / across nodes).
struct NcclGraph {
  std::int64_t channels = 0;
  double bw_intra_gbps = 0;
  double bw_inter_gbps = 0;
};

struct NcclTunerSpec {
  int compute_capability = 90;  // from the device's arch (sm_90 -> 90)
  bool nvlink = true;           // GPUs of a node talk over NVLink (else PCIe: no LL128, PCI latencies)
  NcclGraph ring;
  NcclGraph tree;
  bool known() const { return ring.channels > 0; }
};

struct NcclTableEntry {
  double latency_us = 0;
  double bandwidth_gbps = 0;  // algorithm bandwidth; 0: NCCL does not run this pair
};

// NCCL's table entry for (collective, algorithm, protocol) on `ranks` GPUs over `nodes` nodes.
// Collectives outside the table (all_to_all, send_recv) and tree for anything but all_reduce
// give bandwidth 0.
NcclTableEntry nccl_table_entry(const NcclTunerSpec& s, Collective c, NcclAlgo a, Protocol p, std::size_t ranks,
                                std::size_t nodes);

// NCCL's predicted time of one call (µs), negative where the pair does not run.
double nccl_predicted_us(const NcclTunerSpec& s, Collective c, NcclAlgo a, Protocol p, std::size_t ranks,
                         std::size_t nodes, double bytes);

struct NcclPick {
  NcclAlgo algorithm = NcclAlgo::kRing;
  Protocol protocol = Protocol::kSimple;
};

// The pair NCCL runs for a ring collective of `bytes`, optionally with the algorithm or the
// protocol fixed (NCCL_ALGO / NCCL_PROTO); nullopt where none runs.
std::optional<NcclPick> nccl_pick(const NcclTunerSpec& s, Collective c, std::size_t ranks, std::size_t nodes,
                                  double bytes, std::optional<NcclAlgo> algorithm = std::nullopt,
                                  std::optional<Protocol> protocol = std::nullopt);

// The protocol of NCCL's p2p path for a peer's bytes (all_to_all: size / ranks; send_recv: size).
inline constexpr double kP2pLLThresholdBytes = 16384;  // NCCL_P2P_LL_THRESHOLD default
Protocol nccl_p2p_protocol(double bytes_per_peer);

// Reads the system profile's "nccl_tuner" object (errors name the JSON path):
//   {"ring": {"channels": 12, "bw_intra_gbps": 30, "bw_inter_gbps": 30},
//    "tree": {"channels": 12, "bw_intra_gbps": 60, "bw_inter_gbps": 60}, "source": "..."}
// compute_capability and nvlink come from the device and the links (system_profile.cpp).
std::optional<NcclTunerSpec> read_nccl_tuner(const nlohmann::json& obj, const std::string& path,
                                             std::string& source, Errors& errors);

}  // namespace tilesight::net
