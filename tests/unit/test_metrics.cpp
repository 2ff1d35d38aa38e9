// Accuracy metrics of VALIDATION.md, by hand.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/validate/corpus.h"
#include "tilesight/validate/corpus_report.h"
#include "tilesight/validate/metrics.h"

using namespace tilesight::validate;

TEST_CASE("MAPE and wMAPE by hand", "[validate]") {
  // |110-100|/100 = 0.10, |150-200|/200 = 0.25 -> MAPE 0.175; wMAPE (10 + 50) / 300 = 0.2.
  CHECK(mape({110, 150}, {100, 200}) == Approx(0.175));
  CHECK(wmape({110, 150}, {100, 200}) == Approx(0.2));
}

TEST_CASE("Spearman rank correlation by hand", "[validate]") {
  CHECK(spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == Approx(1.0));
  CHECK(spearman({1, 2, 3, 4}, {40, 30, 20, 10}) == Approx(-1.0));
  // Ranks a = 1 2 3 4 5, b = 2 1 4 3 5: sum d^2 = 4 -> rho = 1 - 6*4 / (5*24) = 0.8.
  CHECK(spearman({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}) == Approx(0.8));
  // Ties take the average rank: b ranks 1.5 1.5 3 -> Pearson on ranks = 0.866.
  CHECK(spearman({1, 2, 3}, {5, 5, 7}) == Approx(0.8660254));
}

TEST_CASE("top-5% retention", "[validate]") {
  // 20 configs: the model's fastest pick (index 0) measures 12, the true best is 10 -> 1.2.
  std::vector<double> pred, meas;
  for (int i = 0; i < 20; ++i) {
    pred.push_back(i);
    meas.push_back(i == 0 ? 12 : (i == 7 ? 10 : 20 + i));
  }
  CHECK(top_retention(pred, meas, 0.05) == Approx(1.2));
  CHECK(top_retention(pred, meas, 0.40) == Approx(1.0));  // the top 8 include index 7
}

TEST_CASE("decode corpus rows become llm_decode instances, predicted on a one-GPU profile", "[validate][serve]") {
  // llm_decode.csv's columns: the model's dimensions go into params.model.
  const std::string path = "test_decode_corpus_tmp.csv";
  {
    std::ofstream f(path);
    f << "model,layers,hidden,heads,kv_heads,head_dim,ffn,vocab,batch,ctx,tp,dtype,gqa,us\n"
      << "llama3_8b,32,4096,32,8,128,14336,128256,1,1024,1,bf16,native,4989.67\n";
  }
  auto corpus = read_corpus(path, "h200", "llm_decode");
  std::remove(path.c_str());
  REQUIRE(corpus.ok());
  REQUIRE(corpus->rows.size() == 1);
  const auto& params = corpus->rows[0].plan["params"];
  CHECK(params["model"]["layers"] == 32);
  CHECK(params["model"]["kv_heads"] == 8);
  CHECK(params["model"]["vocab"] == 128256);
  CHECK(params["ctx"] == 1024);
  CHECK_FALSE(params.contains("heads"));
  CHECK(corpus->rows[0].group == "llm_decode batch=1 ctx=1024 tp=1 bf16");
  // One step of 32 layers streams about 16 GB of weights: milliseconds, within the measured's reach.
  const auto report = predict_corpus(*corpus, *tilesight::hw::load_profile("h200"));
  REQUIRE(report.scored.size() == 1);
  CHECK(report.scored[0].predicted_us == Approx(4989.67).epsilon(0.15));
}

TEST_CASE("corpus rows become gemm template instances", "[validate]") {
  const std::string path = "test_corpus_tmp.csv";
  {
    std::ofstream f(path);
    f << "# GPU: NVIDIA H200\nM,N,K,block_m,block_n,block_k,group_m,stages,warps,dtype,ms,tflops\n"
      << "4096,4096,4096,128,128,64,8,3,8,bf16,0.25,549.7\n"
      << "4096,4096,4096,128,128,64,8,3,8,bf16,nan,0\n"
      << "1,2\n";
  }
  auto corpus = read_corpus(path, "h200");
  std::remove(path.c_str());
  REQUIRE(corpus.ok());
  REQUIRE(corpus->rows.size() == 1);
  CHECK(corpus->skipped.size() == 2);
  const auto& row = corpus->rows[0];
  CHECK(row.line == 3);
  CHECK(row.measured_us == Approx(250));
  CHECK(row.plan["kernel"] == "gemm");
  CHECK(row.plan["params"]["block_k"] == 64);
  CHECK(row.plan["params"]["dtype"] == "bf16");
  CHECK(row.group == "gemm M=4096 N=4096 K=4096 bf16");
}
