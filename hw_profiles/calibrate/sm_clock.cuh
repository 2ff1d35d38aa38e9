// smid(): the SM a thread runs on; gtimer(): the GPU's global nanosecond timer (%globaltimer,
// ticking every 32 ns on the H200). Shared by the microbenchmarks in this folder that place
// or pace work by SM and time.
#pragma once

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
