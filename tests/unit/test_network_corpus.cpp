// The network model against the two-H200 NCCL corpus (tests/validation/h200x2, issue 8),
// through the same path as `tilesight-cli validate` (validate/network_corpus.h). A
// regression guard, not a fit: hw_profiles/h200x2.json takes its link efficiency, per-hop
// latencies and launch latencies from p2p.csv and the 8-64 KiB rows only
// (tests/validation/h200x2/calibrate_net.py), and NCCL's channels from their own
// microbenchmark (nccl_channels.py, calibrate_channels.py). Figures on 2026-11-29 after the
// channel model (before it, link-bound with NCCL's tuner shares: < 1 MiB 10.3%, 1-64 MiB
// 19.8%, >= 64 MiB 21.2%, all 16.7% MAPE / 17.4% wMAPE; before any calibration, 40.9% /
// 17.7%). 2026-11-30: Simple channel rates by message size (channel_sizes.py, 4 MiB - 4 GiB
// at 4-32 forced channels): all 10.1 -> 9.3% MAPE, 7.4 -> 3.3% wMAPE, >= 64 MiB 5.4 -> 3.2%,
// 1-64 MiB 13.6 -> 13.1%. Then the algorithm and protocol NCCL's tuner picks (net/nccl_tuner.h,
// its table checked against NCCL's log) and NCCL's p2p kernel start (p2p_launch_us): all 9.3
// -> 8.1% MAPE, 3.3 -> 3.1% wMAPE, < 1 MiB 11.1 -> 10.8%, 1-64 MiB 13.1 -> 10.3%, >= 64 MiB
// 3.2 -> 2.6%. Each bound is the figure plus one point.
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/model/distributed.h"
#include "tilesight/net/collective_cost.h"
#include "tilesight/net/system_profile.h"
#include "tilesight/validate/metrics.h"
#include "tilesight/validate/network_corpus.h"

using namespace tilesight;

namespace {

struct Scored {
  validate::Accuracy all;
  std::map<std::string, validate::Accuracy> bands;
};

Scored score(const std::string& file) {
  auto corpus = validate::read_network_corpus(std::string(TILESIGHT_TEST_SOURCE_DIR) + "/tests/validation/h200x2/" + file,
                                              "h200x2");
  REQUIRE(corpus.ok());
  std::vector<double> p, m;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_band;
  for (const auto& row : corpus->rows) {
    auto pred = model::predict_distributed(row.plan, "", {.timeline = false});
    INFO(row.line << ": " << (pred.ok() ? "" : pred.error_text()));
    REQUIRE(pred.ok());
    p.push_back(pred->latency_us);
    m.push_back(row.measured_us);
    by_band[row.group].first.push_back(pred->latency_us);
    by_band[row.group].second.push_back(row.measured_us);
  }
  Scored s{.all = validate::accuracy(p, m)};
  for (const auto& [band, pm] : by_band) s.bands[band] = validate::accuracy(pm.first, pm.second);
  return s;
}

}  // namespace

TEST_CASE("collectives on two H200s stay within the recorded error, by message size", "[net][corpus]") {
  const Scored s = score("collectives.csv");
  REQUIRE(s.all.rows == 188);
  INFO("MAPE " << s.all.mape << " wMAPE " << s.all.wmape);
  CHECK(s.all.mape < 0.092);   // 8.1%
  CHECK(s.all.wmape < 0.041);  // 3.1%
  CHECK(s.bands.at("< 1 MiB").mape < 0.118);    // 10.8% (70 rows)
  CHECK(s.bands.at("1-64 MiB").mape < 0.114);   // 10.3% (60 rows)
  CHECK(s.bands.at(">= 64 MiB").mape < 0.036);  // 2.6% (58 rows)
}

