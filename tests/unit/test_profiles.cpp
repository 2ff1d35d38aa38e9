// Hardware profiles (docs/hardware-profiles.md): the shipped ones load, their numbers match
// their files and every number says where it came from; broken ones are rejected with the
// JSON path of each problem; the data folder is found.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "profile_test_doc.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/util/data_dir.h"
#include "tilesight/util/json_input.h"

namespace fs = std::filesystem;
using nlohmann::json;
using tilesight::test::has_error;
using tilesight::test::shipped_doc;
using tilesight::DType;
using tilesight::MmaInstruction;
using tilesight::hw::HardwareSpec;

namespace {

const std::vector<std::string> kShipped = {"a100", "b200", "b6000", "h100", "h200", "mi210"};

fs::path source_dir() {
  return TILESIGHT_TEST_SOURCE_DIR;
}


bool is_leaf(const json& v) {
  return v.is_number() || (v.is_object() && v.contains("value"));
}
double leaf_value(const json& v) {
  return v.is_number() ? v.get<double>() : v.at("value").get<double>();
}

// JSON paths of every numeric leaf ("l2.bytes", "tensor_core.flops_per_s.bf16").
void collect_leaves(const json& obj, const std::string& path, std::vector<std::string>& out) {
  for (const auto& [key, value] : obj.items()) {
    const std::string child = path.empty() ? key : path + "." + key;
    if (is_leaf(value))
      out.push_back(child);
    else if (value.is_object())
      collect_leaves(value, child, out);
  }
}

const json& at_path(const json& doc, const std::string& path) {
  const json* node = &doc;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    node = &node->at(path.substr(start, dot - start));
    if (dot == std::string::npos) return *node;
    start = dot + 1;
  }
}

