// What the graph runtime and the passes need to know about ops beyond their OpDefs. Listed by
// name until the OpDef grows flags for them.
#pragma once

#include "core/tensor.h"
#include "ops/op_def.h"

namespace duet {

// Ops whose kernels never read their inputs' elements, only dtypes and shapes (Shape, Size, Rank,
// ZerosLike, OnesLike): their results are known once the input shapes are.
bool ReadsOnlyShapes(const OpDef& op);

// Stateful ops whose kernels read their value inputs during the call and keep none of them: the
// variable updates apply `delta` to the variable's own tensor (Note [Variables copy on write] in
// kernels/cpu/state/variable_kernels.cc), or the product of two of them
// (_ResourceApplyMatMulGradientDescent). Their inputs, usually gradients, may then live in a
// plan's arena like any intermediate. AssignVariableOp keeps its value, so it is not one of them.
bool KeepsNoInputs(const OpDef& op);

// A tensor with only a dtype and shape (no value), for kernels that ReadsOnlyShapes and for
// inferring shapes ahead of a run.
Tensor ShapeOnly(DType dtype, const Shape& shape);

}  // namespace duet
