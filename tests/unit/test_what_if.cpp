// What-if topologies (net/what_if.h) against hand-computed α–β figures: a second InfiniBand
// rail on b200x32 halves an inter-node ring's bottleneck and gains nothing where NVLink is
// the bottleneck; removing and adding link levels reroutes; a plan's "what_if" and its errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <numeric>

#include "tilesight/model/distributed.h"
#include "tilesight/net/collective_cost.h"
#include "tilesight/net/system_profile.h"
#include "tilesight/net/what_if.h"

using namespace tilesight;
using namespace tilesight::net;
using nlohmann::json;

namespace {

NetworkHierarchy network_of(const std::string& name) {
  auto s = load_system(name);
  INFO((s.ok() ? "" : s.error_text()));
  REQUIRE(s.ok());
  return s->network;
}

NetworkHierarchy ok(Result<NetworkHierarchy> r) {
  INFO((r.ok() ? "" : r.error_text()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

CollectiveRequest all_devices(Collective c, std::size_t n, double bytes) {
  CollectiveRequest r{.collective = c, .bytes = bytes};
  r.group.resize(n);
  std::iota(r.group.begin(), r.group.end(), std::size_t{0});
  return r;
}

double ring_us(const NetworkHierarchy& net, std::size_t n, double bytes) {
  return collective_cost(net, *find_algorithm("ring"), all_devices(Collective::kAllReduce, n, bytes), Protocol::kSimple)
             .total_s * 1e6;
}

std::string route_text(const NetworkHierarchy& net, const Route& route) {
  std::string s;
  for (std::size_t l : route) s += (s.empty() ? "" : " ") + net.links()[l].name;
  return s;
}

// b200x32 (hw_profiles/b200x32.json): NVLink 5 900 GB/s x 0.8 per GPU port, one 400 Gb/s
// NIC per GPU at 50 GB/s x 0.9; a ring step through NVSwitch pays 2 x 1.7 us (Simple), one
// between nodes 2 x 7 us at the NICs; the launch is NCCL's Simple base, 8.4 us.
constexpr double kNvlink = 900e9 * 0.8, kIb = 50e9 * 0.9;
constexpr double kGiB = 1024.0 * 1024 * 1024;

}  // namespace

TEST_CASE("a rail is a second least-cost route between nodes, not inside one", "[net][what_if]") {
  const NetworkHierarchy base = network_of("b200x32");
  const NetworkHierarchy railed = ok(add_rail(base, "ib_ndr"));
  REQUIRE(railed.routes(3, 12).size() == 2);
  CHECK(route_text(railed, railed.routes(3, 12)[0]) == "gpu3->ib ib->gpu12");
  CHECK(route_text(railed, railed.routes(3, 12)[1]) == "gpu3->ib_rail2 ib_rail2->gpu12");
  REQUIRE(railed.routes(0, 7).size() == 1);  // NVLink inside the node; the NICs cost more
  CHECK(route_text(railed, railed.route(0, 7)) == "gpu0->nvswitch0 nvswitch0->gpu7");
  CHECK(base.routes(3, 12).size() == 1);
  CHECK(ok(add_rail(base, "ib_ndr", 3)).routes(3, 12).size() == 4);
  // Two NVLink bridges where there was one (h200nvl4: gpu0-gpu1 bridged).
  const NetworkHierarchy nvl = ok(add_rail(network_of("h200nvl4"), "nvlink_bridge"));
  REQUIRE(nvl.routes(0, 1).size() == 2);
  CHECK(route_text(nvl, nvl.routes(0, 1)[1]) == "gpu0->gpu1 (rail 2)");
}

// Ring all-reduce over the 4 nodes: 8 channel rings (one per GPU of a node, net/ring.cpp),
// each with S/8 of the buffer, 2·31 steps of S/256 per exchange. In every step each GPU
// sends 7 exchanges over its NVLink port and 1 (the ring that leaves its node through it)
// over its NIC: NIC S/256 / 45 GB/s = 93.21 us (1 GiB), NVLink 7·S/256 / 720 GB/s = 40.78
// us, so the NIC is the bottleneck: T = 8.4 + 62·(14 + 93.21) = 6655.2 us. A second rail
// halves each NIC's bytes, 46.60 us, still above NVLink's 40.78: T = 8.4 + 62·(14 + 46.60)
// = 3765.8 us, 1.77x faster (not 2x: the 14 us of NIC hops stay).
TEST_CASE("a second InfiniBand rail halves an inter-node ring's bottleneck on b200x32", "[net][what_if]") {
  const NetworkHierarchy base = network_of("b200x32");
  const NetworkHierarchy railed = ok(add_rail(base, "ib_ndr"));
  const double nic = kGiB / 256 / kIb * 1e6, nvlink = 7 * kGiB / 256 / kNvlink * 1e6;
  CHECK(nic == Approx(93.2068).epsilon(1e-5));
  CHECK(nvlink == Approx(40.7780).epsilon(1e-5));
  CHECK(ring_us(base, 32, kGiB) == Approx(8.4 + 62 * (14 + nic)));
  CHECK(ring_us(base, 32, kGiB) == Approx(6655.2).epsilon(1e-4));
  CHECK(ring_us(railed, 32, kGiB) == Approx(8.4 + 62 * (14 + nic / 2)));
  CHECK(ring_us(railed, 32, kGiB) == Approx(3765.8).epsilon(1e-4));
  // Both rails carry half of what the one NIC carried, and are the bottleneck together.
  const auto c = collective_cost(railed, *find_algorithm("ring"), all_devices(Collective::kAllReduce, 32, kGiB),
                                 Protocol::kSimple);
  const StageCost& step = c.stages[0].cost;
  CHECK(railed.type_of(step.bottleneck_link).name == "ib_ndr");
  for (const auto& load : step.loads)
    if (railed.type_of(load.link).name == "ib_ndr") CHECK(load.bytes == Approx(kGiB / 512));
  // Every GPU-to-switch link of either rail is loaded.
  std::size_t ib_links = 0;
  for (const auto& load : step.loads) ib_links += railed.type_of(load.link).name == "ib_ndr";
  CHECK(ib_links == 4 * 32);  // 32 GPUs x 2 rails x both directions
}

// With 10x the NIC bandwidth the NIC carries S/256 / 450 GB/s = 9.32 us a step, under
// NVLink's 40.78 us: NVLink is the bottleneck and a second rail changes nothing,
// T = 8.4 + 62·(14 + 40.78) = 3404.6 us either way. Inside one node there is no NIC at all.
TEST_CASE("a rail gains nothing where the bottleneck is inside the node", "[net][what_if]") {
  const NetworkHierarchy fast_ib = ok(scale_links(network_of("b200x32"), "ib_ndr", 10));
  const double nvlink = 7 * kGiB / 256 / kNvlink * 1e6;
  CHECK(ring_us(fast_ib, 32, kGiB) == Approx(8.4 + 62 * (14 + nvlink)));
  CHECK(ring_us(fast_ib, 32, kGiB) == Approx(3404.6).epsilon(1e-4));
  CHECK(ring_us(ok(add_rail(fast_ib, "ib_ndr")), 32, kGiB) == Approx(ring_us(fast_ib, 32, kGiB)).epsilon(1e-12));
  // One node of b200x32 (8 GPUs): 14 steps of S/8 over the NVLink port, 3.4 us of hops each.
  const NetworkHierarchy base = network_of("b200x32");
  const double one_node = 8.4 + 14 * (3.4 + kGiB / 8 / kNvlink * 1e6);
  CHECK(ring_us(base, 8, kGiB) == Approx(one_node));
  CHECK(ring_us(ok(add_rail(base, "ib_ndr")), 8, kGiB) == Approx(one_node).epsilon(1e-12));
}

// On one NVSwitch a second port per GPU is twice the port bandwidth: the same bytes over
// two equal links. h200x8 1 GiB ring all-reduce: 8.4 + 14·(3.4 + S/8 / 720 GB/s) = 2666.3 us.
TEST_CASE("a second NVSwitch rail is twice the port bandwidth", "[net][what_if]") {
  const NetworkHierarchy h = network_of("h200x8");
  const double twice = ring_us(ok(scale_links(h, "nvlink4", 2)), 8, kGiB);
  CHECK(ring_us(ok(add_rail(h, "nvlink4")), 8, kGiB) == Approx(twice).epsilon(1e-12));
  CHECK(twice == Approx(8.4 + 14 * (3.4 + kGiB / 8 / (2 * 450e9 * 0.8) * 1e6)));
}

TEST_CASE("removing and adding link levels reroutes or says who is cut off", "[net][what_if]") {
  const NetworkHierarchy base = network_of("b200x32");
  // Without NVLink every pair talks over the NICs, inside a node too; each GPU is its own node.
  const NetworkHierarchy no_nvlink = ok(remove_level(base, "nvlink5"));
  CHECK(route_text(no_nvlink, no_nvlink.route(0, 7)) == "gpu0->ib ib->gpu7");
  CHECK(no_nvlink.nodes_of({0, 1, 8}) == std::vector<std::size_t>{0, 1, 2});
  // Without InfiniBand the nodes fall apart.
  auto cut = remove_level(base, "ib_ndr");
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error_text().find("without ib_ndr, gpu0 cannot reach gpu8") != std::string::npos);
  // One NVLink 5 domain over all 32 GPUs: no node boundary left; a 1 GiB ring all-reduce on
  // one ring of 32 is 62 steps of S/32 over the NVLink port at 2 x 1.7 us of hops:
  // 8.4 + 62·(3.4 + 46.60) = 3108.6 us.
  const NetworkHierarchy one_domain = ok(add_level(no_nvlink, "nvlink5"));
  CHECK(route_text(one_domain, one_domain.route(3, 12)) == "gpu3->nvlink5_level nvlink5_level->gpu12");
  std::vector<std::size_t> all(32);
  std::iota(all.begin(), all.end(), std::size_t{0});
  CHECK(one_domain.nodes_of(all) == std::vector<std::size_t>(32, 0));
  CHECK(ring_us(one_domain, 32, kGiB) == Approx(8.4 + 62 * (3.4 + kGiB / 32 / kNvlink * 1e6)));
  CHECK(ring_us(one_domain, 32, kGiB) == Approx(3108.6).epsilon(1e-4));
}

TEST_CASE("a plan's what_if reaches the prediction, and its errors name the field", "[net][what_if]") {
  auto predict = [](json what_if) {
    json plan = {{"kernel", "all_reduce"},
                 {"hardware", "b200x32"},
                 {"params", {{"bytes", 1 << 30}, {"devices", 32}, {"algorithm", "ring"}, {"protocol", "Simple"}}}};
    if (!what_if.is_null()) plan["what_if"] = what_if;
    return model::predict_distributed(plan, "", {});
  };
  auto base = predict(nullptr);
  auto railed = predict({{"add_rail", {{"ib_ndr", 1}}}});
  INFO((base.ok() ? "" : base.error_text()));
  REQUIRE(base.ok());
  REQUIRE(railed.ok());
  CHECK(railed->latency_us == Approx(base->latency_us - 62 * 93.2068 / 2).epsilon(1e-4));
  auto bad = predict({{"add_rail", {{"ib9", 1}}}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "what_if.add_rail.ib9");
  CHECK(bad.error_text().find("unknown link type \"ib9\"") != std::string::npos);
  auto zero = predict({{"add_rail", {{"ib_ndr", 0}}}});
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.errors()[0].path == "what_if.add_rail.ib_ndr");
  auto cut = predict({{"remove_level", {"ib_ndr"}}});
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.errors()[0].path == "what_if.remove_level[0]");
  auto typo = predict({{"add_rails", {{"ib_ndr", 1}}}});
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error_text().find("add_rail") != std::string::npos);  // "did you mean"
}