// Sets or unsets an environment variable for one scope.
class EnvGuard {
 public:
  EnvGuard(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~EnvGuard() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A fresh folder under the system temp dir, removed at the end of the scope.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    path = fs::temp_directory_path() /
           ("tilesight_" + tag + "_" + std::to_string(std::rand()) + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Restores the default lookup even when a REQUIRE fails.
struct DataDirOverride {
  explicit DataDirOverride(const fs::path& dir) { tilesight::set_data_dir(dir); }
  ~DataDirOverride() { tilesight::set_data_dir({}); }
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("every shipped profile loads and is listed", "[hw]") {
  const auto listed = tilesight::hw::list_profiles();
  for (const auto& name : kShipped) {
    INFO(name);
    CHECK(std::find(listed.begin(), listed.end(), name) != listed.end());
    auto spec = tilesight::hw::load_profile(name);
    INFO((spec.ok() ? "" : spec.error_text()));
    REQUIRE(spec.ok());
    CHECK(spec->name == name);
    // Only the H200 has been calibrated on the real GPU (hw_profiles/calibrate/h200/).
    CHECK(spec->profile_source == (name == std::string("h200") ? tilesight::hw::ProfileSource::kMeasured
                                                               : tilesight::hw::ProfileSource::kDatasheet));
    CHECK_FALSE(spec->display_name.empty());
  }
}

TEST_CASE("shipped profiles hold the numbers of their files", "[hw]") {
  for (const auto& name : kShipped) {
    INFO(name);
    const json doc = shipped_doc(name);
    const auto spec = tilesight::hw::load_profile(name);
    REQUIRE(spec.ok());
    CHECK(spec->sm_count == leaf_value(doc["sm_count"]));
    CHECK(spec->clock_ghz == leaf_value(doc["clock_ghz"]));
    CHECK(spec->limits.smem_bytes_per_sm == leaf_value(doc["limits"]["smem_bytes_per_sm"]));
    CHECK(spec->l2.bytes == leaf_value(doc["l2"]["bytes"]));
    CHECK(spec->l2.bandwidth == leaf_value(doc["l2"]["bandwidth"]));
    CHECK(spec->dram_bandwidth == leaf_value(doc["dram_bandwidth"]));
    CHECK(spec->launch_overhead_us == leaf_value(doc["launch_overhead_us"]));
    const double bf16 = leaf_value(doc["tensor_core"]["flops_per_s"]["bf16"]);
    CHECK(spec->tensor_flops(DType::kBF16, MmaInstruction::kWgmma) == bf16);
    CHECK(spec->tensor_flops(DType::kBF16, MmaInstruction::kMmaSync) ==
          Approx(bf16 * spec->tensor_core.mma_sync_fraction));
  }
}

TEST_CASE("the H200 profile: measured on the H200 (hw_profiles/calibrate/h200/)", "[hw]") {
  const auto h200 = tilesight::hw::load_profile("h200");
  REQUIRE(h200.ok());
  CHECK(h200->sm_count == 132);
  CHECK(h200->l2.bytes == 56e6);  // bw_sweep.csv: bandwidth falls past 56 MB of the 60 MiB
  CHECK(h200->l2.partitions == 2);
  // l2_retention.cu: a partition loses a line after 29.1 MiB of its stream (SDCM, A = 16).
  CHECK(h200->l2.partition_bytes == 30.5e6);
  CHECK(h200->sources.at("l2.partition_bytes").find("l2_retention.cu") != std::string::npos);
  CHECK_FALSE(h200->has_l15());
  CHECK_FALSE(h200->has_tmem());
  // tc_ramp.csv: the cuBLAS probe reaches 816 TFLOP/s with the tensor cores 96% busy.
  CHECK(h200->tensor_flops(DType::kBF16, MmaInstruction::kWgmma) == Approx(850e12));
  CHECK(h200->tensor_flops(DType::kBF16, MmaInstruction::kMmaSync) == Approx(0.67 * 850e12));
  CHECK(h200->tensor_flops(DType::kFP8, MmaInstruction::kWgmma) == Approx(1641e12));
  CHECK(h200->dependent_launch_us == Approx(0.68));  // launch_overhead.csv, CUDA graph
  CHECK(h200->tensor_flops(DType::kFP32, MmaInstruction::kWgmma) == 0);
  CHECK(h200->power.sustained_fraction == Approx(0.84));
  CHECK(h200->dram_bandwidth == Approx(4.4e12));     // bw_sweep.csv DRAM plateau
  CHECK(h200->launch_overhead_us == Approx(3.5));   // launch_overhead.csv
  CHECK(h200->limits.smem_bytes_per_block == 227 * 1024);
  CHECK(h200->limits.l1_smem_bytes_per_sm == 256 * 1024);  // unified L1 + shared memory
  CHECK(h200->l1_miss_sector_cycles == Approx(2.95));     // staged_l1.csv, median of 27
  CHECK(h200->sources.at("l1_miss_sector_cycles").find("staged_l1.py") != std::string::npos);
  // sm_partition.cu: one CTA an SM, launch slots 0-15 run next to one L2 partition, 16-63 next
  // to the other (sm_dispatch.csv.gz, sm_partition.csv.gz); maps for 1-8, 10, 12, 16 CTAs an SM.
  REQUIRE(h200->l2.slot_partition.size() == 11);
  const auto& one = h200->l2.slot_partition.front();
  CHECK(one.resident == 1);
  REQUIRE(one.partition.size() == 132);
  CHECK(std::count(one.partition.begin(), one.partition.begin() + 16, one.partition[0]) == 16);
  CHECK(std::count(one.partition.begin() + 16, one.partition.begin() + 64, 1 - one.partition[0]) == 48);
  CHECK(std::count(one.partition.begin(), one.partition.end(), 0) == 66);  // 66 SMs next to each
  CHECK(h200->l2.slot_partition.back().resident == 16);
  CHECK(h200->l2.slot_partition.back().partition.size() == 132 * 16);
  CHECK(h200->sources.at("cuda_fp32_flops_per_s").find("measured on H200") != std::string::npos);
  CHECK(h200->sources.at("limits.max_warps_per_sm").find("compute capability 9.0") !=
        std::string::npos);
}

TEST_CASE("other GPUs: L1.5 and TMEM on the B200, no fp8 before Hopper", "[hw]") {
  const auto b200 = tilesight::hw::load_profile("b200");
  REQUIRE(b200.ok());
  CHECK(b200->has_l15());
  CHECK(b200->l15.bytes < b200->l2.bytes);
  CHECK(b200->has_tmem());
  CHECK(b200->limits.tmem_bytes_per_sm == 256 * 1024);
  const auto a100 = tilesight::hw::load_profile("a100");
  REQUIRE(a100.ok());
  CHECK(a100->tensor_flops(DType::kFP8, MmaInstruction::kWgmma) == 0);
  CHECK(a100->tensor_flops(DType::kFP16, MmaInstruction::kMmaSync) ==
        a100->tensor_flops(DType::kFP16, MmaInstruction::kWgmma));
  const auto mi210 = tilesight::hw::load_profile("mi210");
  REQUIRE(mi210.ok());
  CHECK(mi210->limits.max_warps_per_sm == 64);  // 32 wavefronts of 64 = 64 warps of 32
  CHECK(mi210->tensor_flops(DType::kFP8, MmaInstruction::kWgmma) == 0);
}

TEST_CASE("every number of every shipped profile has a source", "[hw]") {
  for (const auto& name : kShipped) {
    const json doc = shipped_doc(name);
    const auto spec = tilesight::hw::load_profile(name);
    REQUIRE(spec.ok());
    std::vector<std::string> leaves;
    collect_leaves(doc, "", leaves);
    CHECK(leaves.size() > 30);
    for (const auto& path : leaves) {
      INFO(name << ": " << path);
      REQUIRE(spec->sources.count(path) == 1);
      CHECK_FALSE(spec->sources.at(path).empty());
      const json& leaf = at_path(doc, path);
      if (leaf.is_object()) CHECK(spec->sources.at(path) == leaf.at("source").get<std::string>());
    }
    for (const auto& [path, source] : spec->sources) {
      INFO(name << ": " << path);
      CHECK_FALSE(source.empty());
    }
  }
}

TEST_CASE("broken profiles name the path and the problem", "[hw]") {
  json doc = shipped_doc("h200");
  REQUIRE(tilesight::hw::parse_profile(doc).ok());

  SECTION("each problem alone") {
    json missing = doc;
    missing.erase("sm_count");
    CHECK(has_error(tilesight::hw::parse_profile(missing).errors(),
                    "sm_count: missing required field"));

    json negative = doc;
    negative["l2"]["bandwidth"] = -1;
    CHECK(has_error(tilesight::hw::parse_profile(negative).errors(),
                    "l2.bandwidth: must be positive, got -1"));

    json zero = doc;
    zero["l2"]["bytes"] = {{"value", 0}, {"source", "typo"}};
    CHECK(has_error(tilesight::hw::parse_profile(zero).errors(),
                    "l2.bytes: must be positive, got 0"));

    json text = doc;
    text["sm_count"] = "132";
    CHECK(has_error(tilesight::hw::parse_profile(text).errors(),
                    "sm_count: must be a number, got a string"));

    json saving = doc;
    saving["l2"]["merge_saving"] = 1.25;
    CHECK(has_error(tilesight::hw::parse_profile(saving).errors(), "l2.merge_saving: must be in (0, 1], got 1.25"));
    saving["l2"]["merge_saving"] = 0.75;
    REQUIRE(tilesight::hw::parse_profile(saving).ok());
    CHECK(tilesight::hw::parse_profile(saving).value().l2.merge_saving == 0.75);
    saving["l2"].erase("merge_saving");
    CHECK(tilesight::hw::parse_profile(saving).value().l2.merge_saving == 1);  // absent: all of it

    json hit_merge = doc;
    hit_merge["l2"]["hit_merge_ns"] = -1;
    CHECK(has_error(tilesight::hw::parse_profile(hit_merge).errors(), "l2.hit_merge_ns: must not be negative, got -1"));
    hit_merge["l2"]["hit_merge_ns"] = 34;
    REQUIRE(tilesight::hw::parse_profile(hit_merge).ok());
    CHECK(tilesight::hw::parse_profile(hit_merge).value().l2.hit_merge_ns == 34);
    hit_merge["l2"].erase("hit_merge_ns");
    CHECK(tilesight::hw::parse_profile(hit_merge).value().l2.hit_merge_ns == 0);  // absent: no window

    json race = doc;
    race["l2"]["home_race_ns"] = -5;
    CHECK(has_error(tilesight::hw::parse_profile(race).errors(), "l2.home_race_ns: must not be negative, got -5"));
    race["l2"]["home_race_ns"] = 65;
    REQUIRE(tilesight::hw::parse_profile(race).ok());
    CHECK(tilesight::hw::parse_profile(race).value().l2.home_race_ns == 65);
    race["l2"].erase("home_race_ns");
    CHECK(tilesight::hw::parse_profile(race).value().l2.home_race_ns == 0);  // absent: stream order

    json partition = doc;
    partition["l2"]["partition_bytes"] = -1;
    CHECK(has_error(tilesight::hw::parse_profile(partition).errors(),
                    "l2.partition_bytes: must not be negative, got -1"));
    partition["l2"]["partition_bytes"] = 30.5e6;
    REQUIRE(tilesight::hw::parse_profile(partition).ok());
    CHECK(tilesight::hw::parse_profile(partition).value().l2.partition_bytes == 30.5e6);
    partition["l2"].erase("partition_bytes");
    CHECK(tilesight::hw::parse_profile(partition).value().l2.partition_bytes == 0);  // absent: bytes / partitions

    json unknown = doc;
    unknown["l2"]["size"] = 1;
    const auto errors = tilesight::hw::parse_profile(unknown).errors();
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].path == "l2.size");
    CHECK(errors[0].message.rfind("unknown field \"size\"", 0) == 0);
    CHECK(errors[0].message.find(", cyclic_hit, async_per_sm, short_row_lookups, hit_merge_load, slot_partition, "
                                 "grid_partition, grid_gpc, slot_gpc)") != std::string::npos);  // the tables
  }

  SECTION("every problem at once") {
    doc.erase("sm_count");
    doc["l2"]["bandwidth"] = -1;
    doc["clock_ghz"] = "fast";
    doc["limits"]["max_warps"] = 64;
    doc["tensor_core"]["flops_per_s"]["int4"] = 1e15;
    doc["tensor_core"]["mma_sync_fraction"] = {{"value", 1.5}, {"source", "guess"}};
    doc["limits"]["registers_per_thread"] = 255.5;
    doc["profile_source"] = "guessed";
    const auto result = tilesight::hw::parse_profile(doc);
    REQUIRE_FALSE(result.ok());
    const auto& errors = result.errors();
    CHECK(errors.size() == 8);
    CHECK(has_error(errors, "sm_count: missing required field"));
    CHECK(has_error(errors, "l2.bandwidth: must be positive, got -1"));
    CHECK(has_error(errors, "clock_ghz: must be a number, got a string"));
    CHECK(has_error(errors, "tensor_core.mma_sync_fraction: must be in (0, 1], got 1.5"));
    CHECK(has_error(errors, "limits.registers_per_thread: must be a whole number, got 255.5"));
    CHECK(has_error(errors,
                    "tensor_core.flops_per_s.int4: unknown dtype \"int4\" (known: bf16, fp16, fp8, "
                    "tf32, fp32)"));
    CHECK(has_error(errors,
                    "profile_source: must be \"measured\" or \"datasheet\", got \"guessed\""));
  }

  SECTION("a number without a source") {
    doc.erase("default_source");
    const auto errors = tilesight::hw::parse_profile(doc).errors();
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].path == "sm_count");
    CHECK(errors[0].message.find("has no source") != std::string::npos);

    json empty = shipped_doc("h200");
    empty["dram_bandwidth"] = {{"value", 4.2e12}, {"source", ""}};
    CHECK(has_error(tilesight::hw::parse_profile(empty).errors(),
                    "dram_bandwidth.source: must not be empty"));
  }

