// NCCL's latency/bandwidth table and its choice (nccl_tuner.h). Constants: NCCL
// src/graph/tuning.cc, v2.23+ (baseLat, hwLat, llMaxBws, perChMax*Bws, treeCorrectionFactor);
// the hand check against NCCL 2.28.9's logged table is tests/unit/test_nccl_tuner.cpp.
#include "tilesight/net/nccl_tuner.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::net {

namespace {

constexpr std::size_t kLL = 0, kLL128 = 1, kSimple = 2;
using PerProto = std::array<double, kProtocolCount>;

std::size_t idx(Protocol p) { return static_cast<std::size_t>(p); }

// baseLat: fixed start of a call, µs, per protocol.
constexpr PerProto kBaseLatTree = {6.8, 14.0, 8.4};
constexpr PerProto kBaseLatRing = {6.6, 14.0, 8.4};

// hwLat: per ring step or tree level, µs, by the hardware the step crosses.
struct HwLat {
  PerProto tree, ring;
};
constexpr HwLat kHwNvlink = {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}};
constexpr HwLat kHwPci = {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}};
constexpr HwLat kHwNet = {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}};

// Rows by GPU generation (Volta, Ampere, Hopper, Blackwell), columns by node count (1, 2, 3+).
using ByNodes = std::array<double, 3>;
constexpr std::array<ByNodes, 4> kLLMaxBw = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0},
                                              {282.0, 90.0, 70.0}}};
constexpr std::array<ByNodes, 4> kPerChRingLL128 = {{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7},
                                                     {73.4, 73.4, 73.4}}};
constexpr std::array<ByNodes, 4> kPerChTreeLL128 = {{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0},
                                                     {73.4, 73.4, 58.0}}};
constexpr std::array<ByNodes, 4> kPerChTree = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0},
                                                {77.4, 82.8, 72.0}}};

// Tree bandwidth correction by log2(bytes / 64), 64 B .. 256 MiB, per protocol.
constexpr std::array<std::array<double, 23>, kProtocolCount> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
}};

// Multi-node rings: a step that leaves the node costs at least the network post overhead
// (NCCL's x86 Intel default, 1 µs; three posts for Simple).
constexpr double kNetOverheadUs = 1.0;

std::size_t generation(int cc) { return cc >= 100 ? 3 : cc >= 90 ? 2 : cc >= 80 ? 1 : 0; }
std::size_t node_column(std::size_t nodes) { return nodes <= 2 ? nodes - 1 : 2; }

int log2_floor(double x) {
  int l = 0;
  while (x >= 2) x /= 2, ++l;
  return l;
}

bool ring_collective(Collective c) {
  return c == Collective::kAllGather || c == Collective::kReduceScatter || c == Collective::kAllReduce;
}

// LL128 is on by default only over NVLink, on Volta .. Blackwell with one GPU kind.
bool ll128_enabled(const NcclTunerSpec& s) {
  return s.nvlink && (s.compute_capability == 70 || s.compute_capability == 80 || s.compute_capability == 90 ||
                      s.compute_capability == 100);
}

std::optional<NcclGraph> read_graph(const nlohmann::json& obj, const std::string& path, Errors& errors) {
  if (!expect_object(obj, path, errors)) return std::nullopt;
  FieldReader r{obj, path, errors};
  r.reject_unknown({"channels", "bw_intra_gbps", "bw_inter_gbps"});
  const auto ch = r.integer("channels", 1, 64);
  const auto intra = r.number("bw_intra_gbps", 0.01, 1e4);
  const auto inter = r.number("bw_inter_gbps", 0.01, 1e4, intra.value_or(1));
  if (!ch || !intra || !inter) return std::nullopt;
  return NcclGraph{*ch, *intra, *inter};
}

}  // namespace

std::string_view nccl_algo_name(NcclAlgo a) { return a == NcclAlgo::kTree ? "tree" : "ring"; }

