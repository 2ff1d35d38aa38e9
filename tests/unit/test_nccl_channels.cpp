// NCCL's channels (net/nccl_channels.h) against hand calculations: how many channels a
// collective runs, what they send per GPU, and the bound that puts on a stage (eq. 11 with
// the channel term, net/stage_cost.h).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/net/collective_cost.h"
#include "tilesight/net/system_profile.h"

using namespace tilesight::net;
using nlohmann::json;

namespace {

// Two GPUs on one switch, 450 GB/s x 0.8 per direction, with a made-up channel table: one
// channel sends 20 GB/s, 16 send 240 (15 each), 32 send 320 (10 each); LL's one channel 4.
json two_gpus(const json& channels) {
  json doc = json::parse(R"({
    "name": "pair", "device": "h200", "devices": 2, "switches": ["sw"], "default_source": "test",
    "link_types": {"nv": {"class": "nvlink", "bandwidth": 450e9, "efficiency": 0.8,
                          "alpha_us": {"LL": 0.5, "LL128": 2, "Simple": 4, "source": "test"}}},
    "links": [{"between": ["gpu[0-1]", "sw"], "type": "nv"}],
    "launch_us": {"LL": 15, "LL128": 20, "Simple": 20, "source": "test"}})");
  if (!channels.is_null()) doc["nccl_channels"] = channels;
  return doc;
}

json table() {
  return json::parse(R"({"ring": 24, "p2p": 32, "bytes_per_channel": {"LL": 8192, "LL128": 5120, "Simple": 32768},
    "send_gbps": {"all_gather": {"Simple": [[1, 20], [16, 240], [32, 320]], "LL": [[1, 4]]},
                  "all_to_all": {"Simple": [[1, 15], [32, 300]]}},
    "source": "test"})");
}

SystemSpec parsed(const json& doc) {
  auto s = parse_system(doc);
  INFO((s.ok() ? "" : s.error_text()));
  REQUIRE(s.ok());
  return std::move(s).value();
}

CollectiveRequest pair(Collective c, double bytes) { return {.collective = c, .group = {0, 1}, .bytes = bytes}; }

}  // namespace

TEST_CASE("NCCL adds a ring channel per bytes_per_channel of the buffer, up to its ring count", "[net]") {
  const NcclChannels ch = parsed(two_gpus(table())).network.channels();
  REQUIRE(ch.measured());
  CHECK(ch.channels(Collective::kAllGather, Protocol::kLL, 4096) == 1);        // less than one: still one
  CHECK(ch.channels(Collective::kAllGather, Protocol::kLL, 8192) == 1);
  CHECK(ch.channels(Collective::kAllReduce, Protocol::kLL, 16384) == 2);
  CHECK(ch.channels(Collective::kAllReduce, Protocol::kLL, 65536) == 8);
  CHECK(ch.channels(Collective::kAllReduce, Protocol::kLL, 1 << 20) == 24);    // 128, capped
  CHECK(ch.channels(Collective::kAllGather, Protocol::kSimple, 256 << 10) == 8);
  CHECK(ch.channels(Collective::kAllToAll, Protocol::kSimple, 8192) == 32);   // p2p channels
  CHECK(ch.channels(Collective::kSendRecv, Protocol::kSimple, 1 << 30) == 32);
}

TEST_CASE("k channels reach the aggregate rate X = k x lone x f(X), f from the Simple points", "[net]") {
  const NcclChannels ch = parsed(two_gpus(table())).network.channels();
  // f: 1 at 20 GB/s, 240/16/20 = 0.75 at 240, 320/32/20 = 0.5 at 320, linear between.
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kSimple, 16) == Approx(240e9));  // measured points
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kSimple, 32) == Approx(320e9));
  // 24: X = 480 (0.75 - (X - 240)/320)  ->  2.5 X = 720, X = 288.
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kSimple, 24) == Approx(288e9));
  // 8: X = 160 (1 - (X - 20)/880)  ->  X = 163.64 / 1.1818 = 138.46.
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kSimple, 8) == Approx(160.0 * 900 / 1040 * 1e9));
  // 64, past the last point (the last segment continued): X = 1280 (0.75 - (X - 240)/320) = 384.
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kSimple, 64) == Approx(384e9));
  // LL's own lone channel (4 GB/s), 24 of them: X = 96 (1 - (X - 20)/880)  ->  X = 88.52.
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kLL, 24) == Approx(96.0 * 900 / 976 * 1e9));
  // No LL128 row: a lone channel at 20 x 0.92 (NCCL's tuner share) = 18.4 GB/s; 24 of them:
  // X = 441.6 (0.75 - (X - 240)/320)  ->  2.38 X = 662.4, X = 278.32.
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kLL128, 24) == Approx(662.4 / 2.38 * 1e9));
  // No rows at all for the collective: no channel bound.
  CHECK_FALSE(ch.send_rate(Collective::kReduceScatter, Protocol::kSimple, 24).has_value());
  CHECK_FALSE(ch.send_rate(Collective::kSendRecv, Protocol::kSimple, 32).has_value());
}