  SECTION("limits that contradict each other") {
    doc["limits"]["smem_bytes_per_block"] = 233472;
    const auto errors = tilesight::hw::parse_profile(doc).errors();
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].path == "limits.smem_bytes_per_block");
  }

  SECTION("optional fields and an absent L1.5 tier") {
    doc["l15"] = {{"bytes", 0}};
    doc["l2"].erase("associativity");
    const auto spec = tilesight::hw::parse_profile(doc);
    REQUIRE(spec.ok());
    CHECK_FALSE(spec->has_l15());
    CHECK(spec->l2.associativity == 16);
    CHECK(spec->sources.at("l2.associativity") == "not in the profile: built-in default");
    doc["l15"]["bandwidth"] = 1e12;
    CHECK(has_error(tilesight::hw::parse_profile(doc).errors(),
                    "l15.bytes: must be positive, got 0"));
  }

  SECTION("not an object") {
    CHECK(tilesight::hw::parse_profile(json::array()).error_text() ==
          "a hardware profile must be a JSON object, got an array");
  }
}

TEST_CASE("unknown hardware names the known profiles", "[hw]") {
  const auto result = tilesight::hw::load_profile("h300");
  REQUIRE_FALSE(result.ok());
  const std::string text = result.error_text();
  CHECK(text.rfind("unknown hardware \"h300\"; known: ", 0) == 0);
  for (const auto& name : kShipped) CHECK(text.find(name) != std::string::npos);
  CHECK_FALSE(tilesight::hw::load_profile("../hw_profiles/h200").ok());
}

