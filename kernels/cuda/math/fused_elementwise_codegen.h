// CUDA C++ source for a _FusedElementwise program (Note [Elementwise programs] in
// ops/math/elementwise_program.h): one kernel, one thread per output element in a grid-stride
// loop, each instruction a call of the device functor its unfused op's kernel uses
// (elementwise_functors.cu.h), so fused and unfused results agree. Pure string building: no CUDA
// calls, so it is tested without a GPU.
//
// The generated kernel is
//   extern "C" __global__ void duet_fused_elementwise(const T* in0, ..., const T* in{N-1},
//                                                    T* out, long long n)
// where input i with single[i] holds one element that broadcasts and every other input holds n.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "ops/math/elementwise_program.h"

namespace duet::cuda {

// The generated kernel's name (extern "C", so unmangled).
inline constexpr char kFusedElementwiseKernelName[] = "duet_fused_elementwise";
// The name under which the source includes the functors; pass it to CompileCuda with
// ElementwiseFunctorsSource() as the header's text.
inline constexpr char kElementwiseFunctorsHeaderName[] = "duet_elementwise_functors.cu.h";

// The text of elementwise_functors.cu.h, embedded at build time.
absl::string_view ElementwiseFunctorsSource();

// The kernel source for `program` (decoded, so its operands are valid) over inputs of `dtype`
// (float32 or float64), single[i] telling which inputs hold one element. InvalidArgument for
// another dtype or a `single` of the wrong length.
absl::StatusOr<std::string> GenerateFusedElementwiseSource(const ElementwiseProgram& program,
                                                           DType dtype,
                                                           absl::Span<const bool> single);

}  // namespace duet::cuda
