// Gradient functions: one per differentiable op, written with duet's op functions, so the same
// definition serves eager tapes, higher-order gradients and (later) symbolic graph gradients.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/types/span.h"
#include "ops/op_call.h"

namespace duet {

// The dtype, shape and device of a recorded input or output: kept for every tensor of a call,
// because gradients need shapes (to undo broadcasting) far more often than values.
struct TensorMeta {
  DType dtype = kFloat32;
  Shape shape;
  Device device;
};

// What a gradient function sees of one recorded op call. Inputs and outputs are flattened (a list
// argument contributes one entry per tensor), as in OpCall.
class GradientContext {
 public:
  GradientContext(const OpDef& op, const AttrList& attrs, absl::Span<const Tensor> inputs,
                  absl::Span<const Tensor> outputs, absl::Span<const TensorMeta> input_meta,
                  absl::Span<const TensorMeta> output_meta, absl::Span<const Tensor> grads,
                  uint64_t needs_grad = ~uint64_t{0})
      : op_(op),
        attrs_(attrs),
        inputs_(inputs),
        outputs_(outputs),
        input_meta_(input_meta),
        output_meta_(output_meta),
        grads_(grads),
        needs_grad_(needs_grad) {}

  const OpDef& op() const { return op_; }
  int num_inputs() const { return static_cast<int>(input_meta_.size()); }
  int num_outputs() const { return static_cast<int>(output_meta_.size()); }

  // The attr `key` names (Note [Attribute keys]).
  template <typename T>
  const T& attr(const AttrKey<T>& key) const {
    return GetAttr(op_, attrs_, key);
  }

  const AttrList& attrs() const { return attrs_; }
  // The inputs/outputs as recorded: undefined where the GradientDef does not keep them.
  absl::Span<const Tensor> kept_inputs() const { return inputs_; }
  absl::Span<const Tensor> kept_outputs() const { return outputs_; }

  // Input/output i; only those the GradientDef keeps are defined (throws Error otherwise, which
  // means the registration forgot to keep it).
  const Tensor& input(int i) const;
  const Tensor& output(int i) const;
  DType input_dtype(int i) const { return input_meta_[i].dtype; }
  const Shape& input_shape(int i) const { return input_meta_[i].shape; }
  Device input_device(int i) const { return input_meta_[i].device; }
  DType output_dtype(int i) const { return output_meta_[i].dtype; }
  const Shape& output_shape(int i) const { return output_meta_[i].shape; }
  Device output_device(int i) const { return output_meta_[i].device; }

  // The upstream gradient of output i. Undefined when nothing downstream depends on that output
  // (possible only for ops with several outputs); grad_or_zeros then gives zeros of its shape.
  const Tensor& grad(int i) const { return grads_[i]; }
  Tensor grad_or_zeros(int i) const;

  // False when nothing asked for input i's gradient (it is not on a path to a source), so an
  // expensive gradient (a matmul or convolution) may be skipped and left undefined.
  bool needs_grad(int i) const { return i >= 64 || ((needs_grad_ >> i) & 1); }

 private:
  const OpDef& op_;
  const AttrList& attrs_;
  absl::Span<const Tensor> inputs_, outputs_;
  absl::Span<const TensorMeta> input_meta_, output_meta_;
  absl::Span<const Tensor> grads_;
  uint64_t needs_grad_;
};

// Returns one gradient per (flattened) input, in input order; an undefined tensor for an input
// that gets none (integer inputs such as axes or shapes). May throw Error, like any op call.
using GradientFn = TensorList (*)(const GradientContext& ctx);

// How an op is differentiated.
// Note [Tape entries keep only what the gradient needs]: a tape entry holds every input's and
// output's TensorMeta but only the tensors named by keep_inputs/keep_outputs (bit i = argument i
// of the OpDef; a list argument keeps all its tensors), so recording ReLU keeps its output and
// lets its input be freed.
struct GradientDef {
  GradientFn fn = nullptr;  // null: not differentiable (nothing flows through the op)
  uint64_t keep_inputs = 0;
  uint64_t keep_outputs = 0;
};

// Registers the gradient of `op` at static initialization:
//   const GradientRegistrar kReluGrad("Relu", ReluGrad, /*keep_inputs=*/{}, /*keep_outputs=*/{0});
// `keep_inputs`/`keep_outputs` are the argument indices the function reads with input(i) and
// output(i). Aborts on a second registration for the same op.
class GradientRegistrar {
 public:
  GradientRegistrar(absl::string_view op, GradientFn fn,
                    std::initializer_list<int> keep_inputs = {},
                    std::initializer_list<int> keep_outputs = {});
};

// Declares that `op` has no gradient (comparisons, shape queries, random numbers, ZerosLike):
// tapes do not record it, so no gradient flows through its outputs.
class NotDifferentiable {
 public:
  explicit NotDifferentiable(absl::string_view op);
};

// The gradient definition of `op`: nullptr when the op declared nothing (a tape records such a
// call and its backward pass fails with "no gradient defined" if a gradient reaches it).
const GradientDef* FindGradient(const OpDef& op);

// Names of the ops that registered a GradientDef (differentiable or not), for coverage tests.
std::vector<std::string> OpsWithGradientDeclarations();

}  // namespace duet