TEST_CASE("a stage lasts at least the busiest sender's bytes over its channels' rate", "[net]") {
  const SystemSpec with = parsed(two_gpus(table()));
  const SystemSpec without = parsed(two_gpus(json()));
  // 1 GiB all_gather on two ranks (ring, Simple): one step, each GPU sends 512 MiB through
  // two hops (gpu -> sw -> gpu) of 4 us.
  const double half = 512.0 * 1024 * 1024;
  auto c = tune_collective(with.network, pair(Collective::kAllGather, 2.0 * half), {.protocol = Protocol::kSimple});
  REQUIRE(c.ok());
  CHECK(c->channels == 24);
  CHECK(c->send_rate == Approx(288e9));
  REQUIRE(c->stages.size() == 1);
  const StageCost& st = c->stages.front().cost;
  CHECK(st.channel_s == Approx(half / 288e9));
  CHECK(st.channel_bound());
  CHECK(st.serialisation_s == Approx(half / 288e9));  // the link would take half / 360e9
  CHECK(c->total_s == Approx(20e-6 + 8e-6 + half / 288e9));
  // The same system without measured channels: only the link bounds it.
  auto l = tune_collective(without.network, pair(Collective::kAllGather, 2.0 * half), {.protocol = Protocol::kSimple});
  REQUIRE(l.ok());
  CHECK(l->channels == 0);
  CHECK(l->stages.front().cost.serialisation_s == Approx(half / 360e9));
  CHECK_FALSE(l->stages.front().cost.channel_bound());
  // LL: the link carries half payload (8-byte words of 4 data bytes), 180 GB/s; 24 LL
  // channels send 88.52 GB/s (above), the tighter bound.
  auto ll = tune_collective(with.network, pair(Collective::kAllGather, 2.0 * half), {.protocol = Protocol::kLL});
  REQUIRE(ll.ok());
  CHECK(ll->stages.front().cost.serialisation_s == Approx(half / (96.0 * 900 / 976 * 1e9)));
  for (const auto& load : ll->stages.front().cost.loads) CHECK(load.busy_s == Approx(half / 180e9));
  // A collective without channel rows (reduce_scatter here) keeps NCCL's tuner share on the
  // link for LL: a third of 360 GB/s.
  auto rs = tune_collective(with.network, pair(Collective::kReduceScatter, 2.0 * half), {.protocol = Protocol::kLL});
  REQUIRE(rs.ok());
  CHECK(rs->send_rate == 0);
  CHECK(rs->stages.front().cost.serialisation_s == Approx(half / 120e9));
}

TEST_CASE("a bad nccl_channels names its JSON path", "[net]") {
  json t = table();
  t["send_gbps"]["all_gathr"] = t["send_gbps"]["all_gather"];
  t["send_gbps"]["all_gather"]["Simple"] = json::parse("[[1, 20], [1, 30]]");
  t["send_gbps"]["all_to_all"]["Simpel"] = json::parse("[[1, 20]]");
  t["bytes_per_channel"]["LL"] = 0;
  t.erase("source");
  auto bad = parse_system(two_gpus(t));
  REQUIRE_FALSE(bad.ok());
  const std::string text = bad.error_text();
  CHECK(text.find("nccl_channels.send_gbps.all_gathr") != std::string::npos);
  CHECK(text.find("nccl_channels.send_gbps.all_gather.Simple[1][0]") != std::string::npos);
  CHECK(text.find("nccl_channels.send_gbps.all_to_all.Simpel") != std::string::npos);
  CHECK(text.find("nccl_channels.bytes_per_channel.LL") != std::string::npos);
  CHECK(text.find("nccl_channels.source") != std::string::npos);
}

TEST_CASE("h200x2 reads NCCL's measured channels with their source", "[net]") {
  auto h = load_system("h200x2");
  REQUIRE(h.ok());
  const NcclChannels& ch = h->network.channels();
  // nccl_channels_log.txt: "24 coll channels, ... 32 p2p channels"
  CHECK(ch.ring == 24);
  CHECK(ch.p2p == 32);
  // channels.csv via calibrate_channels.py: one channel of all_gather sends 15.21 GB/s, 16
  // send 220.48 (f = 0.906), 32 send 288.75 (f = 0.593). 24 channels: X = 365.04 f(X) with
  // f linear between those two points -> X = 261.7 GB/s (NCCL's default count here).
  const double lone = 15.21, f16 = 220.48 / 16 / lone, f32 = 288.75 / 32 / lone, top = 24 * lone;
  const double slope = (f32 - f16) / (288.75 - 220.48);
  const double x24 = top * (f16 - slope * 220.48) / (1 - top * slope);
  CHECK(x24 == Approx(261.7).epsilon(1e-3));
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kSimple, 24) == Approx(x24 * 1e9));
  // The rule checked on points it was not given: 16 LL128 channels, 186 GB/s (188.33 measured).
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kLL128, 16) == Approx(188.33e9).epsilon(0.025));
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kLL, 16) == Approx(65.75e9).epsilon(0.03));
  CHECK(h->sources.at("nccl_channels").find("nccl_channels.py") != std::string::npos);
  // Other systems measure no channels: their stages stay link-bound.
  auto x8 = load_system("h200x8");
  REQUIRE(x8.ok());
  CHECK_FALSE(x8->network.channels().measured());
}

