// NCCL's tuner (nccl_tuner.h) against what NCCL 2.28.9 itself logged on 2 x H200 NV18: its
// latency/bandwidth table (tests/validation/h200x2/p2p_sizes_log.txt) and the protocol of
// every tuning-phase call (nccl_channels_log.txt); the p2p protocol rule; and the h200x2
// profile choosing as NCCL does.
#include <numeric>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/net/collective_cost.h"
#include "tilesight/net/nccl_tuner.h"
#include "tilesight/net/system_profile.h"

using namespace tilesight::net;

namespace {

// The graphs NCCL's search found on 2 x H200 (nccl_channels_log.txt: ring "Pattern 4,
// nChannels 12, bw 30", balanced tree "Pattern 1, nChannels 12, bw 60").
NcclTunerSpec h200x2_graphs() {
  return {.compute_capability = 90, .nvlink = true, .ring = {12, 30, 30}, .tree = {12, 60, 60}};
}

CollectiveRequest request(Collective c, std::size_t n, double bytes) {
  CollectiveRequest r{.collective = c, .bytes = bytes};
  r.group.resize(n);
  std::iota(r.group.begin(), r.group.end(), std::size_t{0});
  return r;
}

}  // namespace

TEST_CASE("NCCL's table on 2 x H200 is the one NCCL 2.28.9 logged", "[net][tuner]") {
  const NcclTunerSpec s = h200x2_graphs();
  struct Logged {
    Collective c;
    NcclAlgo a;
    Protocol p;
    double lat_us, bw_gbps;
  };
  // "AllGather | ... 7.2/ 282.0 | 15.9/ 662.4 | 11.8/ 720.0 |" and so on (ring, then tree).
  const Logged logged[] = {
      {Collective::kAllGather, NcclAlgo::kRing, Protocol::kLL, 7.2, 282.0},
      {Collective::kAllGather, NcclAlgo::kRing, Protocol::kLL128, 15.9, 662.4},
      {Collective::kAllGather, NcclAlgo::kRing, Protocol::kSimple, 11.8, 720.0},
      {Collective::kReduceScatter, NcclAlgo::kRing, Protocol::kLL, 7.2, 282.0},
      {Collective::kReduceScatter, NcclAlgo::kRing, Protocol::kLL128, 15.9, 662.4},
      {Collective::kReduceScatter, NcclAlgo::kRing, Protocol::kSimple, 11.8, 720.0},
      {Collective::kAllReduce, NcclAlgo::kRing, Protocol::kLL, 7.8, 141.0},
      {Collective::kAllReduce, NcclAlgo::kRing, Protocol::kLL128, 17.8, 331.2},
      {Collective::kAllReduce, NcclAlgo::kRing, Protocol::kSimple, 15.2, 360.0},
      {Collective::kAllReduce, NcclAlgo::kTree, Protocol::kLL, 8.0, 61.1},
      {Collective::kAllReduce, NcclAlgo::kTree, Protocol::kLL128, 16.5, 180.6},
      {Collective::kAllReduce, NcclAlgo::kTree, Protocol::kSimple, 16.4, 232.2},
  };
  for (const Logged& l : logged) {
    const NcclTableEntry e = nccl_table_entry(s, l.c, l.a, l.p, 2, 1);
    INFO(collective_name(l.c) << " " << nccl_algo_name(l.a) << "/" << protocol_name(l.p));
    CHECK(e.latency_us == Approx(l.lat_us).margin(0.05));  // the log prints one decimal
    CHECK(e.bandwidth_gbps == Approx(l.bw_gbps).margin(0.05));
  }
  // The tree runs all-reduce only ("0.0/ 0.0" for all-gather and reduce-scatter).
  CHECK(nccl_table_entry(s, Collective::kAllGather, NcclAlgo::kTree, Protocol::kSimple, 2, 1).bandwidth_gbps == 0);
}

TEST_CASE("NCCL's choice on 2 x H200 follows its logged calls", "[net][tuner]") {
  const NcclTunerSpec s = h200x2_graphs();
  auto pick = [&](Collective c, double bytes) {
    auto p = nccl_pick(s, c, 2, 1, bytes);
    REQUIRE(p);
    CHECK(p->algorithm == NcclAlgo::kRing);  // the tree never wins on two GPUs
    return p->protocol;
  };
  // nccl_channels_log.txt: all_reduce LL up to 1 MiB, Simple from 2 MiB; all_gather and
  // reduce_scatter LL up to 2 MiB (nccl-tests size), Simple from 4 MiB. At 2 MiB all_gather
  // LL wins by 0.08 us: 7.2 + 2097152/282000 = 14.64 against 11.8 + 2097152/720000 = 14.71.
  CHECK(pick(Collective::kAllReduce, 1 << 20) == Protocol::kLL);
  CHECK(pick(Collective::kAllReduce, 2 << 20) == Protocol::kSimple);
  CHECK(pick(Collective::kAllGather, 2 << 20) == Protocol::kLL);
  CHECK(pick(Collective::kAllGather, 4 << 20) == Protocol::kSimple);
  CHECK(pick(Collective::kReduceScatter, 2 << 20) == Protocol::kLL);
  CHECK(pick(Collective::kReduceScatter, 4 << 20) == Protocol::kSimple);
  CHECK(pick(Collective::kAllGather, 8192) == Protocol::kLL);
  CHECK(pick(Collective::kAllReduce, 1e9) == Protocol::kSimple);
  CHECK(nccl_predicted_us(s, Collective::kAllGather, NcclAlgo::kRing, Protocol::kLL, 2, 1, 2097152) ==
        Approx(7.2 + 2097152.0 / 282000).epsilon(1e-4));
  // NCCL_PROTO=LL128 leaves NCCL one pair.
  auto forced = nccl_pick(s, Collective::kAllGather, 2, 1, 1e9, std::nullopt, Protocol::kLL128);
  REQUIRE(forced);
  CHECK(forced->protocol == Protocol::kLL128);
}

