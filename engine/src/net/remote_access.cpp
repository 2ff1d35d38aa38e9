#include "tilesight/net/remote_access.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace tilesight::net {

namespace {

// The collective the exchanges form, if every ordered pair of the group moves the same bytes.
void classify(RemoteAccess& a, const Placement& produced, const Placement& consumed) {
  if (a.exchanges.empty()) return;
  if (a.exchanges.size() == 1) {
    const Exchange& e = a.exchanges.front();
    a.pattern = "send_recv";
    a.collective = CollectiveRequest{.collective = Collective::kSendRecv, .group = {e.src, e.dst}, .bytes = e.bytes};
    return;
  }
  a.pattern = "exchanges";
  const std::set<std::size_t> from(produced.devices.begin(), produced.devices.end()),
      to(consumed.devices.begin(), consumed.devices.end());
  const std::size_t n = consumed.devices.size();
  if (from != to || n < 2 || a.exchanges.size() != n * (n - 1)) return;
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  const double b = a.exchanges.front().bytes;
  for (const Exchange& e : a.exchanges) {
    if (std::abs(e.bytes - b) > 1e-9 * b) return;
    pairs.insert({e.src, e.dst});
  }
  if (pairs.size() != n * (n - 1)) return;
  const double nd = static_cast<double>(n);
  using K = Placement::Kind;
  std::optional<std::pair<Collective, double>> c;
  if (produced.kind == K::kPartial && consumed.kind == K::kSharded) c = {{Collective::kReduceScatter, nd * b}};
  else if (produced.kind == K::kPartial && consumed.kind == K::kReplicated) c = {{Collective::kAllReduce, b}};
  else if (produced.kind == K::kSharded && consumed.kind == K::kReplicated) c = {{Collective::kAllGather, nd * b}};
  else if (produced.kind == K::kSharded && consumed.kind == K::kSharded) c = {{Collective::kAllToAll, nd * b}};
  if (!c) return;
  a.pattern = std::string(collective_name(c->first));
  a.collective = CollectiveRequest{.collective = c->first, .group = consumed.devices, .bytes = c->second};
}

}  // namespace

double RemoteAccess::bytes() const {
  return std::accumulate(exchanges.begin(), exchanges.end(), 0.0,
                         [](double s, const Exchange& e) { return s + e.bytes; });
}

Result<RemoteAccess> infer_remote_access(const TensorShape& t, const Placement& produced, const Placement& consumed) {
  using K = Placement::Kind;
  if (consumed.kind == K::kPartial)
    return Error{"consumed.kind", "a consumer reads values, not partial sums: place it replicated or sharded"};
  if (produced.devices.empty() || consumed.devices.empty())
    return Error{produced.devices.empty() ? "produced.devices" : "consumed.devices", "must name at least one device"};
  RemoteAccess a;
  for (std::size_t dst : consumed.devices) {
    const Region need = consumed.region(t, dst);
    switch (produced.kind) {
      case K::kPartial:  // every other device's partial of what dst keeps
        for (std::size_t src : produced.devices)
          if (src != dst) a.exchanges.push_back({src, dst, need.elements() * t.element_bytes});
        break;
      case K::kSharded:  // the parts of what dst needs that other devices' shards hold
        for (std::size_t src : produced.devices) {
          if (src == dst) continue;
          const double part = need.intersect(produced.region(t, src)).elements();
          if (part > 0) a.exchanges.push_back({src, dst, part * t.element_bytes});
        }
        break;
      case K::kReplicated:  // nothing if dst holds a replica; else equal parts from each holder
        if (produced.holds(dst)) break;
        for (std::size_t src : produced.devices)
          a.exchanges.push_back(
              {src, dst, need.elements() * t.element_bytes / static_cast<double>(produced.devices.size())});
        break;
    }
  }
  classify(a, produced, consumed);
  return a;
}

Result<double> remote_access_seconds(const NetworkHierarchy& net, const RemoteAccess& access) {
  for (const Exchange& e : access.exchanges)
    if (e.src >= net.device_count() || e.dst >= net.device_count())
      return Error{"devices", "device " + std::to_string(std::max(e.src, e.dst)) + " is past the system's " +
                                  std::to_string(net.device_count())};
  if (access.exchanges.empty()) return 0.0;
  if (access.collective) {
    auto c = tune_collective(net, *access.collective);
    if (!c) return c.errors();
    return c->total_s;
  }
  std::vector<std::size_t> identity(net.device_count());
  std::iota(identity.begin(), identity.end(), std::size_t{0});
  const Stage stage{.label = "remote accesses", .exchanges = access.exchanges};
  return net.launch_latency(Protocol::kSimple) +
         stage_cost(net, identity, stage, Collective::kSendRecv, Protocol::kSimple).time_s();
}

}  // namespace tilesight::net
