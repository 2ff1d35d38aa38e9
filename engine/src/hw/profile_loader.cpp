// Hardware profiles (docs/hardware-profiles.md): one JSON object per GPU whose groups mirror
// HardwareSpec. Every numeric leaf is a number (its source is the profile's default_source)
// or {"value": number, "source": "..."}; the source of each leaf lands in
// HardwareSpec::sources under the leaf's JSON path, so reports can say where a number came
// from (DESIGN.md, "Hardware profiles"). Parsing collects every error, each with its path.
#include "tilesight/hw/profile_loader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "profile_tables.h"
#include "tilesight/util/json_input.h"

namespace tilesight::hw {
namespace {

using nlohmann::json;
using detail::check_l2_tables;
using detail::format_number;
using detail::kL2Tables;
using detail::read_l2_tables;

// Recorded in HardwareSpec::sources for optional fields the profile leaves out.
constexpr const char* kDefaultValueSource = "not in the profile: built-in default";

enum class Bound { kPositive, kNonNegative, kFraction, kAtLeastOne };

struct Rule {
  Bound bound = Bound::kPositive;
  bool whole = false;  // counts (SMs, registers, ways) must be whole numbers
  bool required = true;
};

constexpr Rule kPositive{Bound::kPositive, false, true};
constexpr Rule kCount{Bound::kPositive, true, true};
constexpr Rule kOptionalCount{Bound::kPositive, true, false};
constexpr Rule kNonNegative{Bound::kNonNegative, false, true};
constexpr Rule kOptionalNonNegative{Bound::kNonNegative, false, false};

template <typename Group>
struct Field {
  const char* key;
  double Group::*member;
  Rule rule;
};

constexpr std::array<Field<HardwareSpec>, 28> kTopFields{{
    {"sm_count", &HardwareSpec::sm_count, kCount},
    {"clock_ghz", &HardwareSpec::clock_ghz, kPositive},
    {"cuda_fp32_flops_per_s", &HardwareSpec::cuda_fp32_flops_per_s, kPositive},
    {"sfu_ops_per_s", &HardwareSpec::sfu_ops_per_s, kPositive},
    {"smem_bandwidth_per_sm", &HardwareSpec::smem_bandwidth_per_sm, kPositive},
    {"tmem_bandwidth_per_sm", &HardwareSpec::tmem_bandwidth_per_sm, kOptionalNonNegative},
    {"dram_bytes", &HardwareSpec::dram_bytes, kPositive},
    {"dram_bandwidth", &HardwareSpec::dram_bandwidth, kPositive},
    {"dram_latency_ns", &HardwareSpec::dram_latency_ns, kNonNegative},
    {"launch_overhead_us", &HardwareSpec::launch_overhead_us, kNonNegative},
    {"dependent_launch_us", &HardwareSpec::dependent_launch_us, kOptionalNonNegative},
    {"pipeline_round_trip_ns", &HardwareSpec::pipeline_round_trip_ns, kOptionalNonNegative},
    {"dram_queue_ns", &HardwareSpec::dram_queue_ns, kOptionalNonNegative},
    {"pipeline_mma_exposure", &HardwareSpec::pipeline_mma_exposure, kOptionalNonNegative},
    {"pipeline_mma_exposure_power", &HardwareSpec::pipeline_mma_exposure_power, kOptionalNonNegative},
    {"pipeline_prologue_ns", &HardwareSpec::pipeline_prologue_ns, kOptionalNonNegative},
    {"pipeline_late_copy_wait_ns", &HardwareSpec::pipeline_late_copy_wait_ns, kOptionalNonNegative},
    {"tile_rate_sd", &HardwareSpec::tile_rate_sd, kOptionalNonNegative},
    {"tile_wave_growth", &HardwareSpec::tile_wave_growth, kOptionalNonNegative},
    {"dram_half_line_efficiency", &HardwareSpec::dram_half_line_efficiency, kOptionalNonNegative},
    {"smem_fill_bandwidth_per_sm", &HardwareSpec::smem_fill_bandwidth_per_sm, kOptionalNonNegative},
    {"l1_sectors_per_clk", &HardwareSpec::l1_sectors_per_clk, kOptionalNonNegative},
    {"l1_lines_per_clk", &HardwareSpec::l1_lines_per_clk, kOptionalNonNegative},
    {"l1_miss_sector_cycles", &HardwareSpec::l1_miss_sector_cycles, kOptionalNonNegative},
    {"dirty_l2_bytes", &HardwareSpec::dirty_l2_bytes, kOptionalNonNegative},
    {"block_reduce_ns", &HardwareSpec::block_reduce_ns, kOptionalNonNegative},
    {"lsu_instruction_cycles", &HardwareSpec::lsu_instruction_cycles, kOptionalNonNegative},
    {"lone_warp_softmax_sfu_multiple", &HardwareSpec::lone_warp_softmax_sfu_multiple,
     kOptionalNonNegative},
}};

constexpr std::array<Field<SmLimits>, 11> kLimitFields{{
    {"smem_bytes_per_sm", &SmLimits::smem_bytes_per_sm, kCount},
    {"smem_bytes_per_block", &SmLimits::smem_bytes_per_block, kCount},
    {"smem_reserved_per_block",
     &SmLimits::smem_reserved_per_block,
     {Bound::kNonNegative, true, false}},
    {"registers_per_sm", &SmLimits::registers_per_sm, kCount},
    {"registers_per_thread", &SmLimits::registers_per_thread, kCount},
    {"register_alloc_unit", &SmLimits::register_alloc_unit, kOptionalCount},
    {"max_warps_per_sm", &SmLimits::max_warps_per_sm, kCount},
    {"max_blocks_per_sm", &SmLimits::max_blocks_per_sm, kCount},
    {"max_threads_per_block", &SmLimits::max_threads_per_block, kOptionalCount},
    {"tmem_bytes_per_sm", &SmLimits::tmem_bytes_per_sm, {Bound::kNonNegative, true, false}},
    {"l1_smem_bytes_per_sm", &SmLimits::l1_smem_bytes_per_sm, {Bound::kNonNegative, true, false}},
}};

constexpr std::array<Field<PowerLimit>, 3> kPowerFields{{
    {"short_kernel_us", &PowerLimit::short_kernel_us, kNonNegative},
    {"long_kernel_us", &PowerLimit::long_kernel_us, kNonNegative},
    {"sustained_fraction", &PowerLimit::sustained_fraction, {Bound::kFraction, false, true}},
}};

// A cache level's capacity and bandwidth are what the model cannot do without; the rest
// has sensible defaults (CacheLevel's initialisers).
constexpr std::array<Field<CacheLevel>, 13> kCacheFields{{
    {"bytes", &CacheLevel::bytes, kPositive},
    {"bandwidth", &CacheLevel::bandwidth, kPositive},
    {"per_sm_bandwidth", &CacheLevel::per_sm_bandwidth, kOptionalNonNegative},
    {"async_bandwidth", &CacheLevel::async_bandwidth, kOptionalNonNegative},
    {"requests_per_s", &CacheLevel::requests_per_s, kOptionalNonNegative},
    {"merge_saving", &CacheLevel::merge_saving, {Bound::kFraction, false, false}},
    {"hit_merge_ns", &CacheLevel::hit_merge_ns, kOptionalNonNegative},
    {"home_race_ns", &CacheLevel::home_race_ns, kOptionalNonNegative},
    {"associativity", &CacheLevel::associativity, {Bound::kAtLeastOne, true, false}},
    {"line_bytes", &CacheLevel::line_bytes, kOptionalCount},
    {"partitions", &CacheLevel::partitions, {Bound::kAtLeastOne, true, false}},
    {"partition_bytes", &CacheLevel::partition_bytes, kOptionalNonNegative},
    {"latency_ns", &CacheLevel::latency_ns, kNonNegative},
}};

std::optional<std::string> bound_problem(double v, Rule rule) {
  const std::string got = ", got " + format_number(v);
  switch (rule.bound) {
    case Bound::kPositive:
      if (!(v > 0)) return "must be positive" + got;
      break;
    case Bound::kNonNegative:
      if (!(v >= 0)) return "must not be negative" + got;
      break;
    case Bound::kFraction:
      if (!(v > 0 && v <= 1)) return "must be in (0, 1]" + got;
      break;
    case Bound::kAtLeastOne:
      if (!(v >= 1)) return "must be at least 1" + got;
      break;
  }
  if (rule.whole && std::floor(v) != v) return "must be a whole number" + got;
  return std::nullopt;
}

template <typename Group, std::size_t N>
std::string known_keys(const std::array<Field<Group>, N>& fields) {
  std::string out;
  for (const auto& f : fields) out += (out.empty() ? "" : ", ") + std::string(f.key);
  return out;
}

// Reads numeric leaves and records where each came from.
class LeafReader {
 public:
  LeafReader(std::optional<std::string> default_source, HardwareSpec& spec, Errors& errors)
      : default_source_(std::move(default_source)), spec_(spec), errors_(errors) {}

