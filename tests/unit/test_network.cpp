// The network model of §3.6 against hand calculations: system profiles and routes, the
// stage decompositions, eq. 11's stage cost, the NCCL-like tuner and its crossovers.
#include <algorithm>
#include <numeric>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/model/distributed.h"
#include "tilesight/net/collective_cost.h"
#include "tilesight/net/network_report.h"
#include "tilesight/report/json_report.h"
#include "tilesight/net/system_profile.h"

using namespace tilesight::net;
using nlohmann::json;

namespace {

SystemSpec system_named(const std::string& name) {
  auto s = load_system(name);
  INFO((s.ok() ? "" : s.error_text()));
  REQUIRE(s.ok());
  return std::move(s).value();
}

CollectiveRequest request(Collective c, std::size_t n, double bytes) {
  CollectiveRequest r{.collective = c, .bytes = bytes};
  r.group.resize(n);
  std::iota(r.group.begin(), r.group.end(), std::size_t{0});
  return r;
}

std::string route_text(const NetworkHierarchy& net, std::size_t a, std::size_t b) {
  std::string s;
  for (std::size_t l : net.route(a, b)) s += (s.empty() ? "" : " ") + net.links()[l].name;
  return s;
}

// Two nodes of two GPUs: NVLink 4 to a switch per node, one 400 Gb/s NIC per GPU.
json two_level() {
  return json::parse(R"({
    "name": "two_nodes", "device": "h200", "devices": 4, "switches": ["sw0", "sw1", "ib"],
    "default_source": "test",
    "link_types": {
      "nvlink": {"class": "nvlink", "bandwidth": 450e9, "efficiency": 0.8,
                 "alpha_us": {"LL": 0.3, "LL128": 0.95, "Simple": 1.7, "source": "test"}},
      "ib": {"class": "net", "bandwidth": 50e9, "efficiency": 0.9,
             "alpha_us": {"LL": 1.35, "LL128": 2.0, "Simple": 7.0, "source": "test"}}},
    "links": [{"between": ["gpu[0-1]", "sw0"], "type": "nvlink"},
              {"between": ["gpu[2-3]", "sw1"], "type": "nvlink"},
              {"between": ["gpu[0-3]", "ib"], "type": "ib"}]})");
}

constexpr double kNv4Beta = 1.0 / (450e9 * 0.8);  // s/byte, Simple
constexpr double kNvHop = 1.7e-6;                  // Simple, per hop through NVSwitch

}  // namespace

TEST_CASE("shipped system profiles load with sourced numbers", "[net]") {
  for (const char* name : {"h200x2", "h200x8", "h100x8", "b200x8", "b200x32", "h200nvl4", "h200nvl8", "b6000x2"}) {
    INFO(name);
    const SystemSpec s = system_named(name);
    CHECK(s.name == name);
    CHECK(s.devices() >= 2);
    CHECK(s.device.sm_count > 0);
    for (const auto& t : s.network.link_types()) {
      CHECK(s.sources.count("link_types." + t.name + ".bandwidth") == 1);
      CHECK(s.sources.count("link_types." + t.name + ".efficiency") == 1);
      CHECK(s.sources.count("link_types." + t.name + ".alpha_us") == 1);
    }
  }
  const SystemSpec h = system_named("h200x8");
  CHECK(h.device.name == "h200");
  CHECK(h.devices() == 8);
  // 18 NVLink 4 links x 25 GB/s per direction (datasheet).
  CHECK(h.network.link_types().front().bandwidth == Approx(18 * 25e9));
  CHECK(system_named("b200x8").network.link_types().front().bandwidth == Approx(18 * 50e9));
}

