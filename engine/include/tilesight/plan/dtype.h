// Element types of tensors and tensor-core paths.
#pragma once

#include <optional>
#include <string_view>

namespace tilesight {

// fp8 is e4m3 in, bf16 out (DESIGN.md); tf32 is fp32 storage with tf32 tensor-core math.
enum class DType { kBF16, kFP16, kFP8, kTF32, kFP32 };

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kBF16: return "bf16";
    case DType::kFP16: return "fp16";
    case DType::kFP8: return "fp8";
    case DType::kTF32: return "tf32";
    case DType::kFP32: return "fp32";
  }
  return "?";
}

// Bytes per element in memory.
constexpr double dtype_bytes(DType t) {
  switch (t) {
    case DType::kBF16:
    case DType::kFP16: return 2.0;
    case DType::kFP8: return 1.0;
    case DType::kTF32:
    case DType::kFP32: return 4.0;
  }
  return 0.0;
}

inline std::optional<DType> dtype_from_name(std::string_view s) {
  for (DType t : {DType::kBF16, DType::kFP16, DType::kFP8, DType::kTF32, DType::kFP32})
    if (dtype_name(t) == s) return t;
  return std::nullopt;
}

// The tensor-core instruction family: wgmma (Hopper warp-group MMA), mma.sync (Ampere
// style, about two thirds of Hopper's wgmma rate; DESIGN.md) or tcgen05.mma (Blackwell: one
// thread issues it, the accumulator lives in tensor memory). wgmma and tcgen05 run at the
// profile's full tensor-core rate.
enum class MmaInstruction { kWgmma, kMmaSync, kTcgen05 };

constexpr std::string_view mma_name(MmaInstruction m) {
  return m == MmaInstruction::kWgmma ? "wgmma" : m == MmaInstruction::kMmaSync ? "mma_sync" : "tcgen05";
}

inline std::optional<MmaInstruction> mma_from_name(std::string_view s) {
  for (MmaInstruction m : {MmaInstruction::kWgmma, MmaInstruction::kMmaSync, MmaInstruction::kTcgen05})
    if (mma_name(m) == s) return m;
  return std::nullopt;
}

}  // namespace tilesight
