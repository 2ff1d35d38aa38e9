// The standalone collective templates (DESIGN.md): all_gather, reduce_scatter, all_reduce,
// all_to_all with `bytes` as nccl-tests' "size", `devices` (the first N GPUs of the system),
// and optional `algorithm` and `protocol` that override the tuner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/net/protocol.h"
#include "tilesight/util/result.h"

namespace tilesight::kernels {

struct CollectiveParams {
  net::Collective collective = net::Collective::kAllReduce;
  double bytes = 0;
  std::int64_t devices = 0;
  std::optional<std::string> algorithm;
  std::optional<net::Protocol> protocol;
};

// True for the names above (and send_recv).
bool is_collective_kernel(const std::string& kernel);

Result<CollectiveParams> parse_collective_params(const std::string& kernel, const nlohmann::json& params,
                                                 const std::string& path = "params");

}  // namespace tilesight::kernels
