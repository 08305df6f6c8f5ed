#include "ops/random/random_ops.h"

#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/constant.h"
#include "ops/op_call.h"
#include "ops/random/random_attrs.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// Input positions.
enum StatelessInput { kShapeInput, kSeedInput, kParam0Input, kParam1Input };

const std::vector<DType> kOutputTypes = {kFloat32, kFloat64};

// OK when the seed is a vector of two (or its shape is not known yet).
absl::Status CheckSeed(const ShapeContext& ctx) {
  const Shape& s = ctx.input_shape(kSeedInput);
  if (s.unknown_rank() || (s.rank() == 1 && (s.dim(0) == 2 || s.dim(0) == Shape::kUnknownDim))) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("seed must have shape (2,) (a seed pair), got shape ", s.str()));
}

// OK when the distribution parameters (inputs 2 and 3, if any) are scalars.
absl::Status CheckParams(const ShapeContext& ctx) {
  for (int i = kParam0Input; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.input_shape(i);
    if (!s.unknown_rank() && s.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("the distribution parameter ",
                                                     ctx.op().inputs[i].name,
                                                     " must be a scalar, got shape ", s.str()));
    }
  }
  return absl::OkStatus();
}

// The output shape named by the values of the shape input; dims unknown until they are known.
absl::StatusOr<Shape> OutputShape(const ShapeContext& ctx, DType dtype, int shape_input) {
  const Shape& s = ctx.input_shape(shape_input);
  if (!s.unknown_rank() && s.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector of dimension sizes, got a tensor of shape ", s.str()));
  }
  const std::optional<std::vector<int64_t>> dims = ctx.input_ints(shape_input);
  if (!dims) {
    return Shape::Unknown(s.unknown_rank() ? -1 : static_cast<int>(s.dim(0)));
  }
  // The element count must fit (in bytes) in int64, so Shape::num_elements cannot overflow.
  int64_t bytes = DTypeSize(dtype);
  for (int64_t d : *dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape [", absl::StrJoin(*dims, ", "), "] has a negative dimension"));
    }
    if (d > 0 && bytes > std::numeric_limits<int64_t>::max() / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape [", absl::StrJoin(*dims, ", "), "] has too many elements"));
    }
    bytes *= d;
  }
  return Shape(absl::MakeConstSpan(*dims));
}

absl::Status StatelessRandomShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckSeed(ctx));
  DUET_RETURN_IF_ERROR(CheckParams(ctx));
  const DType dtype = ctx.attr(StatelessRandomAttrs::kDtype);
  DUET_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, dtype, kShapeInput));
  ctx.set_output(0, dtype, std::move(shape));
  return absl::OkStatus();
}

// Stateful ops' inputs: the generator state variable, the algorithm, the shape.
enum StatefulInput { kResourceInput, kAlgorithmInput, kStatefulShapeInput };

absl::Status StatefulRandomShape(ShapeContext& ctx) {
  const Shape& alg = ctx.input_shape(kAlgorithmInput);
  if (!alg.unknown_rank() && alg.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm must be a scalar, got shape ", alg.str()));
  }
  const DType dtype = ctx.attr(StatefulRandomAttrs::kDtype);
  DUET_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, dtype, kStatefulShapeInput));
  ctx.set_output(0, dtype, std::move(shape));
  return absl::OkStatus();
}

// TensorFlow's tf.random.Generator ops: the state is a variable (Note [Global random state] in
// eager/global_random.h), read and advanced by the kernel.
OpDefBuilder StatefulOp(std::string name) {
  OpDefBuilder b(std::move(name));
  b.Input("resource", kResource)
      .Input("algorithm", kInt64)
      .Input("shape", "shape_dtype")
      .HostInputs({"algorithm", "shape"})
      .Output("output", "dtype")
      .TypeAttr(StatefulRandomAttrs::kDtype, kOutputTypes, kFloat32)
      .TypeAttr(StatefulRandomAttrs::kShapeDtype, kIndexTypes, kInt64)
      .Stateful()
      .SetShapeFn(StatefulRandomShape);
  return b;
}

// The stateless ops share a signature; the scaled variants add two parameter inputs.
OpDefBuilder StatelessOp(std::string name, const char* param0, const char* param1) {
  OpDefBuilder b(std::move(name));
  b.Input("shape", "T").Input("seed", "Tseed").HostInputs({"shape", "seed"});
  if (param0 != nullptr) b.Input(param0, "dtype").Input(param1, "dtype");
  b.Output("output", "dtype")
      .TypeAttr(StatelessRandomAttrs::kDtype, kOutputTypes, kFloat32)
      .TypeAttr(StatelessRandomAttrs::kT, kIndexTypes, kInt32)
      .TypeAttr(StatelessRandomAttrs::kTseed, kIndexTypes, kInt64)
      .SetShapeFn(StatelessRandomShape);
  return b;
}