TEST_CASE("sized channel rates: each size's curve, log-size interpolation between sizes", "[net]") {
  json t = table();
  // 1 MiB: 16 channels send 160 GB/s (f = 0.5 of the lone 20); 4 MiB: 320 (f = 1, no loss).
  t["send_gbps_by_bytes"] = json::parse(R"({"all_gather": {"Simple": [
      {"bytes": 1048576, "gbps": [[1, 20], [16, 160]]}, {"bytes": 4194304, "gbps": [[1, 20], [16, 320]]}]}})");
  const NcclChannels ch = parsed(two_gpus(t)).network.channels();
  const auto rate = [&](std::int64_t k, double bytes) { return *ch.send_rate(Collective::kAllGather, Protocol::kSimple, k, bytes); };
  CHECK(rate(16, 1 << 20) == Approx(160e9));   // measured points
  CHECK(rate(16, 4 << 20) == Approx(320e9));
  CHECK(rate(16, 2 << 20) == Approx(240e9));   // half-way in log(bytes)
  CHECK(rate(16, 64 << 10) == Approx(160e9));  // clamped at the ends
  CHECK(rate(16, 1 << 30) == Approx(320e9));
  // 8 channels at 1 MiB: X = 160 (1 - 0.5 (X - 20) / 140)  ->  X (1 + 80/140) = 160 + 1600/140.
  CHECK(rate(8, 1 << 20) == Approx((160.0 + 1600.0 / 140) / (1 + 80.0 / 140) * 1e9));
  CHECK(rate(8, 4 << 20) == Approx(160e9));
  // Without a size, and for protocols without sized rows, the unsized points as before.
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kSimple, 16) == Approx(240e9));
  CHECK(*ch.send_rate(Collective::kAllGather, Protocol::kLL, 24, 1 << 20) == Approx(96.0 * 900 / 976 * 1e9));
  // A collective costs its stage at the size's rate: 2 MiB all_gather, 24 channels.
  auto c = tune_collective(parsed(two_gpus(t)).network, pair(Collective::kAllGather, 2 << 20), {.protocol = Protocol::kSimple});
  REQUIRE(c.ok());
  CHECK(c->send_rate == Approx(rate(24, 2 << 20)));
}

TEST_CASE("h200x2 send/recv sends at its measured rate by size, above the link's 16-64 MiB", "[net]") {
  auto h = load_system("h200x2");
  REQUIRE(h.ok());
  const NcclChannels& ch = h->network.channels();
  // calibrate_channels.py from p2p_sizes.csv: 64 MiB in a median 210.97 us, less p2p_launch_us
  // Simple 11.08 and one step's 2 x 4.18 -> 350.39 GB/s on NCCL's 32 p2p channels.
  CHECK(*ch.send_rate(Collective::kSendRecv, Protocol::kSimple, 32, 64.0 * (1 << 20)) == Approx(350.39e9));
  auto c = tune_collective(h->network, pair(Collective::kSendRecv, 64.0 * (1 << 20)), {});
  REQUIRE(c.ok());
  CHECK(c->protocol == Protocol::kSimple);
  CHECK(c->total_s * 1e6 == Approx(11.08 + 2 * 4.18 + 64.0 * (1 << 20) / 350.39e3).epsilon(1e-4));
}

TEST_CASE("bad sized channel rates name their JSON path", "[net]") {
  json t = table();
  t["send_gbps_by_bytes"] = json::parse(R"({"all_gather": {"Simple": [
      {"bytes": 4194304, "gbps": [[1, 20]]}, {"bytes": 1048576, "gbps": [[1, 20]]}, {"bytes": 8388608}]},
      "all_reduse": {"Simple": []}, "reduce_scatter": {"Simple": []}})");
  auto bad = parse_system(two_gpus(t));
  REQUIRE_FALSE(bad.ok());
  const std::string text = bad.error_text();
  CHECK(text.find("nccl_channels.send_gbps_by_bytes.all_gather.Simple[1].bytes") != std::string::npos);
  CHECK(text.find("nccl_channels.send_gbps_by_bytes.all_gather.Simple[2].gbps") != std::string::npos);
  CHECK(text.find("nccl_channels.send_gbps_by_bytes.all_reduse") != std::string::npos);
  CHECK(text.find("nccl_channels.send_gbps_by_bytes.reduce_scatter.Simple") != std::string::npos);
}
