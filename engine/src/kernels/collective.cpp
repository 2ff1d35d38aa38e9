#include "tilesight/kernels/collective.h"

#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

namespace {
constexpr std::int64_t kMaxBytes = std::int64_t{1} << 50;  // 1 PiB: far past any buffer
constexpr std::int64_t kMaxDevices = 4096;
}  // namespace

bool is_collective_kernel(const std::string& kernel) { return net::collective_from_name(kernel).has_value(); }

Result<CollectiveParams> parse_collective_params(const std::string& kernel, const nlohmann::json& params,
                                                 const std::string& path) {
  if (!params.is_object()) return Error{path, "must be an object, got " + json_type_phrase(params)};
  Errors errors;
  FieldReader f{params, path, errors};
  f.reject_unknown({"bytes", "devices", "algorithm", "protocol"});
  CollectiveParams p;
  p.collective = net::collective_from_name(kernel).value_or(net::Collective::kAllReduce);
  p.bytes = static_cast<double>(f.integer("bytes", 1, kMaxBytes).value_or(0));
  p.devices = f.integer("devices", 2, kMaxDevices).value_or(0);
  if (f.has("algorithm")) p.algorithm = f.string("algorithm");
  if (f.has("protocol")) {
    if (auto s = f.string("protocol")) {
      p.protocol = net::protocol_from_name(*s);
      if (!p.protocol) errors.push_back({f.field_path("protocol"), "unknown protocol \"" + *s + "\"; known: LL, LL128, Simple"});
    }
  }
  if (!errors.empty()) return errors;
  return p;
}

}  // namespace tilesight::kernels