const OpDef* const kStatelessRandomNormal =
    StatelessOp("StatelessRandomNormal", nullptr, nullptr)
        .Doc("Standard normal values from a seed pair (Philox4x32-10, Box-Muller), as TensorFlow.")
        .Register();
const OpDef* const kStatelessRandomUniform =
    StatelessOp("StatelessRandomUniform", nullptr, nullptr)
        .Doc("Uniform [0, 1) values from a seed pair (Philox4x32-10), as TensorFlow.")
        .Register();
const OpDef* const kStatelessRandomNormalScaled =
    StatelessOp("_StatelessRandomNormalScaled", "mean", "stddev")
        .Doc("StatelessRandomNormal * stddev + mean, in the output dtype (duet-internal).")
        .Register();
const OpDef* const kStatelessRandomUniformScaled =
    StatelessOp("_StatelessRandomUniformScaled", "minval", "maxval")
        .Doc("StatelessRandomUniform * (maxval - minval) + minval (duet-internal).")
        .Register();

const OpDef* const kStatefulStandardNormalV2 =
    StatefulOp("StatefulStandardNormalV2")
        .Doc("Standard normal values from a generator state variable, which advances.")
        .Register();
const OpDef* const kStatefulUniform =
    StatefulOp("StatefulUniform")
        .Doc("Uniform [0, 1) values from a generator state variable, which advances.")
        .Register();

// A shape as the int32 vector TensorFlow uses by default (int64 when a dim does not fit).
Tensor ShapeTensor(const Shape& shape) {
  std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
  for (int64_t d : dims) {
    if (d > std::numeric_limits<int32_t>::max()) return from_vector(dims);
  }
  return from_vector(std::vector<int32_t>(dims.begin(), dims.end()));
}

// The seed pair [seed, 0]: what tf.random.stateless_* get from seed=[seed, 0].
Tensor SeedTensor(int64_t seed) { return from_vector(std::vector<int64_t>{seed, 0}); }

Tensor RunStateless(const OpDef* op, TensorList inputs, DType dtype, OpSite site) {
  OpCall call(op, std::move(inputs), site);
  call.set(StatelessRandomAttrs::kDtype, dtype);
  return RunSingleOutputOp(call);
}

}  // namespace

Tensor random_normal(Shape shape, int64_t seed, DType dtype, double mean, double stddev,
                     OpSite site) {
  return random_normal(std::move(shape), SeedTensor(seed), dtype, mean, stddev, site);
}

Tensor random_normal(Shape shape, const Tensor& seed, DType dtype, double mean, double stddev,
                     OpSite site) {
  if (mean == 0 && stddev == 1) {
    return RunStateless(kStatelessRandomNormal, {ShapeTensor(shape), seed}, dtype, site);
  }
  return RunStateless(kStatelessRandomNormalScaled,
                      {ShapeTensor(shape), seed, scalar(mean, dtype), scalar(stddev, dtype)}, dtype,
                      site);
}

Tensor random_uniform(Shape shape, int64_t seed, DType dtype, double minval, double maxval,
                      OpSite site) {
  return random_uniform(std::move(shape), SeedTensor(seed), dtype, minval, maxval, site);
}

Tensor random_uniform(Shape shape, const Tensor& seed, DType dtype, double minval, double maxval,
                      OpSite site) {
  if (minval == 0 && maxval == 1) {
    return RunStateless(kStatelessRandomUniform, {ShapeTensor(shape), seed}, dtype, site);
  }
  return RunStateless(kStatelessRandomUniformScaled,
                      {ShapeTensor(shape), seed, scalar(minval, dtype), scalar(maxval, dtype)},
                      dtype, site);
}

Tensor stateful_standard_normal(const Tensor& state, const Shape& shape, DType dtype, OpSite site) {
  OpCall call(kStatefulStandardNormalV2, {state, constant(kPhiloxAlgorithm), ShapeTensor(shape)},
              site);
  call.set(StatefulRandomAttrs::kDtype, dtype);
  return RunSingleOutputOp(call);
}

Tensor stateful_uniform(const Tensor& state, const Shape& shape, DType dtype, OpSite site) {
  OpCall call(kStatefulUniform, {state, constant(kPhiloxAlgorithm), ShapeTensor(shape)}, site);
  call.set(StatefulRandomAttrs::kDtype, dtype);
  return RunSingleOutputOp(call);
}

Tensor stateless_random_normal(const Tensor& shape, const Tensor& seed, DType dtype, OpSite site) {
  return RunStateless(kStatelessRandomNormal, {shape, seed}, dtype, site);
}

Tensor stateless_random_uniform(const Tensor& shape, const Tensor& seed, DType dtype, OpSite site) {
  return RunStateless(kStatelessRandomUniform, {shape, seed}, dtype, site);
}

}  // namespace duet