TEST_CASE("routes go through switches, never through another GPU", "[net]") {
  const SystemSpec h = system_named("h200x8");
  CHECK(route_text(h.network, 0, 5) == "gpu0->nvswitch nvswitch->gpu5");
  const SystemSpec nvl = system_named("h200nvl4");
  CHECK(route_text(nvl.network, 0, 1) == "gpu0->gpu1");          // the NVLink bridge
  CHECK(route_text(nvl.network, 1, 2) == "gpu1->pcie pcie->gpu2");  // not gpu1->gpu0->...
  const SystemSpec big = system_named("b200x32");
  CHECK(route_text(big.network, 0, 7) == "gpu0->nvswitch0 nvswitch0->gpu7");  // NVLink, not the NIC
  CHECK(route_text(big.network, 3, 12) == "gpu3->ib ib->gpu12");
}

TEST_CASE("a ring all-reduce of S bytes on n devices is 2(n-1) stages of S/n", "[net]") {
  const SystemSpec h = system_named("h200x8");
  const double S = 1024.0 * 1024 * 1024;
  const auto r = request(Collective::kAllReduce, 8, S);
  const auto stages = find_algorithm("ring")->stages(r);
  std::int64_t count = 0;
  for (const auto& s : stages) {
    count += s.repeat;
    for (const auto& e : s.exchanges) CHECK(e.bytes == Approx(S / 8));
  }
  CHECK(count == 2 * (8 - 1));
  // Eq. 11 per step: two NVSwitch hops (2 x 1.7 us) + S/8 over one GPU port at 450 GB/s x 0.8:
  // 3.4 + 134217728 / 360e9 s = 3.4 + 372.827 = 376.227 us; 14 steps + the 8.4 us launch =
  // 5275.58 us; busbw = 2·7/8 · S / T = 356.2 GB/s.
  const CollectiveCost c = collective_cost(h.network, *find_algorithm("ring"), r, Protocol::kSimple);
  CHECK(c.stages[0].cost.latency_s == Approx(2 * kNvHop));
  CHECK(c.stages[0].cost.serialisation_s == Approx(S / 8 * kNv4Beta));
  CHECK(c.total_s * 1e6 == Approx(8.4 + 14 * (3.4 + S / 8 * kNv4Beta * 1e6)));
  CHECK(c.total_s * 1e6 == Approx(5275.58).epsilon(1e-5));
  CHECK(c.busbw() / 1e9 == Approx(356.18).epsilon(1e-4));
}

// The Network lanes read every step of a ring: each link's repeated step is one event with
// its count, so nothing is left out however long the ring (the JSON lists at most 2000).
TEST_CASE("the network report lists every ring step, one event per link and repeated stage", "[net]") {
  const SystemSpec h = system_named("h200x8");
  const double S = 1024.0 * 1024 * 1024;
  const CollectiveCost c =
      collective_cost(h.network, *find_algorithm("ring"), request(Collective::kAllReduce, 8, S), Protocol::kSimple);
  const auto n = network_report(h, {{.cost = c, .start_s = 0}}, c.total_s);
  std::int64_t steps = 0;
  double last_end = 0;
  std::size_t events = 0;
  for (const auto& e : n.events) {
    if (e.link != "gpu0->nvswitch") continue;
    ++events;
    tilesight::report::for_each_stage_run(e, [&](std::int64_t stage, double, double end) {
      CHECK(stage == steps);  // in order, none skipped
      ++steps;
      last_end = std::max(last_end, end);
    });
  }
  CHECK(events == 2);  // the reduce-scatter half and the all-gather half
  CHECK(steps == 14);
  // As the ring case above: 8.4 us launch, 13 steps of 376.227 us, then the last one's hop
  // latency and serialisation: the link ends busy when the collective ends (5275.58 us).
  CHECK(last_end == Approx(5275.58).epsilon(1e-5));
  CHECK(n.events.size() == 2 * 16);  // 16 directed links, 2 stages each

  // all_reduce 1 GiB on b200x32 (ring/LL128, 62 steps over 128+ links): the Prediction holds
  // every step; the JSON report still lists at most 2000 stage loads and counts the rest.
  auto p = tilesight::model::predict_distributed(
      json::parse(R"({"kernel": "all_reduce", "hardware": "b200x32", "params": {"bytes": 1073741824, "devices": 32}})"), "");
  REQUIRE(p.ok());
  std::int64_t listed = 0, stages = 0;
  for (const auto& e : p->network.events) {
    listed += e.repeat;
    if (e.link == p->network.links.front().link) stages += e.repeat;
  }
  CHECK(stages == p->network.collectives.front().stages);
  CHECK(stages == 62);
  const json j = tilesight::report::to_json(*p);
  CHECK(j["network"]["stages"].size() == 15 * 128);  // whole steps: a 16th would pass 2000
  CHECK(j["network"]["stages_dropped"] == 47 * 128);  // 6,016, as the engine's cap dropped before
  CHECK(static_cast<std::int64_t>(j["network"]["stages"].size()) + j["network"]["stages_dropped"].get<std::int64_t>() ==
        listed);
}

