// Declaring and calling the many one-line elementwise ops of this family.
#pragma once

#include <vector>

#include "core/tensor.h"
#include "ops/op_def.h"
#include "ops/op_site.h"

namespace duet {

// The kinds of binary op RegisterBinaryOp declares: arithmetic (z is T), commutative or not (the
// passes may reorder the operands of a commutative op), or a comparison (z is bool).
enum class BinaryOpKind { kCommutative, kNonCommutative, kComparison };

// Registers a binary op `name(x: T, y: T) -> z` with NumPy broadcasting (Atan2 names its
// inputs y, x, as TensorFlow does); `tf_difference` as OpDefBuilder::TfDifference.
const OpDef* RegisterBinaryOp(const char* name, std::vector<DType> types, const char* doc,
                              BinaryOpKind kind, const char* first = "x", const char* second = "y",
                              const char* tf_difference = "");

// Registers a unary op `name(<input>: T) -> <output>: T` (TensorFlow names the arguments x/y,
// or features/activations for activations).
const OpDef* RegisterUnaryOp(const char* name, std::vector<DType> types, const char* doc,
                             const char* input = "x", const char* output = "y");

// Calls a registered binary op.
Tensor CallBinaryOp(const OpDef* op, const Tensor& x, const Tensor& y, OpSite site);

// Calls a registered unary op.
Tensor CallUnaryOp(const OpDef* op, const Tensor& x, OpSite site);

// The dtypes of arithmetic that also works on integers: every float type, int32, int64.
inline const std::vector<DType> kArithmeticTypes = {kFloat32,  kFloat64, kFloat16,
                                                    kBFloat16, kInt32,   kInt64};
// The dtypes of floating-point-only math (transcendentals, RealDiv, Floor, ...).
inline const std::vector<DType> kMathFloatTypes = {kFloat32, kFloat64, kFloat16, kBFloat16};

}  // namespace duet