  // obj[key] into `out`; a missing optional field keeps `out` and is recorded as a default.
  void read(const json& obj, const std::string& parent, const std::string& key, double& out,
            Rule rule) {
    const std::string path = nest(parent, key);
    if (!obj.contains(key)) {
      if (rule.required)
        errors_.push_back({path, "missing required field"});
      else
        spec_.sources[path] = kDefaultValueSource;
      return;
    }
    std::string source;
    const auto value = leaf_value(obj.at(key), path, source);
    if (!value) return;
    if (auto problem = bound_problem(*value, rule)) {
      errors_.push_back({path, *problem});
      return;
    }
    out = *value;
    spec_.sources[path] = source;
  }

  // Every field of a table, and an error for each key the table does not know.
  // `others`: keys of the table read elsewhere (not numbers), skipped here but listed as known.
  template <typename Group, std::size_t N>
  void read_group(const json& obj, const std::string& path, Group& group,
                  const std::array<Field<Group>, N>& fields, const std::vector<std::string>& others = {}) {
    for (const auto& f : fields) read(obj, path, f.key, group.*(f.member), f.rule);
    for (const auto& [key, value] : obj.items()) {
      const bool known =
          std::any_of(fields.begin(), fields.end(), [&](const auto& f) { return key == f.key; }) ||
          std::find(others.begin(), others.end(), key) != others.end();
      if (!known) {
        std::string names = known_keys(fields);
        for (const auto& o : others) names += ", " + o;
        errors_.push_back({nest(path, key), "unknown field \"" + key + "\" (known: " + names + ")"});
      }
    }
  }