// A what-if keeps the system's calibration: h200x2's measured p2p launch (all-to-all runs
// NCCL's p2p kernel) and NCCL's tuner. Scaling by 1 changes nothing (it once dropped the p2p
// launch: 1 MiB all-to-all 22.4 -> 31.4 us).
TEST_CASE("a what-if keeps the system's measured launch, channels and tuner", "[net][what_if]") {
  for (const char* kernel : {"all_to_all", "all_reduce", "all_gather"}) {
    INFO(kernel);
    json plan = {{"kernel", kernel}, {"hardware", "h200x2"}, {"params", {{"bytes", 1 << 20}, {"devices", 2}}}};
    auto base = model::predict_distributed(plan, "", {});
    plan["what_if"] = {{"bandwidth_scale", {{"nvlink4", 1}}}};
    auto same = model::predict_distributed(plan, "", {});
    REQUIRE(base.ok());
    REQUIRE(same.ok());
    CHECK(same->latency_us == Approx(base->latency_us).epsilon(1e-12));
  }
}

TEST_CASE("the app's topology variants of b200x32 and h200x8", "[net][what_if]") {
  std::vector<std::string> labels;
  for (const auto& v : topology_variants(network_of("b200x32"))) labels.push_back(v.label);
  CHECK(labels == std::vector<std::string>{"+1 ib_ndr rail", "+1 nvlink5 rail", "without nvlink5",
                                           "nvlink5 over all 32 GPUs"});
  const auto one = topology_variants(network_of("h200x8"));
  REQUIRE(one.size() == 1);  // no level to remove without cutting the GPUs apart
  CHECK(one[0].what_if == json{{"add_rail", {{"nvlink4", 1}}}});
  // Every variant is a what_if a plan can carry.
  for (const auto& v : topology_variants(network_of("b200x32"))) {
    auto parsed = parse_what_if(v.what_if);
    REQUIRE(parsed.ok());
    CHECK(apply_what_if(network_of("b200x32"), *parsed).ok());
  }
}
