// DUET_HOST_DEVICE marks a function that host code and CUDA device code (.cu files, nvcc, C++17)
// both compile: __host__ __device__ under nvcc, a plain inline function elsewhere. Headers that
// use it must compile as C++17 and must not call constexpr host functions (std::array,
// std::numeric_limits members) from such functions: nvcc rejects those in device code.
#pragma once

#if defined(__CUDACC__)
#define DUET_HOST_DEVICE __host__ __device__ inline
#else
#define DUET_HOST_DEVICE inline
#endif