TEST_CASE("point-to-point on two H200s: the calibration source, reproduced", "[net][corpus]") {
  const Scored s = score("p2p.csv");
  REQUIRE(s.all.rows == 30);  // the one-way rows; both-ways rows have no template
  INFO("MAPE " << s.all.mape);
  // 7.8% (6.9% before launch_us/alpha_us were re-derived with the channel term); 8.3% with
  // NCCL's p2p protocol (Simple past 16 KiB): the 1-16 MiB rows of this run are 8-43% slower
  // than the same sizes in p2p_sizes.csv (2026-11-30), which the model meets within 6%.
  // 0.35% when a p2p op paid the ring kernel's Simple start (28.5 us), which matched the
  // 26.5 us intercept of the 64 MiB - 4 GiB fit the bandwidth came from; 1.4% with NCCL's p2p
  // start (19.4 us, the 32-256 KiB Simple rows): 64 MiB now 5.6% fast. The intercept is no
  // start-up: a peer's bytes take 16 of NCCL's p2p channels up to 256 MiB and 32 above
  // (nccl_tuner.h), so the rate still rises across the fit's sizes. 2026-11-30: send/recv at
  // its rate by size (calibrate_channels.py: 4-64 MiB from p2p_sizes.csv's medians, 128 MiB -
  // 4 GiB from these rows, so that band reproduces its source): all 8.3 -> 7.35%, 1-64 MiB
  // 18.3 -> 15.0% (16 / 32 / 64 MiB -15.8 / -3.2 / -5.6% -> -11.2 / +1.9 / -0.4%; the 16 MiB
  // row is 13% slower than p2p_sizes.csv's median), >= 64 MiB 1.4 -> 0.08%.
  CHECK(s.all.mape < 0.084);
  CHECK(s.bands.at("1-64 MiB").mape < 0.160);
  CHECK(s.bands.at(">= 64 MiB").mape < 0.011);
}

TEST_CASE("h200x2's launch latencies are read from the profile with their source", "[net]") {
  auto h = net::load_system("h200x2");
  REQUIRE(h.ok());
  CHECK(h->profile_source == hw::ProfileSource::kMeasured);
  // calibrate_net.py: all_gather 8-64 KiB medians less one ring step.
  CHECK(h->network.launch_latency(net::Protocol::kLL) == Approx(15.41e-6));
  CHECK(h->network.launch_latency(net::Protocol::kLL128) == Approx(21.31e-6));
  CHECK(h->network.launch_latency(net::Protocol::kSimple) == Approx(20.11e-6));
  CHECK(h->sources.at("launch_us").find("calibrate_net.py") != std::string::npos);
  // An 8 KiB LL all_gather on two ranks: launch + one step of two NVSwitch hops + 4 KiB
  // sent by one LL channel (8 KiB per channel) at 4.1 GB/s (below the link's 371.8 / 2):
  // 15.41 + 2 x 0.44 + 0.999 = 17.29 us.
  net::CollectiveRequest r{.collective = net::Collective::kAllGather, .group = {0, 1}, .bytes = 8192};
  auto c = net::tune_collective(h->network, r, {.protocol = net::Protocol::kLL});
  REQUIRE(c.ok());
  CHECK(c->channels == 1);
  CHECK(c->total_s * 1e6 == Approx(15.41 + 2 * 0.44 + 4096 / 4.1e9 * 1e6).epsilon(1e-6));
  // Profiles without "launch_us" keep NCCL's model constants (tuning.cc baseLat, Ring row).
  auto x8 = net::load_system("h200x8");
  REQUIRE(x8.ok());
  CHECK(x8->network.launch_latency(net::Protocol::kSimple) == Approx(8.4e-6));
}

TEST_CASE("a bad launch_us names its JSON path", "[net]") {
  auto doc = nlohmann::json::parse(R"({"name": "t", "device": "h200", "devices": 2, "switches": ["sw"],
    "default_source": "test",
    "link_types": {"nv": {"class": "nvlink", "bandwidth": 450e9, "efficiency": 0.8,
                          "alpha_us": {"LL": 0.3, "LL128": 0.95, "Simple": 1.7, "source": "test"}}},
    "links": [{"between": ["gpu[0-1]", "sw"], "type": "nv"}],
    "launch_us": {"LL": -1, "Simpel": 3, "source": "test"}})");
  auto bad = net::parse_system(doc);
  REQUIRE_FALSE(bad.ok());
  const std::string text = bad.error_text();
  CHECK(text.find("launch_us.LL") != std::string::npos);
  CHECK(text.find("launch_us") != std::string::npos);
  CHECK(text.find("Simpel") != std::string::npos);
}

