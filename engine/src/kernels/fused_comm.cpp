#include "tilesight/kernels/fused_comm.h"

#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

namespace {
constexpr std::int64_t kMaxDevices = 4096;

double out_bytes(DType in) {
  if (in == DType::kFP8) return dtype_bytes(DType::kBF16);
  if (in == DType::kTF32) return dtype_bytes(DType::kFP32);
  return dtype_bytes(in);
}
}  // namespace

const char* overlap_name(Overlap o) {
  switch (o) {
    case Overlap::kNone: return "none";
    case Overlap::kStream: return "stream";
    case Overlap::kFused: return "fused";
  }
  return "fused";
}

GemmParams local_gemm(const FusedCommParams& p) {
  GemmParams g = p.gemm;
  if (p.kernel == "ag_gemm") g.N = p.gemm.N / p.devices;
  else g.K = p.gemm.K / p.devices;
  return g;
}

GemmParams piece_gemm(const FusedCommParams& p) {
  GemmParams g = local_gemm(p);
  g.M = p.gemm.M / (p.chunks > 0 ? p.chunks : p.devices);
  return g;
}

double collective_bytes(const FusedCommParams& p) {
  const double m = static_cast<double>(p.gemm.M);
  if (p.kernel == "ag_gemm") return m * static_cast<double>(p.gemm.K) * dtype_bytes(p.gemm.dtype);
  return m * static_cast<double>(p.gemm.N) * out_bytes(p.gemm.dtype);
}

nlohmann::json read_comm_fields(const nlohmann::json& params, const std::string& path, CommFields& out,
                                Errors& errors) {
  FieldReader f{params, path, errors};
  out.devices = f.integer("devices", 2, kMaxDevices).value_or(0);
  out.comm_sms_given = f.has("comm_sms");
  out.comm_sms = f.integer("comm_sms", 0, 1024, 16).value_or(16);
  if (f.has("algorithm")) out.algorithm = f.string("algorithm");
  if (auto o = f.string("overlap", "fused")) {
    if (*o == "none") out.overlap = Overlap::kNone;
    else if (*o == "stream") out.overlap = Overlap::kStream;
    else if (*o == "fused") out.overlap = Overlap::kFused;
    else errors.push_back({f.field_path("overlap"), "unknown overlap \"" + *o + "\"; known: none, stream, fused"});
  }
  nlohmann::json rest = params;
  for (const char* k : {"devices", "comm_sms", "algorithm", "overlap"}) rest.erase(k);
  return rest;
}

Result<FusedCommParams> parse_fused_comm_params(const std::string& kernel, const nlohmann::json& params,
                                                const std::string& path) {
  if (!params.is_object()) return Error{path, "must be an object, got " + json_type_phrase(params)};
  Errors errors;
  FusedCommParams p;
  p.kernel = kernel;
  // The rest are the gemm template's parameters, read (and checked for typos) by its parser.
  nlohmann::json rest = read_comm_fields(params, path, p, errors);
  if (rest.contains("chunks")) {
    FieldReader f{params, path, errors};
    if (kernel != "gemm_rs") errors.push_back({f.field_path("chunks"), "only gemm_rs cuts its GEMM into chunks"});
    else p.chunks = f.integer("chunks", 1, 4096).value_or(0);
    rest.erase("chunks");
  }
  auto g = parse_gemm_params(rest, path);
  if (!g) {
    errors.insert(errors.end(), g.errors().begin(), g.errors().end());
    return errors;
  }
  p.gemm = *g;
  if (!errors.empty()) return errors;
  auto must_divide = [&](const char* key, std::int64_t v) {
    if (v % p.devices != 0)
      errors.push_back({nest(path, key), "must be a multiple of devices (" + std::to_string(p.devices) + "), got " +
                                             std::to_string(v)});
  };
  must_divide("M", p.gemm.M);  // the row shards of A (ag_gemm) and of C (gemm_rs)
  if (p.chunks > 0 && p.gemm.M % (p.chunks * p.devices) != 0)
    errors.push_back({nest(path, "M"), "must be a multiple of chunks x devices (" + std::to_string(p.chunks * p.devices) +
                                           "), got " + std::to_string(p.gemm.M)});
  must_divide(kernel == "ag_gemm" ? "N" : "K", kernel == "ag_gemm" ? p.gemm.N : p.gemm.K);
  if (p.gemm.split_k > 1 || p.gemm.batch > 1)
    errors.push_back({path, "split_k and batch are not supported by " + kernel + " yet"});
  if (!errors.empty()) return errors;
  return p;
}

}  // namespace tilesight::kernels
