// OpCall: one call of an op (op, inputs, attrs, call site), and the helpers op functions use to
// hand a call to the current execution context.
#pragma once

#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "core/tensor.h"
#include "ops/attr_value.h"
#include "ops/op_def.h"
#include "ops/op_site.h"

namespace duet {

// Inputs and outputs of one op call; most ops have at most a few.
using TensorList = absl::InlinedVector<Tensor, 4>;
using OutputList = absl::InlinedVector<Tensor, 2>;

struct OpCall {
  const OpDef* op = nullptr;
  TensorList inputs;
  AttrList attrs;  // positional, see AttrList
  OpSite site;

  // A call of `op` with its default attrs.
  OpCall(const OpDef* op, TensorList inputs, OpSite site)
      : op(op), inputs(std::move(inputs)), attrs(op->default_attrs), site(site) {}

  // The attr `key` names (Note [Attribute keys]).
  template <typename T>
  const T& attr(const AttrKey<T>& key) const {
    return GetAttr(*op, attrs, key);
  }
  // Sets the attr `key` names to `value`, as a T.
  template <typename T, typename V>
  void set(const AttrKey<T>& key, V&& value) {
    SetAttr(*op, attrs, key, std::forward<V>(value));
  }
};

// Checks the inputs against the op's signature (count, dtypes, allowed types), fills the type
// attrs from the input dtypes (T of AddV2 from x) and checks every attr is set with the declared
// kind and allowed value. Shared by eager execution and graph building.
absl::Status BindAttrs(OpCall& call);

// The dtype that selects the kernel: the value of the op's first type attr (kFloat32 if none).
DType DispatchDType(const OpCall& call);

// "AddV2: <message> [x: float32 (2, 3), y: float32 (4,)] (at user.cc:12)": the op, its inputs'
// dtypes and shapes, and the caller's line; keeps the status code.
absl::Status AnnotateOpError(const OpCall& call, const absl::Status& status);

// Hands the call to the current execution context (eager: runs it; graph: adds a node) and
// returns its outputs. Throws Error, annotated as by AnnotateOpError, on failure.
OutputList RunOp(OpCall& call);
// RunOp for an op with one output: that output.
Tensor RunSingleOutputOp(OpCall& call);

}  // namespace duet