TEST_CASE("fused compute-communication on two H200s stays within the recorded error", "[net][corpus]") {
  // ag_gemm / gemm_rs with cuBLAS's tile config; stream after the occupancy rule
  // (model/stream_share.h; before it, with NCCL taking 16 SMs beside the GEMM, stream was
  // ag_gemm 20.4% / gemm_rs 25.5% MAPE, predicted too fast). Ulysses's error is the local
  // attention's, not the network's: with FlashAttention-2's kernel it was 34-36%; the rows
  // now run cuDNN's Hopper kernel, which the compute rows show torch's default SDPA picked
  // (validate::cudnn_attention_params): 11.3%. With NCCL's
  // channels (the collectives slower, as measured): gemm_rs none 6.2 -> 2.5%, but ag_gemm
  // none 2.2 -> 4.6%, ag_gemm stream 3.3 -> 3.5%, gemm_rs stream 2.7 -> 4.6% (the serial
  // rule no longer hides behind a too-fast reduce-scatter), Ulysses 34.4 -> 36.0%; all
  // 8.9 -> 9.35%. With the channel rates by message size: ag_gemm none 4.6 -> 5.3%, stream
  // 3.5 -> 4.1%, gemm_rs none 2.5 -> 2.8%, stream 4.6 -> 4.7%, Ulysses 11.3 -> 11.2%; all
  // 5.1 -> 5.4%. With cuDNN's persistent kernel walking a head's query blocks first (FA3's
  // scheduler; the CTAs in flight share K/V): Ulysses 11.2 -> 10.8% (32K tokens 17.5 -> 2.0%,
  // the 8K, causal and d64 rows now 13-22% fast), all 5.4 -> 5.4%.
  // With the collectives NCCL's tuner picks (Simple where the model took
  // LL128): the standalone collectives of this corpus (its 12 `comm` rows, not scored here)
  // 5.1 -> 1.4%, but the GEMM's over-prediction no longer hides behind a too-fast LL128
  // (ag_gemm M=2048: compute 156 us measured, ~186 predicted): ag_gemm none 5.3 -> 6.2%,
  // stream 4.1 -> 5.0%, gemm_rs none 2.8 -> 3.4%, stream 4.7 -> 9.0% (the stream rule's
  // slowdown, stream predicted 8% over none where measured equal), Ulysses 10.8 -> 10.0% (its
  // all-to-alls on NCCL's p2p path); all 5.4 -> 6.6%. (The 156 us was on zeros: torch.empty
  // memory; on random data 172 us, stream_pieces.csv.) 2026-11-30: NCCL's kernel enters in
  // the last round of tiles of cuBLAS's persistent GEMM (model/stream_share.h, measured in
  // stream_timeline.csv; was serial): ag_gemm stream 5.0 -> 2.4%, gemm_rs stream 9.0 -> 9.4%
  // (wMAPE 9.2 -> 6.7%: the 2048- and 4096-row rows, 365 and 599 us here, are now predicted
  // 305 and 516 us as their profiled iterations run, 306 and 531), all 6.6 -> 6.2%.
  // 2026-11-30: torch's permute copies around Ulysses' all-to-alls (test_torch_copies.cpp;
  // its comm rows 35-42% -> 1-4% fast): Ulysses 10.2 -> 10.8%, wMAPE 7.2 -> 10.5% (the
  // copies had hidden the local attention's over-prediction: cuDNN's kernel 811 us at 8K
  // tokens in ulysses_timeline.csv, 1004 predicted), all 6.2 -> 6.3%, wMAPE 5.7 -> 7.1%.
  // 2026-11-30: cuDNN's kernel as its SASS runs it (128-row blocks of two warp groups sharing
  // K/V, each group's chain in turn, each tile's Q refilled; docs/attention-model.md): 8K
  // tokens 851 us predicted (kernel) against that 811; Ulysses 10.8 -> 2.9%, wMAPE 10.5 -> 3.2%, all
  // 6.3 -> 5.0%, wMAPE 7.1 -> 4.0%. 2026-11-30: a reduce-scatter beside the GEMM runs slower
  // by the GEMM's DRAM/L2 share (model/comm_contention.h, rs_contention.csv): gemm_rs stream
  // 9.5 -> 8.1%, ag_gemm stream 2.4 -> 2.65%, all 4.97 -> 4.72%, wMAPE 3.98 -> 3.85%.
  const Scored s = score("fused.csv");
  REQUIRE(s.all.rows == 29);
  CHECK(s.bands.at("ag_gemm none").mape < 0.073);    // 6.2%
  CHECK(s.bands.at("ag_gemm stream").mape < 0.037);  // 2.65%
  CHECK(s.bands.at("gemm_rs none").mape < 0.045);    // 3.4%
  CHECK(s.bands.at("gemm_rs stream").mape < 0.091);  // 8.1%
  CHECK(s.bands.at("ulysses_attention none").mape < 0.040);  // 2.9%
  CHECK(s.all.mape < 0.058);   // 4.7%
  CHECK(s.all.wmape < 0.049);  // 3.85%
}