TEST_CASE("the inter-node link is a two-level ring's bottleneck", "[net]") {
  auto parsed = parse_system(two_level());
  INFO((parsed.ok() ? "" : parsed.error_text()));
  REQUIRE(parsed.ok());
  const NetworkHierarchy& net = parsed->network;
  CHECK(route_text(net, 0, 1) == "gpu0->sw0 sw0->gpu1");
  CHECK(route_text(net, 1, 2) == "gpu1->ib ib->gpu2");
  // Two rings, one per GPU of a node (NCCL's channels over rails), each with half the buffer:
  // 0->1->2->3->0 and 1->0->3->2->1. Per step each ring moves S/(4·2) per exchange; ring 0
  // leaves node 0 through gpu1's NIC, ring 1 through gpu0's, so each NIC port carries S/8 at
  // 45 GB/s, and the slowest exchange pays 2 x 7 us of NIC hops: T_k = 14 us + (S/8) / 45e9.
  const double S = 256.0 * 1024 * 1024;
  const auto c = collective_cost(net, *find_algorithm("ring"), request(Collective::kAllGather, 4, S), Protocol::kSimple);
  REQUIRE(c.stages.size() == 1);
  const StageCost& k = c.stages[0].cost;
  CHECK(net.links()[k.bottleneck_link].name.find("ib") != std::string::npos);
  CHECK(k.latency_s == Approx(14e-6));
  CHECK(k.serialisation_s == Approx(S / 8 / 45e9));
  CHECK(c.stages[0].repeat == 3);
  CHECK(c.total_s == Approx(8.4e-6 + 3 * (14e-6 + S / 8 / 45e9)));
  // Every NVLink and NIC port carries the same S/8: the NIC is the bottleneck by bandwidth.
  for (const auto& load : k.loads) CHECK(load.bytes == Approx(S / 8));
  CHECK(net.nodes_of({0, 1, 2, 3}) == std::vector<std::size_t>{0, 0, 1, 1});
}

TEST_CASE("shared links add up: direct all-to-all through one NVSwitch port", "[net]") {
  const SystemSpec h = system_named("h200x8");
  // Each GPU sends S/8 to each of 7 peers: its port carries 7S/8 in one stage.
  const double S = 64.0 * 1024 * 1024;
  const auto c = collective_cost(h.network, *find_algorithm("direct"), request(Collective::kAllToAll, 8, S),
                                 Protocol::kSimple);
  CHECK(c.stages.size() == 1);
  CHECK(c.stages[0].cost.serialisation_s == Approx(7 * S / 8 * kNv4Beta));
  CHECK(c.busbw() == Approx(c.algbw() * 7 / 8));
}

TEST_CASE("identical repeated stages are evaluated once", "[net]") {
  const SystemSpec h = system_named("h200x8");
  const auto c = collective_cost(h.network, *find_algorithm("ring"), request(Collective::kReduceScatter, 8, 8e6),
                                 Protocol::kLL128);
  REQUIRE(c.stages.size() == 1);
  CHECK(c.stages[0].repeat == 7);
  // LL128 reaches 0.92 of Simple's bandwidth (NCCL tuning.cc); hop latency 0.95 us.
  CHECK(c.stages[0].cost.serialisation_s == Approx(1e6 * kNv4Beta / 0.92));
  CHECK(c.stages[0].cost.latency_s == Approx(1.9e-6));
}

