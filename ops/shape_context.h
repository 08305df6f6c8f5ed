// ShapeContext: what a shape function sees (input dtypes, shapes, known values, attrs) and fills
// in (output dtypes and shapes).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "ops/op_call.h"

namespace duet {

class ShapeContext {
 public:
  struct Output {
    DType dtype = kFloat32;
    Shape shape;
  };

  // What a channels-first call's shape function sees instead of its inputs (Note
  // [Channels-first] in ops/channels_first.cc): every input's shape, and the values of the
  // image-shape inputs (nullopt: the input's own).
  struct InputView {
    std::vector<Shape> shapes;
    std::vector<std::optional<std::vector<int64_t>>> ints;
  };

  // Outputs are sized from the op's signature (list outputs by their number attr).
  explicit ShapeContext(const OpCall& call, const InputView* view = nullptr);

  const OpDef& op() const { return *call_.op; }
  const OpCall& call() const { return call_; }
  int num_inputs() const { return static_cast<int>(call_.inputs.size()); }
  DType input_dtype(int i) const { return call_.inputs[i].dtype(); }
  const Shape& input_shape(int i) const {
    return view_ == nullptr ? call_.inputs[i].shape() : view_->shapes[i];
  }
  // The value of input i when it is known before running: always in eager mode, for constants in
  // graphs. nullptr when unknown.
  const Tensor* input_value(int i) const;
  // The integer values of a known int32/int64 input (axes, shapes, perms); nullopt when unknown.
  std::optional<std::vector<int64_t>> input_ints(int i) const;

  // The attr `key` names; the dispatcher has already checked its kind.
  template <typename T>
  const T& attr(const AttrKey<T>& key) const {
    return call_.attr(key);
  }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, DType dtype, Shape shape) {
    outputs_[i] = Output{dtype, std::move(shape)};
  }
  const Output& output(int i) const { return outputs_[i]; }
  absl::Span<const Output> outputs() const { return outputs_; }

 private:
  const OpCall& call_;
  const InputView* view_;
  absl::InlinedVector<Output, 2> outputs_;
};

// Runs the op's shape function on `call` (after BindAttrs).
absl::Status InferShapes(ShapeContext& ctx);

}  // namespace duet