TEST_CASE("profile files: errors name the file", "[hw]") {
  TempDir tmp("profile_file");
  const fs::path missing = tmp.path / "nowhere.json";
  const auto absent = tilesight::hw::load_profile(missing.string());
  REQUIRE_FALSE(absent.ok());
  CHECK(absent.error_text().find(missing.string()) != std::string::npos);

  json doc = shipped_doc("h200");
  doc["l2"]["bytes"] = 0;
  const fs::path broken = tmp.path / "broken.json";
  write_file(broken, doc.dump(2));
  const auto result = tilesight::hw::load_profile(broken.string());
  REQUIRE_FALSE(result.ok());
  CHECK(result.errors()[0].path == "l2.bytes");
  CHECK(result.error_text() == "l2.bytes: " + broken.string() + ": must be positive, got 0");

  doc["l2"]["bytes"] = 62914560;
  write_file(broken, doc.dump(2));
  CHECK(tilesight::hw::load_profile(broken.string()).ok());
}

TEST_CASE("the data folder: build tree, TILESIGHT_DATA, set_data_dir", "[hw]") {
  TempDir tmp("data_dir");
  fs::create_directories(tmp.path / "hw_profiles");
  fs::copy_file(source_dir() / "hw_profiles" / "h200.json", tmp.path / "hw_profiles" / "mine.json");
  TempDir empty("data_dir_empty");

  SECTION("found from the build folder") {
    EnvGuard env("TILESIGHT_DATA", nullptr);
    const auto dir = tilesight::data_dir();
    REQUIRE(dir.has_value());
    CHECK(fs::equivalent(*dir, source_dir()));
  }
  SECTION("TILESIGHT_DATA wins when it holds hw_profiles/") {
    EnvGuard env("TILESIGHT_DATA", tmp.path.c_str());
    REQUIRE(tilesight::data_dir().has_value());
    CHECK(fs::equivalent(*tilesight::data_dir(), tmp.path));
    CHECK(tilesight::hw::list_profiles() == std::vector<std::string>{"mine"});
    CHECK(tilesight::hw::load_profile("mine").ok());
    CHECK_FALSE(tilesight::hw::load_profile("h200").ok());
  }
  SECTION("TILESIGHT_DATA without hw_profiles/ is skipped") {
    EnvGuard env("TILESIGHT_DATA", empty.path.c_str());
    REQUIRE(tilesight::data_dir().has_value());
    CHECK(fs::equivalent(*tilesight::data_dir(), source_dir()));
  }
  SECTION("set_data_dir overrides everything until cleared") {
    EnvGuard env("TILESIGHT_DATA", empty.path.c_str());
    {
      DataDirOverride override_dir(tmp.path);
      CHECK(*tilesight::data_dir() == tmp.path);
      CHECK(tilesight::hw::load_profile("mine").ok());
    }
    CHECK(fs::equivalent(*tilesight::data_dir(), source_dir()));
  }
}