 private:
  // A plain number, or {"value": number, "source": "..."}.
  std::optional<double> leaf_value(const json& leaf, const std::string& path, std::string& source) {
    if (leaf.is_object()) {
      FieldReader r{leaf, path, errors_};
      r.reject_unknown({"value", "source"});
      const auto value = r.number("value", std::numeric_limits<double>::lowest(),
                                  std::numeric_limits<double>::max());
      const auto text = r.string("source");
      if (text && text->empty()) errors_.push_back({nest(path, "source"), "must not be empty"});
      if (!value || !text || text->empty()) return std::nullopt;
      source = *text;
      return value;
    }
    if (!leaf.is_number()) {
      errors_.push_back({path, "must be a number, got " + json_type_phrase(leaf)});
      return std::nullopt;
    }
    if (!default_source_) {
      errors_.push_back(
          {path, "has no source: write {\"value\": " + format_number(leaf.get<double>()) +
                     ", \"source\": \"...\"} or set default_source"});
      return std::nullopt;
    }
    source = *default_source_;
    return leaf.get<double>();
  }

  std::optional<std::string> default_source_;
  HardwareSpec& spec_;
  Errors& errors_;
};

void read_identity(FieldReader& root, HardwareSpec& spec, Errors& errors) {
  if (auto name = root.string("name")) {
    if (name->empty()) errors.push_back({"name", "must not be empty"});
    spec.name = *name;
  }
  spec.display_name = root.string("display_name").value_or("");
  spec.arch = root.string("arch").value_or("");
  if (auto source = root.string("profile_source")) {
    if (*source == profile_source_name(ProfileSource::kMeasured)) {
      spec.profile_source = ProfileSource::kMeasured;
    } else if (*source == profile_source_name(ProfileSource::kDatasheet)) {
      spec.profile_source = ProfileSource::kDatasheet;
    } else {
      errors.push_back(
          {"profile_source", "must be \"measured\" or \"datasheet\", got \"" + *source + "\""});
    }
  }
  if (!root.has("notes")) return;
  const json& notes = root.obj.at("notes");
  const bool texts = notes.is_string() ||
                     (notes.is_array() && std::all_of(notes.begin(), notes.end(),
                                                      [](const json& n) { return n.is_string(); }));
  if (!texts) {
    errors.push_back(
        {"notes", "must be a string or an array of strings, got " + json_type_phrase(notes)});
  }
}

std::optional<std::string> read_default_source(FieldReader& root, Errors& errors) {
  if (!root.has("default_source")) return std::nullopt;
  auto source = root.string("default_source");
  if (source && source->empty()) {
    errors.push_back({"default_source", "must not be empty"});
    return std::nullopt;
  }
  return source;
}

void read_tensor_core(LeafReader& leaves, const json& obj, HardwareSpec& spec, Errors& errors) {
  const std::string path = "tensor_core";
  FieldReader group{obj, path, errors};
  group.reject_unknown({"flops_per_s", "mma_sync_fraction"});
  leaves.read(obj, path, "mma_sync_fraction", spec.tensor_core.mma_sync_fraction,
              {Bound::kFraction, false, false});
  const json* rates = group.object("flops_per_s");
  if (!rates) return;
  const std::string rates_path = nest(path, "flops_per_s");
  if (rates->empty()) errors.push_back({rates_path, "must list at least one dtype"});
  for (const auto& [key, value] : rates->items()) {
    const auto dtype = dtype_from_name(key);
    if (!dtype) {
      errors.push_back({nest(rates_path, key),
                        "unknown dtype \"" + key + "\" (known: bf16, fp16, fp8, tf32, fp32)"});
      continue;
    }
    double rate = 0;
    leaves.read(*rates, rates_path, key, rate, kPositive);
    if (rate > 0) spec.tensor_core.flops_per_s[*dtype] = rate;
  }
}

// l15 may say {"bytes": 0} (no such tier); then nothing else is needed.
void read_l15(LeafReader& leaves, const json& obj, HardwareSpec& spec) {
  if (obj.contains("bytes") && obj.at("bytes").is_number() && obj.at("bytes").get<double>() == 0 &&
      obj.size() == 1) {
    leaves.read(obj, "l15", "bytes", spec.l15.bytes, kNonNegative);
    return;
  }
  leaves.read_group(obj, "l15", spec.l15, kCacheFields);
}

// Limits that only make sense together.
void check_consistency(const HardwareSpec& spec, Errors& errors) {
  const SmLimits& lim = spec.limits;
  if (lim.smem_bytes_per_block + lim.smem_reserved_per_block > lim.smem_bytes_per_sm &&
      lim.smem_bytes_per_sm > 0) {
    errors.push_back(
        {"limits.smem_bytes_per_block",
         "plus smem_reserved_per_block (" + format_number(lim.smem_reserved_per_block) +
             ") must fit in smem_bytes_per_sm (" + format_number(lim.smem_bytes_per_sm) +
             "), got " + format_number(lim.smem_bytes_per_block)});
  }
  const PowerLimit& power = spec.power;
  if (power.sustained_fraction < 1 && power.long_kernel_us <= power.short_kernel_us) {
    errors.push_back({"power.long_kernel_us", "must be greater than short_kernel_us (" +
                                                  format_number(power.short_kernel_us) + "), got " +
                                                  format_number(power.long_kernel_us)});
  }
  check_l2_tables(spec, errors);
  if (spec.has_l15() && spec.l2.bytes > 0 && spec.l15.bytes >= spec.l2.bytes) {
    errors.push_back({"l15.bytes", "must be smaller than l2.bytes (" +
                                       format_number(spec.l2.bytes) + "), got " +
                                       format_number(spec.l15.bytes)});
  }
}

}  // namespace

Result<HardwareSpec> parse_profile(const json& doc) {
  Errors errors;
  if (!doc.is_object())
    return Error{"", "a hardware profile must be a JSON object, got " + json_type_phrase(doc)};
  HardwareSpec spec;
  FieldReader root{doc, "", errors};
  root.reject_unknown({"name",
                       "display_name",
                       "arch",
                       "profile_source",
                       "default_source",
                       "notes",
                       "sm_count",
                       "clock_ghz",
                       "limits",
                       "tensor_core",
                       "power",
                       "cuda_fp32_flops_per_s",
                       "sfu_ops_per_s",
                       "smem_bandwidth_per_sm",
                       "tmem_bandwidth_per_sm",
                       "l15",
                       "l2",
                       "dram_bytes",
                       "dram_bandwidth",
                       "dram_latency_ns",
                       "launch_overhead_us",
                       "dependent_launch_us",
                       "pipeline_round_trip_ns",
                       "dram_queue_ns",
                       "pipeline_mma_exposure",
                       "pipeline_mma_exposure_power",
                       "pipeline_prologue_ns",
                       "pipeline_late_copy_wait_ns",
                       "tile_rate_sd",
                       "tile_wave_growth",
                       "dram_half_line_efficiency",
                       "smem_fill_bandwidth_per_sm",
                       "l1_sectors_per_clk",
                       "l1_lines_per_clk",
                       "l1_miss_sector_cycles",
                       "dirty_l2_bytes",
                       "block_reduce_ns",
                       "lsu_instruction_cycles",
                       "lone_warp_softmax_sfu_multiple"});
  read_identity(root, spec, errors);
  LeafReader leaves{read_default_source(root, errors), spec, errors};
  for (const auto& f : kTopFields) leaves.read(doc, "", f.key, spec.*(f.member), f.rule);
  if (const json* limits = root.object("limits"))
    leaves.read_group(*limits, "limits", spec.limits, kLimitFields);
  if (const json* tc = root.object("tensor_core")) read_tensor_core(leaves, *tc, spec, errors);
  if (const json* power = root.object("power", false))
    leaves.read_group(*power, "power", spec.power, kPowerFields);
  if (const json* l15 = root.object("l15", false)) read_l15(leaves, *l15, spec);
  if (const json* l2 = root.object("l2")) {
    read_l2_tables(*l2, spec, errors);
    leaves.read_group(*l2, "l2", spec.l2, kCacheFields, kL2Tables);
  }
  if (errors.empty()) check_consistency(spec, errors);
  if (!errors.empty()) return errors;
  return spec;
}

}  // namespace tilesight::hw