TEST_CASE("NCCL's table by hand on 8 GPUs of one node and over PCIe", "[net][tuner]") {
  NcclTunerSpec s = h200x2_graphs();
  // 8 ranks, ring all-reduce Simple: 14 steps of 3.4 us after the 8.4 us base; bus 360 GB/s
  // times 8/14 -> 205.7 GB/s algorithm bandwidth.
  const NcclTableEntry ring = nccl_table_entry(s, Collective::kAllReduce, NcclAlgo::kRing, Protocol::kSimple, 8, 1);
  CHECK(ring.latency_us == Approx(8.4 + 14 * 3.4));
  CHECK(ring.bandwidth_gbps == Approx(360.0 * 8 / 14));
  // Tree: 2 x 7 intra-node levels of 4.0 us after 8.4 us; min(720 x 0.92, 12 x 38.7) / 2.
  const NcclTableEntry tree = nccl_table_entry(s, Collective::kAllReduce, NcclAlgo::kTree, Protocol::kSimple, 8, 1);
  CHECK(tree.latency_us == Approx(8.4 + 2 * 7 * 4.0));
  CHECK(tree.bandwidth_gbps == Approx(12 * 38.7 / 2));
  // PCIe: no LL128, PCI step latencies (ring LL 1.0 us).
  s.nvlink = false;
  CHECK(nccl_table_entry(s, Collective::kAllGather, NcclAlgo::kRing, Protocol::kLL128, 2, 1).bandwidth_gbps == 0);
  CHECK(nccl_table_entry(s, Collective::kAllGather, NcclAlgo::kRing, Protocol::kLL, 2, 1).latency_us == Approx(7.6));
}

TEST_CASE("NCCL's p2p path: LL up to 16 KiB a peer, else Simple", "[net][tuner]") {
  CHECK(nccl_p2p_protocol(16384) == Protocol::kLL);
  CHECK(nccl_p2p_protocol(16385) == Protocol::kSimple);
  auto sys = load_system("h200x2");
  REQUIRE(sys.ok());
  const NetworkHierarchy& net = sys.value().network;
  auto tuned = [&](Collective c, double bytes) {
    auto r = tune_collective(net, request(c, 2, bytes));
    REQUIRE(r.ok());
    return std::move(r).value();
  };
  // all_to_all of 32 KiB on two ranks sends 16 KiB a peer: LL; 64 KiB: Simple; never LL128.
  CHECK(tuned(Collective::kAllToAll, 32768).protocol == Protocol::kLL);
  CHECK(tuned(Collective::kAllToAll, 65536).protocol == Protocol::kSimple);
  CHECK(tuned(Collective::kAllToAll, 16 << 20).protocol == Protocol::kSimple);
  CHECK(tuned(Collective::kSendRecv, 16384).protocol == Protocol::kLL);
  CHECK(tuned(Collective::kSendRecv, 32768).protocol == Protocol::kSimple);
  // The profile's p2p kernel start (p2p_launch_us Simple 11.08 us) is what an all-to-all pays.
  CHECK(tuned(Collective::kAllToAll, 65536).base_s == Approx(11.08e-6));
  // Ring collectives take NCCL's pick from the profile's graphs: all_reduce Simple from 2 MiB.
  CHECK(tuned(Collective::kAllReduce, 1 << 20).protocol == Protocol::kLL);
  CHECK(tuned(Collective::kAllReduce, 2 << 20).protocol == Protocol::kSimple);
  CHECK(tuned(Collective::kAllGather, 4 << 20).protocol == Protocol::kSimple);
}

TEST_CASE("a profile's nccl_tuner is read with its source; bad fields name the JSON path", "[net][tuner]") {
  auto sys = load_system("h200x2");
  REQUIRE(sys.ok());
  const NcclTunerSpec& t = sys.value().network.nccl_tuner();
  CHECK(t.known());
  CHECK(t.compute_capability == 90);  // the device's arch, sm_90
  CHECK(t.nvlink);
  CHECK(t.ring.channels == 12);
  CHECK(t.tree.bw_intra_gbps == Approx(60));
  CHECK(sys.value().sources.at("nccl_tuner").find("Pattern 4") != std::string::npos);
  // Profiles without one leave the choice to the model (h200x8: graphs not logged yet).
  auto x8 = load_system("h200x8");
  REQUIRE(x8.ok());
  CHECK_FALSE(x8.value().network.nccl_tuner().known());

  std::string source;
  tilesight::Errors errors;
  auto bad = read_nccl_tuner(nlohmann::json::parse(R"({"ring": {"channels": 0, "bw_intra_gbps": 30},
                                                        "tree": {"channels": 12, "bw_gbps": 60}, "source": "log"})"),
                             "nccl_tuner", source, errors);
  CHECK_FALSE(bad);
  REQUIRE(errors.size() >= 2);
  CHECK(errors[0].path == "nccl_tuner.ring.channels");
  bool unknown = false;
  for (const auto& e : errors) unknown |= e.path == "nccl_tuner.tree.bw_gbps";
  CHECK(unknown);
}
