#include "tilesight/net/collective_cost.h"

#include <algorithm>
#include <cmath>

namespace tilesight::net {

namespace {

// Smallest chunk a pipelined tree cuts the buffer into (NCCL moves at least a few KiB per
// chunk); bounds the chunk count of tiny messages.
constexpr double kMinChunkBytes = 4096;

// A stage's exchanges scaled to `fraction` of their bytes.
Stage scaled(const Stage& s, double fraction) {
  Stage out = s;
  for (auto& e : out.exchanges) e.bytes *= fraction;
  return out;
}

// Pipelined stage: (C + fill)(a + b/C) is least at C* = sqrt(fill · b / a) (Sanders et al.),
// searched around that optimum over whole chunk counts.
StageTiming pipelined(const NetworkHierarchy& net, const CollectiveRequest& r, const Stage& s, Protocol p,
                      double send_rate) {
  const StageCost whole = stage_cost(net, r.group, s, r.collective, p, send_rate);
  const double a = whole.latency_s, b = whole.serialisation_s;
  const double payload = s.exchanges.empty() ? 0 : s.exchanges.front().bytes;
  const double max_chunks = std::max(1.0, std::floor(payload / kMinChunkBytes));
  const double fill = static_cast<double>(s.pipeline_fill);
  const double ideal = a > 0 ? std::sqrt(std::max(fill, 1.0) * b / a) : max_chunks;
  double best_c = 1, best_t = INFINITY;
  for (double c : {std::floor(ideal), std::ceil(ideal), 1.0, max_chunks}) {
    c = std::clamp(c, 1.0, max_chunks);
    const double t = (c + fill) * (a + b / c);
    if (t < best_t) best_t = t, best_c = c;
  }
  StageTiming st{.label = s.label, .repeat = static_cast<std::int64_t>(best_c + fill),
                 .chunk_bytes = payload / best_c};
  st.cost = stage_cost(net, r.group, scaled(s, 1.0 / best_c), r.collective, p, send_rate);
  return st;
}

}  // namespace

double CollectiveCost::busbw() const {
  const double n = static_cast<double>(ranks);
  if (n < 2) return algbw();
  switch (collective) {
    case Collective::kAllReduce: return algbw() * 2.0 * (n - 1) / n;
    case Collective::kSendRecv: return algbw();
    default: return algbw() * (n - 1) / n;
  }
}

CollectiveCost collective_cost(const NetworkHierarchy& net, const CollectiveAlgorithm& algorithm,
                               const CollectiveRequest& asked, Protocol protocol) {
  CollectiveRequest request = asked;
  if (request.node.empty()) request.node = net.nodes_of(request.group);
  CollectiveCost c{.collective = request.collective, .algorithm = std::string(algorithm.name()),
                   .protocol = protocol, .ranks = request.ranks(), .bytes = request.bytes,
                   .base_s = net.launch_latency(request.collective, protocol)};
  c.total_s = c.base_s;
  if (const NcclChannels& ch = net.channels(); ch.measured()) {
    c.channels = ch.channels(request.collective, protocol, request.bytes);
    c.send_rate = ch.send_rate(request.collective, protocol, c.channels, request.bytes).value_or(0);
  }
  for (const Stage& s : algorithm.stages(request)) {
    StageTiming st;
    if (s.pipeline_fill > 0) {
      st = pipelined(net, request, s, protocol, c.send_rate);
    } else {
      st = {.label = s.label, .repeat = s.repeat,
            .chunk_bytes = s.exchanges.empty() ? 0 : s.exchanges.front().bytes,
            .cost = stage_cost(net, request.group, s, request.collective, protocol, c.send_rate)};
    }
    c.total_s += static_cast<double>(st.repeat) * st.cost.time_s();
    c.stages.push_back(std::move(st));
  }
  return c;
}

namespace {

std::size_t node_count(const NetworkHierarchy& net, const CollectiveRequest& r) {
  std::vector<std::size_t> node = r.node.empty() ? net.nodes_of(r.group) : r.node;
  std::sort(node.begin(), node.end());
  return static_cast<std::size_t>(std::unique(node.begin(), node.end()) - node.begin());
}

// What NCCL would run where the user left it open (nccl_tuner.h): the p2p protocol rule for
// all-to-all and send/recv; NCCL's table for ring collectives where the system gives NCCL's
// graphs and the algorithm (if named) is one of NCCL's. Elsewhere the choice stays open and
// the model's own cheapest pair wins.
TunerChoice as_nccl_would(const NetworkHierarchy& net, const CollectiveRequest& r, TunerChoice choice) {
  if (runs_p2p(r.collective)) {
    const double per_peer = r.collective == Collective::kAllToAll ? r.bytes / static_cast<double>(r.ranks()) : r.bytes;
    if (!choice.protocol) choice.protocol = nccl_p2p_protocol(per_peer);
    return choice;
  }
  if (!net.nccl_tuner().known() || (choice.algorithm && choice.protocol)) return choice;
  std::optional<NcclAlgo> algo;
  if (choice.algorithm) {
    if (*choice.algorithm == nccl_algo_name(NcclAlgo::kRing)) algo = NcclAlgo::kRing;
    else if (*choice.algorithm == nccl_algo_name(NcclAlgo::kTree)) algo = NcclAlgo::kTree;
    else return choice;
  }
  const auto pick =
      nccl_pick(net.nccl_tuner(), r.collective, r.ranks(), node_count(net, r), r.bytes, algo, choice.protocol);
  if (!pick) return choice;
  const CollectiveAlgorithm* a = find_algorithm(nccl_algo_name(pick->algorithm));
  if (!a || !a->supports(r.collective, r.ranks())) return choice;
  return {.algorithm = std::string(nccl_algo_name(pick->algorithm)), .protocol = pick->protocol};
}

}  // namespace

Result<CollectiveCost> tune_collective(const NetworkHierarchy& net, const CollectiveRequest& request,
                                       const TunerChoice& asked) {
  const TunerChoice choice = as_nccl_would(net, request, asked);
  std::vector<const CollectiveAlgorithm*> candidates;
  if (choice.algorithm) {
    const CollectiveAlgorithm* a = find_algorithm(*choice.algorithm);
    if (!a) {
      std::string known;
      for (auto n : algorithm_names()) known += (known.empty() ? "" : ", ") + std::string(n);
      return Error{"params.algorithm", "unknown algorithm \"" + *choice.algorithm + "\"; known: " + known};
    }
    if (!a->supports(request.collective, request.ranks())) {
      std::string fit;
      for (const auto& b : all_algorithms())
        if (b->supports(request.collective, request.ranks())) fit += (fit.empty() ? "" : ", ") + std::string(b->name());
      return Error{"params.algorithm", "\"" + *choice.algorithm + "\" cannot run " +
                                           std::string(collective_name(request.collective)) + " on " +
                                           std::to_string(request.ranks()) + " devices; these can: " + fit};
    }
    candidates.push_back(a);
  } else {
    for (const auto& a : all_algorithms())
      if (a->in_nccl() && a->supports(request.collective, request.ranks())) candidates.push_back(a.get());
  }
  if (candidates.empty())
    return Error{"params.devices", "no algorithm runs " + std::string(collective_name(request.collective)) + " on " +
                                       std::to_string(request.ranks()) + " devices"};
  std::optional<CollectiveCost> best;
  for (const CollectiveAlgorithm* a : candidates)
    for (Protocol p : kAllProtocols) {
      if (choice.protocol && *choice.protocol != p) continue;
      CollectiveCost c = collective_cost(net, *a, request, p);
      if (!best || c.total_s < best->total_s) best = std::move(c);
    }
  return *best;
}

}  // namespace tilesight::net