NcclTableEntry nccl_table_entry(const NcclTunerSpec& s, Collective c, NcclAlgo a, Protocol p, std::size_t ranks,
                                std::size_t nodes) {
  if (!ring_collective(c) || ranks < 2 || !s.known()) return {};
  if (a == NcclAlgo::kTree && c != Collective::kAllReduce) return {};
  if (p == Protocol::kLL128 && !ll128_enabled(s)) return {};
  nodes = std::clamp<std::size_t>(nodes, 1, ranks);
  const std::size_t gen = generation(s.compute_capability), col = node_column(nodes);
  const NcclGraph& g = a == NcclAlgo::kTree ? s.tree : s.ring;
  const double n = static_cast<double>(ranks), ch = static_cast<double>(g.channels);
  const double nsteps = c == Collective::kAllReduce ? 2 * (n - 1) : n - 1;
  // LL: one GPU generation's cap on a node; across nodes NCCL reads the CPU's (Intel: row 0).
  const double ll_max = kLLMaxBw[nodes == 1 ? gen : 0][col];

  double bus = ch * (nodes <= 2 ? g.bw_intra_gbps : g.bw_inter_gbps);
  if (a == NcclAlgo::kRing) {
    if (p == Protocol::kLL) bus = std::min(ll_max, bus * 0.5);
    if (p == Protocol::kLL128) bus = std::min(bus * 0.92, ch * kPerChRingLL128[gen][col]);
    bus *= n / nsteps;  // bus bandwidth to algorithm bandwidth
  } else {
    bus = std::min(bus * 0.92, ch * kPerChTree[gen][col]);
    if (p == Protocol::kLL) bus = std::min(bus / 3.8, ll_max);
    if (p == Protocol::kLL128)
      bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), ch * kPerChTreeLL128[gen][col]);
    bus *= 0.5;
  }

  const HwLat& intra_hw = s.nvlink ? kHwNvlink : kHwPci;
  const std::size_t pi = idx(p);
  const double ppn = n / static_cast<double>(nodes);
  // With one GPU per node every step is exposed: NCCL takes the tree's network latency.
  const double inter_lat = (ppn == 1 ? kHwNet.tree : kHwNet.ring)[pi];
  double lat = 0;
  if (a == NcclAlgo::kRing) {
    double intra_lat = intra_hw.ring[pi];
    if (nodes > 1) intra_lat = std::max(intra_lat, kNetOverheadUs * (p == Protocol::kSimple ? 3 : 1));
    const double nodesd = static_cast<double>(nodes);
    const double inter_steps = nodes == 1 ? 0 : c == Collective::kAllReduce ? 2 * (nodesd - 1) : nodesd - 1;
    lat = kBaseLatRing[pi] + (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
  } else {
    lat = kBaseLatTree[pi] + 2 * ((ppn - 1) * intra_hw.tree[pi] + log2_floor(static_cast<double>(nodes)) * inter_lat);
  }
  return {lat, bus};
}

double nccl_predicted_us(const NcclTunerSpec& s, Collective c, NcclAlgo a, Protocol p, std::size_t ranks,
                         std::size_t nodes, double bytes) {
  const NcclTableEntry e = nccl_table_entry(s, c, a, p, ranks, nodes);
  if (e.bandwidth_gbps <= 0) return -1;
  double bw = e.bandwidth_gbps, lat = e.latency_us;
  const int log_size = log2_floor(std::max(1.0, std::floor(bytes / 64)));
  if (a == NcclAlgo::kTree && log_size < 23) bw *= kTreeCorrection[idx(p)][static_cast<std::size_t>(log_size)];
  // Ring plateau across nodes: all-reduce Simple past 64 bytes per channel and rank.
  if (a == NcclAlgo::kRing && p == Protocol::kSimple && nodes > 1 && c == Collective::kAllReduce &&
      bytes / (static_cast<double>(s.ring.channels) * static_cast<double>(ranks)) >= 64)
    lat *= s.compute_capability < 80 ? 1.9 : 1.4;
  return lat + bytes / (1000 * bw);
}

std::optional<NcclPick> nccl_pick(const NcclTunerSpec& s, Collective c, std::size_t ranks, std::size_t nodes,
                                  double bytes, std::optional<NcclAlgo> algorithm, std::optional<Protocol> protocol) {
  std::optional<NcclPick> best;
  double best_t = 0;
  for (NcclAlgo a : {NcclAlgo::kTree, NcclAlgo::kRing}) {
    if (algorithm && *algorithm != a) continue;
    for (Protocol p : kAllProtocols) {
      if (protocol && *protocol != p) continue;
      const double t = nccl_predicted_us(s, c, a, p, ranks, nodes, bytes);
      if (t >= 0 && (!best || t < best_t)) best = NcclPick{a, p}, best_t = t;
    }
  }
  return best;
}

Protocol nccl_p2p_protocol(double bytes_per_peer) {
  return bytes_per_peer <= kP2pLLThresholdBytes ? Protocol::kLL : Protocol::kSimple;
}

std::optional<NcclTunerSpec> read_nccl_tuner(const nlohmann::json& obj, const std::string& path,
                                             std::string& source, Errors& errors) {
  if (!expect_object(obj, path, errors)) return std::nullopt;
  const std::size_t before = errors.size();
  FieldReader r{obj, path, errors};
  r.reject_unknown({"ring", "tree", "source", "notes"});
  source = r.string("source").value_or("");
  if (source.empty()) errors.push_back({r.field_path("source"), "must name where the graphs come from"});
  NcclTunerSpec out;
  if (const nlohmann::json* ring = r.object("ring"))
    if (auto g = read_graph(*ring, r.field_path("ring"), errors)) out.ring = *g;
  if (const nlohmann::json* tree = r.object("tree"))
    if (auto g = read_graph(*tree, r.field_path("tree"), errors)) out.tree = *g;
  if (errors.size() != before) return std::nullopt;
  return out;
}

}  // namespace tilesight::net
