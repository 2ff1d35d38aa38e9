// DistributedTileMap and remote accesses inferred from placement (net/distributed_tile_map.h,
// net/remote_access.h; issue 7), against hand counts of the bytes each device must receive.
#include <catch2/catch.hpp>

#include "tilesight/net/remote_access.h"
#include "tilesight/net/system_profile.h"

using namespace tilesight::net;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

RemoteAccess infer(const TensorShape& t, const Placement& from, const Placement& to) {
  auto a = infer_remote_access(t, from, to);
  INFO((a.ok() ? "" : a.error_text()));
  REQUIRE(a.ok());
  return std::move(a).value();
}

}  // namespace

TEST_CASE("sequence-sharded activations consumed whole are an all-gather", "[net][tilemap]") {
  // ag_gemm's A: 4096 x 8192 bf16 = 64 MiB, rows sharded over 4 GPUs; every GPU needs all
  // of it: each receives the 3 other shards of 4096/4 x 8192 x 2 B = 16 MiB.
  const TensorShape a{.name = "A", .dims = {4096, 8192}, .element_bytes = 2};
  const auto r = infer(a, Placement::sharded(0, {0, 1, 2, 3}), Placement::replicated({0, 1, 2, 3}));
  REQUIRE(r.exchanges.size() == 12);
  for (const auto& e : r.exchanges) CHECK(e.bytes == 16 * kMiB);
  CHECK(r.pattern == "all_gather");
  REQUIRE(r.collective);
  CHECK(r.collective->bytes == 64 * kMiB);  // nccl-tests size: the all-gather output
}

TEST_CASE("a row-parallel GEMM's partial output, kept by rows, is a reduce-scatter", "[net][tilemap]") {
  // gemm_rs's C: 4096 x 4096 bf16 = 32 MiB of partial sums on 4 GPUs; GPU i keeps rows
  // [1024 i, 1024 (i+1)): it receives the other 3 partials of its 8 MiB block.
  const TensorShape c{.name = "C", .dims = {4096, 4096}, .element_bytes = 2};
  const auto r = infer(c, Placement::partial({0, 1, 2, 3}), Placement::sharded(0, {0, 1, 2, 3}));
  REQUIRE(r.exchanges.size() == 12);
  CHECK(r.exchanges.front().bytes == 8 * kMiB);
  CHECK(r.pattern == "reduce_scatter");
  CHECK(r.collective->bytes == 32 * kMiB);
  // Data parallel: replicated weights, partial gradients (fp32 4096 x 4096 = 64 MiB) that
  // every replica needs whole: an all-reduce of 64 MiB (each pair's partial is the whole).
  const TensorShape g{.name = "dW", .dims = {4096, 4096}, .element_bytes = 4};
  const auto dp = infer(g, Placement::partial({0, 1, 2, 3}), Placement::replicated({0, 1, 2, 3}));
  CHECK(dp.pattern == "all_reduce");
  CHECK(dp.collective->bytes == 64 * kMiB);
  CHECK(dp.bytes() == 12 * 64 * kMiB);  // the naive exchange volume; the ring moves 2(n-1)/n of S each
}

TEST_CASE("Ulysses: sequence shards to head shards are an all-to-all", "[net][tilemap]") {
  // Q of 8192 tokens x 32 heads x 128 bf16 = 64 MiB, sequence-sharded over 2 GPUs, needed
  // head-sharded: each GPU sends the other 4096 tokens x 16 heads x 128 x 2 B = 16 MiB.
  const TensorShape q{.name = "Q", .dims = {8192, 32, 128}, .element_bytes = 2};
  const auto r = infer(q, Placement::sharded(0, {0, 1}), Placement::sharded(1, {0, 1}));
  REQUIRE(r.exchanges.size() == 2);
  CHECK(r.exchanges[0].bytes == 16 * kMiB);
  CHECK(r.pattern == "all_to_all");
  CHECK(r.collective->bytes == 32 * kMiB);  // each GPU's send buffer: its 32 MiB shard
  // Expert parallel dispatch, uniform routing: tokens x expert slots x hidden, token-sharded
  // to expert-sharded over 4 GPUs: 4096 x 8 x 1024 bf16 = 64 MiB; each pair 1024 x 2 x 1024
  // x 2 B = 4 MiB.
  const TensorShape x{.name = "dispatch", .dims = {4096, 8, 1024}, .element_bytes = 2};
  const auto ep = infer(x, Placement::sharded(0, {0, 1, 2, 3}), Placement::sharded(1, {0, 1, 2, 3}));
  CHECK(ep.exchanges.size() == 12);
  CHECK(ep.exchanges.front().bytes == 4 * kMiB);
  CHECK(ep.pattern == "all_to_all");
}

