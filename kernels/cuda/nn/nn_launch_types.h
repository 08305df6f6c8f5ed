// The C-like vocabulary shared by the nn family's nvcc-compiled launchers (.cu, C++17) and the
// kernels that call them (.cc, C++20): element types and activations as plain enums, so that the
// launcher headers need neither duet nor Abseil headers.
#pragma once

namespace duet::cuda {

// Element types of the nn launchers (duet's float16/bfloat16 share __half/__nv_bfloat16's bits).
enum class NnType { kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64 };

// Elementwise activations, TensorFlow's definitions (kernels/cpu/math/functors.h,
// kernels/cpu/nn/fused_epilogue.cc): Relu x<0?0:x, Relu6 clip to [0, 6], Elu x>0?x:expm1(x),
// Tanh, Sigmoid, LeakyRelu x>0?x:alpha*x, Softplus max(x,0)+log1p(exp(-|x|)).
enum class NnActivation { kNone, kRelu, kRelu6, kElu, kTanh, kSigmoid, kLeakyRelu, kSoftplus };

}  // namespace duet::cuda