TEST_CASE("recursive doubling vs ring: the crossover at S* = 8.8 alpha/beta", "[net]") {
  // On 8 GPUs, recursive doubling all-reduce: 3(α + βS); ring: 14(α + βS/8).
  // Equal when 1.25 βS = 11 α: S* = 8.8 α/β with α = 3.4 us, 1/β = 360 GB/s -> 10.77 MB.
  const SystemSpec h = system_named("h200x8");
  const double s_star = 8.8 * 2 * kNvHop / kNv4Beta;
  CHECK(s_star == Approx(10771200));
  auto time = [&](const char* a, double s) {
    return collective_cost(h.network, *find_algorithm(a), request(Collective::kAllReduce, 8, s), Protocol::kSimple)
        .total_s;
  };
  CHECK(time("recursive_doubling", 0.9 * s_star) < time("ring", 0.9 * s_star));
  CHECK(time("recursive_doubling", 1.1 * s_star) > time("ring", 1.1 * s_star));
  CHECK(time("recursive_doubling", s_star) == Approx(time("ring", s_star)));
}

TEST_CASE("the tuner picks latency-bound choices for small messages, bandwidth for large", "[net]") {
  const SystemSpec h = system_named("h200x8");
  auto tuned = [&](double s) {
    auto c = tune_collective(h.network, request(Collective::kAllReduce, 8, s));
    REQUIRE(c.ok());
    return std::move(c).value();
  };
  const auto tiny = tuned(8), huge = tuned(8.0 * 1024 * 1024 * 1024);
  CHECK(tiny.protocol == Protocol::kLL);
  CHECK(tiny.algorithm == "tree");  // 2·depth hops beat the ring's 14 steps
  CHECK(huge.protocol == Protocol::kSimple);
  CHECK(huge.algorithm == "ring");
  // The chosen protocol never goes back to a lower-bandwidth one as the size grows.
  int last = 0;
  for (double s = 8; s < 1e10; s *= 4) {
    const int p = static_cast<int>(tuned(s).protocol);
    CHECK(p >= last);
    last = p;
  }
  // Forcing an algorithm that cannot run the collective is an error with the JSON path.
  auto bad = tune_collective(h.network, request(Collective::kAllReduce, 6, 1e6), {.algorithm = "rabenseifner"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "params.algorithm");
  auto unknown = tune_collective(h.network, request(Collective::kAllReduce, 8, 1e6), {.algorithm = "butterfly"});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error_text().find("unknown algorithm") != std::string::npos);
}

TEST_CASE("Rabenseifner moves the ring's bytes in 2 log2 n stages", "[net]") {
  const auto stages = find_algorithm("rabenseifner")->stages(request(Collective::kAllReduce, 8, 8e6));
  REQUIRE(stages.size() == 6);
  double per_rank = 0;
  for (const auto& s : stages) per_rank += s.exchanges.front().bytes;
  CHECK(per_rank == Approx(2.0 * 7 / 8 * 8e6));  // S/2 + S/4 + S/8 twice
  CHECK(stages[0].exchanges.front().bytes == Approx(4e6));
  CHECK(stages[5].exchanges.front().bytes == Approx(4e6));
}

TEST_CASE("bad system profiles name the JSON path", "[net]") {
  json doc = two_level();
  doc["links"][0]["type"] = "nvlink9";
  auto bad = parse_system(doc);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "links[0].type");
  json cut = two_level();
  cut["links"] = json::array({cut["links"][0], cut["links"][1]});  // no inter-node link
  auto unreachable = parse_system(cut);
  REQUIRE_FALSE(unreachable.ok());
  CHECK(unreachable.error_text().find("gpu0 cannot reach gpu2") != std::string::npos);
  auto single = load_system("h200");
  REQUIRE_FALSE(single.ok());
  CHECK(single.error_text().find("single-GPU profile") != std::string::npos);
}
