#include "ui/param_checks.h"

#include <QRegularExpression>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/attention.h"
#include "tilesight/kernels/collective.h"
#include "tilesight/kernels/fused_comm.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/kernels/llm_decode.h"
#include "tilesight/kernels/memory_bound.h"
#include "tilesight/kernels/mla_decode.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/kernels/ulysses.h"
#include "tilesight/model/occupancy.h"

namespace tilesight::ui {

namespace {

bool one_of(const std::string& kernel, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (kernel == n) return true;
  return false;
}

// The template's own parser: every field it rejects, all at once.
Errors parse_errors(const std::string& kernel, const nlohmann::json& params) {
  auto errors_of = [](const auto& result) { return result ? Errors{} : result.errors(); };
  if (kernel == "gemm") return errors_of(kernels::parse_gemm_params(params));
  if (kernel == "attention") return errors_of(kernels::parse_attention_params(params));
  if (kernel == "mla_decode") return errors_of(kernels::parse_mla_decode_params(params));
  if (kernel == "llm_decode") return errors_of(kernels::parse_llm_decode_params(params));
  if (kernel == "ulysses_attention") return errors_of(kernels::parse_ulysses_params(params));
  if (one_of(kernel, {"ag_gemm", "gemm_rs"})) return errors_of(kernels::parse_fused_comm_params(kernel, params));
  if (one_of(kernel, {"rmsnorm", "layernorm", "softmax", "silu_mul", "add"}))
    return errors_of(kernels::parse_memory_bound_params(kernel, params));
  if (one_of(kernel, {"all_gather", "reduce_scatter", "all_reduce", "all_to_all"}))
    return errors_of(kernels::parse_collective_params(kernel, params));
  return {};
}

// A block of a single-GPU template that cannot be resident on an SM of the plan's GPU
// (shared memory, registers, threads), as the engine's occupancy rejects it.
Errors occupancy_errors(const nlohmann::json& plan) {
  const std::string hardware = plan.value("hardware", std::string());
  if (hardware.empty()) return {};
  auto input = kernels::read_plan(plan);
  if (!input) return {};  // the parser's errors say it already
  auto hw = hw::load_profile(hardware);
  if (!hw) return {};  // a system profile or a bad name: the engine reports it on "hardware"
  auto occupancy = model::compute_occupancy(input->program.resources, *hw);
  return occupancy ? Errors{} : input->explain(occupancy.errors());
}

QString larger(const char* block, std::int64_t size, const char* dim, std::int64_t extent) {
  return QObject::tr("%1 %2 is larger than %3 %4: most of each tile is padding")
      .arg(QLatin1String(block))
      .arg(size)
      .arg(QLatin1String(dim))
      .arg(extent);
}

void tile_fits(std::vector<ParamProblem>& out, const char* block, std::int64_t size, const char* dim,
               std::int64_t extent) {
  if (size > extent) out.push_back({{QLatin1String(block)}, larger(block, size, dim, extent), false});
}

// Plans the engine runs but nobody means: tiles larger than the problem they cover.
std::vector<ParamProblem> warnings(const std::string& kernel, const nlohmann::json& params) {
  std::vector<ParamProblem> out;
  auto gemm_tiles = [&](const kernels::GemmParams& g) {
    tile_fits(out, "block_m", g.block_m, "M", g.M);
    tile_fits(out, "block_n", g.block_n, "N", g.N);
    tile_fits(out, "block_k", g.block_k, "K", g.K);
  };
  if (kernel == "gemm") {
    if (auto g = kernels::parse_gemm_params(params)) gemm_tiles(*g);
  } else if (one_of(kernel, {"ag_gemm", "gemm_rs"})) {
    if (auto f = kernels::parse_fused_comm_params(kernel, params)) gemm_tiles(f->gemm);
  } else if (kernel == "attention") {
    // Decode (seq_q 1) runs a whole query block for one row by design (FA2's plain kernel).
    if (auto a = kernels::parse_attention_params(params)) {
      if (a->seq_q > 1) tile_fits(out, "block_m", a->block_m, "seq_q", a->seq_q);
      tile_fits(out, "block_n", a->block_n, "seq_kv", a->seq_kv);
    }
  } else if (kernel == "mla_decode") {
    if (auto m = kernels::parse_mla_decode_params(params)) tile_fits(out, "block_n", m->block_n, "seq_kv", m->seq_kv);
  }
  return out;
}

}  // namespace

QStringList fields_of_path(const std::string& path) {
  const QString p = QString::fromStdString(path);
  static const QRegularExpression list(QStringLiteral("^params \\(([^)]*)\\)"));
  if (const auto m = list.match(p); m.hasMatch())
    return m.captured(1).split(QStringLiteral(", "), Qt::SkipEmptyParts);
  if (!p.startsWith(QLatin1String("params."))) return {};
  QString field = p.mid(7);
  field.truncate(field.indexOf(QLatin1Char('[')) < 0 ? field.size() : field.indexOf(QLatin1Char('[')));
  return {field};
}

std::vector<ParamProblem> check_params(const nlohmann::json& plan) {
  if (!plan.is_object() || !plan.contains("params") || !plan.contains("kernel") || !plan["kernel"].is_string())
    return {};
  const std::string kernel = plan["kernel"].get<std::string>();
  const nlohmann::json& params = plan["params"];
  Errors errors = parse_errors(kernel, params);
  if (errors.empty() && one_of(kernel, {"gemm", "attention", "mla_decode"})) errors = occupancy_errors(plan);
  std::vector<ParamProblem> out;
  for (const auto& e : errors) {
    QStringList fields = fields_of_path(e.path);
    out.push_back({fields, QString::fromStdString(e.message), true});
  }
  if (errors.empty()) out = warnings(kernel, params);
  return out;
}

}  // namespace tilesight::ui
