// Multi-GPU corpora (tests/validation/<system>/README.md) as template instances of the
// cross-device model, each row a plan for model::predict_distributed:
//
//   collectives.csv  collective, devices, bytes, proto, time_us   -> {"kernel": collective,
//                    "params": {bytes, devices, protocol unless proto is "default"}}
//   p2p.csv          direction, src, dst, bytes, time_us           -> send_recv (direction
//                    "uni"; "bi", both ways at once, has no template and is skipped)
//   fused.csv        kind, devices, M, N, K, batch, heads, seq, head_dim, causal, mode,
//                    time_us -> ag_gemm / gemm_rs / ulysses_attention with overlap = mode
//                    (none, stream; gemm_rs stream with chunks = 4, as collectives.py
//                    runs it); the component rows (compute, comm) are skipped
//
// The measured time is `time_us` (CUDA-graph replay, device time). Rows are grouped into
// bands for the report: message size (< 1 MiB, 1-64 MiB, >= 64 MiB) for collectives and
// point-to-point, kind and mode for fused rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tilesight/validate/corpus.h"

namespace tilesight::validate {

enum class NetworkCorpusKind { kCollectives, kPointToPoint, kFused };

// From a CSV header line's cells; nullopt for a single-GPU corpus.
std::optional<NetworkCorpusKind> network_corpus_kind(const std::vector<std::string>& header);

// The kind of the CSV at `path` (its first line that is not a '#' comment), nullopt when it
// is no network corpus or cannot be read.
std::optional<NetworkCorpusKind> network_corpus_kind(const std::string& path);

// Band of a message size for reports: "< 1 MiB", "1-64 MiB", ">= 64 MiB".
std::string size_band(double bytes);

// GEMM tile config of the fused rows' local GEMMs: cuBLAS's nvjet persistent cooperative
// kernel that tests/validation/h200/cublas_gemm_params.csv names for large bf16 GEMMs on the
// H200 (128 x 256 x 64 tiles, 4 stages, 12 warps, cluster 2 x 1 along M x N: the name's
// "1x2" as cublas_params.py reads it). The kernels the fused corpus ran
// (tests/validation/h200x2/stream_timeline.csv) are this one for most pieces; six of the
// twelve whole GEMMs and 8192 x 28672's pieces ran 320x128 or 192x192 tiles, which the
// model predicts slower still (the 24 GEMM rows 5.4 -> 5.7% MAPE with the tiles that ran).
nlohmann::json cublas_tile_params();

// Attention config of the Ulysses rows' local attention: what torch's default SDPA backend
// ran there. The fused corpus's `compute` rows match the H200 SDPA corpus's CUDNN_ATTENTION
// times for the same local problem, not FLASH_ATTENTION's (1 x 16 heads x 16384, head dim
// 128: 3376 us measured; cuDNN 3593, FlashAttention-2 6262 in tests/validation/h200/
// attention_sdpa.csv), whose kernel is sm90_flash_fprop_wgmma 64x128, 4x1x1: read as
// validate/attention_rows.cpp reads it (fa3, wgmma, 128 x 128 blocks of two 64-row warp
// groups, 12 warps).
nlohmann::json cudnn_attention_params();

// Reads the corpus; rows become plans on `hardware` (a system profile); `group` holds the
// band. Unreadable rows and rows with no template land in `skipped` with their line.
Result<Corpus> read_network_corpus(const std::string& path, const std::string& hardware);

}  // namespace tilesight::validate
