// CK(call): abort the calibration program with the CUDA error and its place. Shared by the
// microbenchmarks in this folder (each is built alone: nvcc -O3 -arch=sm_90a -o X X.cu).
#pragma once

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_),      \
              __FILE__, __LINE__);                                              \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)