TEST_CASE("placements that already match need nothing; one holder to one reader is a send", "[net][tilemap]") {
  const TensorShape b{.name = "B", .dims = {8192, 4096}, .element_bytes = 2};
  // Megatron column-parallel: B's column shards are where the N tiles that read them run.
  CHECK(infer(b, Placement::sharded(1, {0, 1}), Placement::sharded(1, {0, 1})).pattern == "none");
  CHECK(infer(b, Placement::replicated({0, 1}), Placement::sharded(0, {0, 1})).exchanges.empty());
  const auto p2p = infer(b, Placement::replicated({0}), Placement::replicated({1}));
  CHECK(p2p.pattern == "send_recv");
  CHECK(p2p.collective->bytes == 64 * kMiB);
  // A replica read by a GPU outside its group: equal parts from both holders, no collective.
  const auto pull = infer(b, Placement::replicated({0, 1}), Placement::replicated({2}));
  REQUIRE(pull.exchanges.size() == 2);
  CHECK(pull.exchanges[0].bytes == 32 * kMiB);
  CHECK(pull.pattern == "exchanges");
  auto bad = infer_remote_access(b, Placement::replicated({0}), Placement::partial({1}));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "consumed.kind");
}

TEST_CASE("a grid cut along N puts each block of tiles on its device", "[net][tilemap]") {
  // GEMM 4096 x 4096 in 128 x 128 tiles: a 32 x 32 grid; tensor parallel over N on 4 GPUs:
  // N tiles 0-7 on gpu0, 8-15 on gpu1, ...; 32 x 8 = 256 tiles each.
  const TensorShape bt{.name = "B", .dims = {4096, 4096}, .element_bytes = 2};
  auto m = DistributedTileMap::build({32, 32}, {.kind = Parallelism::kTensor, .dim = 1, .devices = {0, 1, 2, 3}},
                                     {{"B", {bt, Placement::sharded(1, {0, 1, 2, 3})}}});
  REQUIRE(m.ok());
  CHECK(m->device_of({0, 0}) == 0);
  CHECK(m->device_of({5, 7}) == 0);
  CHECK(m->device_of({5, 8}) == 1);
  CHECK(m->device_of({31, 31}) == 3);
  CHECK(m->tiles_on(2) == 256);
  CHECK(m->tiles_on(7) == 0);
  // Uneven: 10 tiles over 4 devices are blocks of 2, 3, 2, 3 (block_of: i*10/4).
  auto uneven = DistributedTileMap::build({10}, {.kind = Parallelism::kSequence, .dim = 0, .devices = {0, 1, 2, 3}}, {});
  REQUIRE(uneven.ok());
  CHECK(uneven->tiles_on(0) == 2);
  CHECK(uneven->tiles_on(1) == 3);
  CHECK(uneven->device_of({4}) == 1);
  CHECK(uneven->device_of({5}) == 2);
  auto bad = DistributedTileMap::build({32, 32}, {.dim = 2, .devices = {0}}, {});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "partition.dim");
  auto bad_tensor = DistributedTileMap::build({32, 32}, {.dim = 0, .devices = {0, 1}},
                                              {{"B", {bt, Placement::sharded(2, {0, 1})}}});
  REQUIRE_FALSE(bad_tensor.ok());
  CHECK(bad_tensor.errors()[0].path == "tensors.B.dim");
}

TEST_CASE("inferred accesses cost what the network model says", "[net][tilemap]") {
  auto sys = load_system("h200x2");
  REQUIRE(sys.ok());
  const TensorShape a{.name = "A", .dims = {8192, 8192}, .element_bytes = 2};
  const auto ag = infer(a, Placement::sharded(0, {0, 1}), Placement::replicated({0, 1}));
  auto t = remote_access_seconds(sys->network, ag);
  REQUIRE(t.ok());
  CollectiveRequest same{.collective = Collective::kAllGather, .group = {0, 1}, .bytes = 128 * kMiB};
  CHECK(*t == Approx(tune_collective(sys->network, same)->total_s));
  // A pull from two holders on h200x8: launch (NCCL's Simple baseLat 8.4 us) + two hops of
  // 1.7 us + both 32 MiB halves through gpu2's one NVSwitch port at 450 GB/s x 0.8.
  auto x8 = load_system("h200x8");
  REQUIRE(x8.ok());
  const TensorShape b{.name = "B", .dims = {8192, 4096}, .element_bytes = 2};
  const auto pull = infer(b, Placement::replicated({0, 1}), Placement::replicated({2}));
  auto tp = remote_access_seconds(x8->network, pull);
  REQUIRE(tp.ok());
  CHECK(*tp == Approx(8.4e-6 + 2 * 1.7e-6 + 64 * kMiB / (450e9 * 0.8)));
  // On h200x2 there is no gpu2: an error naming the devices.
  auto missing = remote_access_seconds(sys->network, pull);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.errors()[0].path == "devices");
}
