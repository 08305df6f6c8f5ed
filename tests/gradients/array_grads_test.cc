// Gradients of the array ops (and UnsortedSegmentSum) against finite differences, plus the ops
// that must stop gradients.
#include "ops/array/segment_ops.h"
#include "ops/array/space_batch_ops.h"
#include "ops/gradient.h"
#include "ops/op_registry.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Tensors = std::vector<Tensor>;

DUET_GRADIENT_TEST("Identity", "passes the gradient through") {
  CheckGradients("Identity", [](const Tensors& x) { return Tensors{identity(x[0])}; },
                 {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("DuetCopyToDevice", "copies the gradient back to the input's device") {
  // To the CPU: from the CPU here, and from the GPU in the GPU pass (Note [Gradient checks on the
  // GPU]), whose gradient must then return to the GPU.
  CheckGradients(
      "DuetCopyToDevice",
      [](const Tensors& x) { return Tensors{copy_to_device(x[0], Device::cpu()) * 2.0}; },
      {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("Reshape", "to an explicit and an inferred shape") {
  CheckGradients("Reshape",
                 [](const Tensors& x) {
                   return Tensors{reshape(x[0], {3, 2})};
                 },
                 {RandomInput({2, 3}, 1)});
  CheckGradients("Reshape", [](const Tensors& x) { return Tensors{reshape(x[0], {-1})}; },
                 {RandomInput({2, 1, 3}, 2)});
  CheckGradients("Reshape",
                 [](const Tensors& x) {
                   return Tensors{reshape(x[0], {1, 1})};
                 },
                 {RandomInput({}, 3)});
}

DUET_GRADIENT_TEST("ExpandDims", "at the front and at a negative axis") {
  CheckGradients("ExpandDims", [](const Tensors& x) { return Tensors{expand_dims(x[0], 0)}; },
                 {RandomInput({2, 3}, 1)});
  CheckGradients("ExpandDims", [](const Tensors& x) { return Tensors{expand_dims(x[0], -2)}; },
                 {RandomInput({2, 3}, 2)});
}

DUET_GRADIENT_TEST("Squeeze", "all size-1 dims and listed ones") {
  CheckGradients("Squeeze", [](const Tensors& x) { return Tensors{squeeze(x[0])}; },
                 {RandomInput({1, 3, 1, 2}, 1)});
  CheckGradients("Squeeze", [](const Tensors& x) { return Tensors{squeeze(x[0], {-2})}; },
                 {RandomInput({1, 3, 1, 2}, 2)});
}

DUET_GRADIENT_TEST("Transpose", "a 3-D permutation and the default reversal") {
  CheckGradients("Transpose",
                 [](const Tensors& x) {
                   return Tensors{transpose(x[0], {2, 0, 1})};
                 },
                 {RandomInput({2, 3, 4}, 1)});
  CheckGradients("Transpose", [](const Tensors& x) { return Tensors{transpose(x[0])}; },
                 {RandomInput({3, 2}, 2)});
  CheckGradients("Transpose",
                 [](const Tensors& x) {
                   return Tensors{transpose(x[0], {1, 2, 0, 3})};
                 },
                 {RandomInput({2, 1, 3, 2}, 3)});
}

DUET_GRADIENT_TEST("ConcatV2", "three inputs of different widths") {
  CheckGradients("ConcatV2",
                 [](const Tensors& x) {
                   return Tensors{concat({x[0], x[1], x[2]}, 1)};
                 },
                 {RandomInput({2, 1}, 1), RandomInput({2, 3}, 2), RandomInput({2, 2}, 3)});
}

DUET_GRADIENT_TEST("ConcatV2", "negative axis, axis 0, one input, an empty input") {
  CheckGradients("ConcatV2",
                 [](const Tensors& x) {
                   return Tensors{concat({x[0], x[1]}, -1)};
                 },
                 {RandomInput({2, 2, 1}, 1), RandomInput({2, 2, 2}, 2)});
  CheckGradients("ConcatV2",
                 [](const Tensors& x) {
                   return Tensors{concat({x[0], x[1]}, 0)};
                 },
                 {RandomInput({1, 3}, 3), RandomInput({2, 3}, 4)});
  CheckGradients("ConcatV2", [](const Tensors& x) { return Tensors{concat({x[0]}, 1)}; },
                 {RandomInput({2, 3}, 5)});
  CheckGradients("ConcatV2",
                 [](const Tensors& x) {
                   return Tensors{concat({x[0], x[1]}, 0)};
                 },
                 {RandomInput({0, 3}, 6), RandomInput({2, 3}, 7)});
}

DUET_GRADIENT_TEST("ConcatV2", "the same tensor twice") {
  CheckGradients("ConcatV2",
                 [](const Tensors& x) {
                   return Tensors{concat({x[0], x[0]}, 0)};
                 },
                 {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("ConcatV2", "second order, through a product") {
  CheckSecondOrderGradients("ConcatV2",
                            [](const Tensors& x) {
                              return Tensors{reduce_prod(concat({x[0], x[1]}, 1), 1)};
                            },
                            {RandomInput({2, 2}, 1), RandomInput({2, 3}, 2)});
}

DUET_GRADIENT_TEST("Split", "every piece used") {
  CheckGradients("Split", [](const Tensors& x) { return split(x[0], 3, 1); },
                 {RandomInput({2, 6}, 1)});
}

DUET_GRADIENT_TEST("Split", "only some pieces used, negative axis") {
  CheckGradients("Split",
                 [](const Tensors& x) {
                   const Tensors pieces = split(x[0], 4, -2);
                   return Tensors{pieces[0], pieces[3]};
                 },
                 {RandomInput({3, 4, 2}, 1)});
  CheckGradients("Split", [](const Tensors& x) { return Tensors{split(x[0], 2, 0)[1]}; },
                 {RandomInput({4, 3}, 2)});
}

DUET_GRADIENT_TEST("Pack", "at the front, in the middle and at a negative axis") {
  CheckGradients("Pack", [](const Tensors& x) { return Tensors{stack(x)}; },
                 {RandomInput({2, 3}, 1), RandomInput({2, 3}, 2)});
  CheckGradients("Pack", [](const Tensors& x) { return Tensors{stack(x, 1)}; },
                 {RandomInput({2, 3}, 3), RandomInput({2, 3}, 4), RandomInput({2, 3}, 5)});
  CheckGradients("Pack", [](const Tensors& x) { return Tensors{stack(x, -1)}; },
                 {RandomInput({3}, 6)});
  CheckSecondOrderGradients("Pack",
                            [](const Tensors& x) { return Tensors{stack(x, 1) * stack(x, 1)}; },
                            {RandomInput({2, 2}, 7), RandomInput({2, 2}, 8)});
}

DUET_GRADIENT_TEST("Unpack", "every slice used, and only some, at a negative axis") {
  CheckGradients("Unpack", [](const Tensors& x) { return unstack(x[0], 1); },
                 {RandomInput({2, 3, 2}, 1)});
  CheckGradients("Unpack",
                 [](const Tensors& x) {
                   const Tensors slices = unstack(x[0], -1);
                   return Tensors{slices[0] * slices[2]};
                 },
                 {RandomInput({3, 4}, 2)});
  CheckSecondOrderGradients("Unpack",
                            [](const Tensors& x) {
                              const Tensors slices = unstack(x[0]);
                              return Tensors{slices[0] * slices[1]};
                            },
                            {RandomInput({2, 3}, 3)});
}

DUET_GRADIENT_TEST("IdentityN", "each input gets its own output's gradient") {
  CheckGradients("IdentityN",
                 [](const Tensors& x) {
                   const Tensors y = identity_n(x);
                   return Tensors{y[0] * 2.0, y[1] * y[1]};
                 },
                 {RandomInput({2, 3}, 1), RandomInput({3}, 2)});
  CheckGradients("IdentityN", [](const Tensors& x) { return Tensors{identity_n(x)[1]}; },
                 {RandomInput({2}, 3), RandomInput({2, 2}, 4)});
}

DUET_GRADIENT_TEST("Snapshot", "passes the gradient through") {
  CheckGradients("Snapshot", [](const Tensors& x) { return Tensors{snapshot(x[0]) * x[0]}; },
                 {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("EnsureShape", "passes the gradient through") {
  CheckGradients("EnsureShape",
                 [](const Tensors& x) {
                   return Tensors{ensure_shape(x[0], {-1, 3}) * 3.0};
                 },
                 {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("PlaceholderWithDefault", "passes the gradient to its input") {
  CheckGradients("PlaceholderWithDefault",
                 [](const Tensors& x) {
                   const Tensor y = placeholder_with_default(x[0], {-1, 3});
                   return Tensors{y * y};
                 },
                 {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("SplitV", "sizes with an inferred one") {
  CheckGradients("SplitV",
                 [](const Tensors& x) {
                   return split(x[0], std::vector<int64_t>{1, -1, 2}, 0);
                 },
                 {RandomInput({6, 2}, 1)});
}

DUET_GRADIENT_TEST("SplitV", "only the middle piece used, negative axis, an empty piece") {
  CheckGradients("SplitV",
                 [](const Tensors& x) {
                   return Tensors{split(x[0], std::vector<int64_t>{2, 3, 0}, -1)[1]};
                 },
                 {RandomInput({2, 5}, 1)});
}

DUET_GRADIENT_TEST("Slice", "a block inside a matrix") {
  CheckGradients("Slice",
                 [](const Tensors& x) {
                   return Tensors{slice(x[0], {1, 0}, {2, -1})};
                 },
                 {RandomInput({4, 3}, 1)});
}

DUET_GRADIENT_TEST("Slice", "3-D, empty and full extents") {
  CheckGradients("Slice",
                 [](const Tensors& x) {
                   return Tensors{slice(x[0], {0, 1, 2}, {2, 1, 2})};
                 },
                 {RandomInput({3, 2, 4}, 1)});
  CheckGradients("Slice",
                 [](const Tensors& x) {
                   return Tensors{slice(x[0], {0, 0}, {-1, -1})};
                 },
                 {RandomInput({2, 3}, 2)});
  CheckGradients("Slice",
                 [](const Tensors& x) {
                   return Tensors{slice(x[0], {1, 1}, {0, 2})};
                 },
                 {RandomInput({2, 3}, 3)});
}

DUET_GRADIENT_TEST("Pad", "before and after each dim") {
  CheckGradients("Pad",
                 [](const Tensors& x) {
                   return Tensors{pad(x[0], {{1, 2}, {0, 1}})};
                 },
                 {RandomInput({2, 3}, 1)});
  CheckGradients("Pad",
                 [](const Tensors& x) {
                   return Tensors{pad(x[0], {{0, 0}, {2, 0}, {1, 1}})};
                 },
                 {RandomInput({2, 1, 2}, 2)});
}

DUET_GRADIENT_TEST("PadV2", "a constant other than zero") {
  CheckGradients("PadV2",
                 [](const Tensors& x) {
                   return Tensors{pad(x[0], {{1, 2}, {0, 1}}, 0.5)};
                 },
                 {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("MirrorPad", "REFLECT and SYMMETRIC, 3-D") {
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    INFO(mode);
    CheckGradients("MirrorPad",
                   [mode](const Tensors& x) {
                     return Tensors{mirror_pad(x[0], {{1, 2}, {0, 1}, {2, 1}}, mode)};
                   },
                   {RandomInput({3, 2, 3}, 1)});
  }
  CheckSecondOrderGradients("MirrorPad",
                            [](const Tensors& x) {
                              return Tensors{mirror_pad(x[0], {{1, 1}, {2, 0}}, "SYMMETRIC")};
                            },
                            {RandomInput({2, 3}, 2)});
}

DUET_GRADIENT_TEST("MirrorPadGrad", "REFLECT and SYMMETRIC") {
  const Tensor paddings = from_vector<int32_t>({1, 2, 2, 1}, {2, 2});
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    INFO(mode);
    CheckGradients("MirrorPadGrad",
                   [mode, paddings](const Tensors& x) {
                     return Tensors{mirror_pad_grad(x[0], paddings, mode)};
                   },
                   {RandomInput({6, 6}, 3)});
  }
}

DUET_GRADIENT_TEST("Tile", "two dims") {
  CheckGradients("Tile",
                 [](const Tensors& x) {
                   return Tensors{tile(x[0], {2, 3})};
                 },
                 {RandomInput({2, 3}, 1)});
}

DUET_GRADIENT_TEST("Tile", "3-D with ones, 1-D, and a zero multiple") {
  CheckGradients("Tile",
                 [](const Tensors& x) {
                   return Tensors{tile(x[0], {1, 2, 3})};
                 },
                 {RandomInput({2, 1, 2}, 1)});
  CheckGradients("Tile", [](const Tensors& x) { return Tensors{tile(x[0], {4})}; },
                 {RandomInput({3}, 2)});
  CheckGradients("Tile",
                 [](const Tensors& x) {
                   return Tensors{tile(x[0], {0, 2}), tile(x[0], {1, 2})};
                 },
                 {RandomInput({2, 2}, 3)});
}

DUET_GRADIENT_TEST("BroadcastTo", "new leading dims and stretched ones") {
  CheckGradients("BroadcastTo",
                 [](const Tensors& x) {
                   return Tensors{broadcast_to(x[0], {2, 3})};
                 },
                 {RandomInput({3}, 1)});
  CheckGradients("BroadcastTo",
                 [](const Tensors& x) {
                   return Tensors{broadcast_to(x[0], {2, 3})};
                 },
                 {RandomInput({2, 1}, 2)});
  CheckGradients("BroadcastTo",
                 [](const Tensors& x) {
                   return Tensors{broadcast_to(x[0], {2, 2, 3, 4})};
                 },
                 {RandomInput({1, 3, 1}, 3)});
  CheckGradients("BroadcastTo",
                 [](const Tensors& x) {
                   return Tensors{broadcast_to(x[0], {2, 2})};
                 },
                 {RandomInput({}, 4)});
  CheckGradients("BroadcastTo",
                 [](const Tensors& x) {
                   return Tensors{broadcast_to(x[0], {2, 3})};
                 },
                 {RandomInput({2, 3}, 5)});
}

DUET_GRADIENT_TEST("StridedSlice", "ranges, negative strides, clamping") {
  // x[1:3, ::-2]
  CheckGradients("StridedSlice",
                 [](const Tensors& x) {
                   return Tensors{strided_slice(x[0], {1, 0}, {3, 0}, {1, -2},
                                                {.begin_mask = 2, .end_mask = 2})};
                 },
                 {RandomInput({4, 5}, 1)});
  // x[-10:10:3, 4:0:-1]
  CheckGradients("StridedSlice",
                 [](const Tensors& x) {
                   return Tensors{strided_slice(x[0], {-10, 4}, {10, 0}, {3, -1})};
                 },
                 {RandomInput({4, 5}, 2)});
}

DUET_GRADIENT_TEST("StridedSlice", "ellipsis, new and shrunk axes, an empty slice") {
  // x[None, 1, ..., ::-1]
  CheckGradients("StridedSlice",
                 [](const Tensors& x) {
                   return Tensors{strided_slice(x[0], {0, 1, 0, 0}, {0, 2, 0, 0}, {1, 1, 1, -1},
                                                {.begin_mask = 8,
                                                 .end_mask = 8,
                                                 .ellipsis_mask = 4,
                                                 .new_axis_mask = 1,
                                                 .shrink_axis_mask = 2})};
                 },
                 {RandomInput({2, 3, 4}, 1)});
  // x[..., -1] and x[2:1]
  CheckGradients("StridedSlice",
                 [](const Tensors& x) {
                   return Tensors{strided_slice(x[0], {0, -1}, {0, 0}, {1, 1},
                                                {.ellipsis_mask = 1, .shrink_axis_mask = 2}),
                                  strided_slice(x[0], {2}, {1}, {1})};
                 },
                 {RandomInput({3, 2}, 2)});
}

DUET_GRADIENT_TEST("StridedSlice", "second order, through a product") {
  CheckSecondOrderGradients(
      "StridedSlice",
      [](const Tensors& x) {
        return Tensors{reduce_prod(
            strided_slice(x[0], {0, 3}, {0, 0}, {1, -2}, {.begin_mask = 1, .end_mask = 1}), 1)};
      },
      {RandomInput({2, 5}, 1)});
}

TEST_CASE("StridedSlice's graph gradient works with unknown input dims") {
  Graph g;
  Tensor x, dx;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {-1, 3});
    // x[:, ::-2] * [1, 2]
    const Tensor y = strided_slice(x, {0, 0}, {0, 0}, {1, -2}, {.begin_mask = 3, .end_mask = 3}) *
                     constant({1.0, 2.0});
    dx = gradients({y}, {x})[0];
  }
  const Tensor got = Session(g).run({{x, RandomInput({2, 3}, 1)}}, {dx})[0];
  ExpectTensor(got, kFloat64, {2, 3}, {2, 0, 1, 2, 0, 1});
}

DUET_GRADIENT_TEST("StridedSliceGrad", "gathers back with the slice") {
  // The gradient of x[1:3, ::-2] for x of shape (4, 5), with respect to dy.
  CheckGradients("StridedSliceGrad",
                 [](const Tensors& x) {
                   return Tensors{strided_slice_grad(constant({4, 5}), constant({1, 0}),
                                                     constant({3, 0}), constant({1, -2}), x[0],
                                                     {.begin_mask = 2, .end_mask = 2})};
                 },
                 {RandomInput({2, 3}, 1)});
  // ... and of x[None, ..., 1] for x of shape (2, 3), in int64.
  CheckGradients("StridedSliceGrad",
                 [](const Tensors& x) {
                   return Tensors{strided_slice_grad(
                       constant<int64_t>({2, 3}), constant<int64_t>({0, 0, 1}),
                       constant<int64_t>({0, 0, 2}), constant<int64_t>({1, 1, 1}), x[0],
                       {.ellipsis_mask = 2, .new_axis_mask = 1, .shrink_axis_mask = 4})};
                 },
                 {RandomInput({1, 2}, 2)});
}

DUET_GRADIENT_TEST("ReverseV2", "one, several, negative and no axes") {
  CheckGradients("ReverseV2", [](const Tensors& x) { return Tensors{reverse(x[0], {1})}; },
                 {RandomInput({2, 3}, 1)});
  CheckGradients("ReverseV2",
                 [](const Tensors& x) {
                   return Tensors{reverse(x[0], {0, -1})};
                 },
                 {RandomInput({2, 3, 2}, 2)});
  CheckGradients("ReverseV2",
                 [](const Tensors& x) { return Tensors{reverse(x[0], std::vector<int64_t>{})}; },
                 {RandomInput({3}, 3)});
}

DUET_GRADIENT_TEST("GatherV2", "axis 0 with repeated indices") {
  CheckGradients("GatherV2",
                 [](const Tensors& x) {
                   return Tensors{gather(x[0], constant({2, 0, 2, 3}))};
                 },
                 {RandomInput({4, 3}, 1)});
}

// Issue 37: batch_dims, with repeated indices, outer dims between the batch dims and the axis,
// two batch dims, and batch_dims counted from the end.
DUET_GRADIENT_TEST("GatherV2", "batch_dims") {
  CheckGradients("GatherV2",
                 [](const Tensors& x) {
                   return Tensors{gather(x[0], constant({{1, 1, 0}, {2, 0, 2}}), 1, 1)};
                 },
                 {RandomInput({2, 3, 2}, 6)});
  CheckGradients("GatherV2",
                 [](const Tensors& x) {
                   return Tensors{gather(x[0], constant<int64_t>({{3, 0}, {1, 1}}), 2, 1)};
                 },
                 {RandomInput({2, 3, 4}, 7)});
  CheckGradients("GatherV2",
                 [](const Tensors& x) {
                   return Tensors{gather(x[0], constant({{{1, 1}, {0, 3}, {3, 2}}}), 2, 2)};
                 },
                 {RandomInput({1, 3, 4, 2}, 8)});
  CheckGradients("GatherV2",
                 [](const Tensors& x) {
                   return Tensors{gather(x[0], constant({{1, 0}, {2, 2}}), 1, -1)};
                 },
                 {RandomInput({2, 3, 2}, 9)});
}

DUET_GRADIENT_TEST("GatherV2", "inner axes, 2-D and scalar indices, int64") {
  CheckGradients("GatherV2",
                 [](const Tensors& x) {
                   return Tensors{gather(x[0], constant({{1, 0}, {1, 1}}), 1)};
                 },
                 {RandomInput({2, 3, 4}, 1)});
  CheckGradients("GatherV2",
                 [](const Tensors& x) {
                   return Tensors{gather(x[0], constant<int64_t>({3, 0, 3}), -1)};
                 },
                 {RandomInput({2, 3, 4}, 2)});
  CheckGradients("GatherV2", [](const Tensors& x) { return Tensors{gather(x[0], constant(2), 1)}; },
                 {RandomInput({2, 3, 2}, 3)});
  CheckGradients("GatherV2", [](const Tensors& x) { return Tensors{gather(x[0], constant(1))}; },
                 {RandomInput({3, 2}, 4)});
  CheckGradients(
      "GatherV2",
      [](const Tensors& x) { return Tensors{gather(x[0], from_vector<int32_t>({}), 0)}; },
      {RandomInput({3, 2}, 5)});
}

TEST_CASE("The GatherV2 gradient with batch_dims names the unknown shapes it needs") {
  // A graph's params of unknown batch size: the gradient function is called directly with it.
  const OpDef* op = OpRegistry::Global().Find("GatherV2");
  REQUIRE(op != nullptr);
  const GradientDef* def = FindGradient(*op);
  REQUIRE(def != nullptr);
  REQUIRE(def->fn != nullptr);
  AttrList attrs = op->default_attrs;
  attrs[op->attr_index("batch_dims")] = int64_t{1};
  const Tensor indices = constant({{0}, {1}});
  const Tensor axis = constant(1);
  const Tensor out = zeros({2, 1}, kFloat64);
  const std::vector<Tensor> inputs = {Tensor(), indices, axis};
  const std::vector<Tensor> outputs = {Tensor()};
  const std::vector<TensorMeta> input_meta = {
      {kFloat64, Shape{-1, 3}}, {kInt32, indices.shape()}, {kInt32, axis.shape()}};
  const std::vector<TensorMeta> output_meta = {{kFloat64, out.shape()}};
  const std::vector<Tensor> grads = {out};
  const GradientContext ctx(*op, attrs, inputs, outputs, input_meta, output_meta, grads);
  try {
    def->fn(ctx);
    FAIL("expected duet::Error");
  } catch (const Error& e) {
    CHECK(e.code() == absl::StatusCode::kUnimplemented);
    CHECK(std::string(e.what()).find("GatherV2 with batch_dims = 1 needs known shapes") !=
          std::string::npos);
    CHECK(std::string(e.what()).find("(None, 3)") != std::string::npos);
  }
}

DUET_GRADIENT_TEST("Fill", "the value's gradient sums the output's") {
  CheckGradients("Fill",
                 [](const Tensors& x) {
                   return Tensors{fill({2, 3}, x[0])};
                 },
                 {RandomInput({}, 1)});
  CheckGradients("Fill",
                 [](const Tensors& x) {
                   return Tensors{fill({0, 3}, x[0])};
                 },
                 {RandomInput({}, 2)});
}

DUET_GRADIENT_TEST("GatherNd", "slices and elements, duplicate rows add up") {
  CheckGradients("GatherNd",
                 [](const Tensors& x) {
                   return Tensors{gather_nd(x[0], constant({{1, 0}, {2, 1}, {1, 0}}))};
                 },
                 {RandomInput({3, 2, 4}, 1)});
  CheckGradients("GatherNd",
                 [](const Tensors& x) {
                   return Tensors{gather_nd(x[0], constant<int64_t>({{{2}, {0}}}))};
                 },
                 {RandomInput({3, 2}, 2)});
}

DUET_GRADIENT_TEST("ScatterNd", "gathers the gradient back") {
  CheckGradients(
      "ScatterNd",
      [](const Tensors& x) {
        return Tensors{scatter_nd(constant({{1, 0}, {2, 1}, {1, 0}}), x[0], Shape{3, 2, 4})};
      },
      {RandomInput({3, 4}, 1)});
}

DUET_GRADIENT_TEST("TensorScatterUpdate", "replaced slices get no gradient") {
  CheckGradients("TensorScatterUpdate",
                 [](const Tensors& x) {
                   return Tensors{tensor_scatter_update(x[0], constant({{2}, {0}}), x[1])};
                 },
                 {RandomInput({4, 3}, 1), RandomInput({2, 3}, 2)});
}

DUET_GRADIENT_TEST("TensorScatterAdd", "both operands") {
  CheckGradients(
      "TensorScatterAdd",
      [](const Tensors& x) {
        return Tensors{tensor_scatter_add(x[0], constant<int64_t>({{2, 1}, {0, 0}, {2, 1}}), x[1])};
      },
      {RandomInput({4, 3}, 1), RandomInput({3}, 2)});
}

DUET_GRADIENT_TEST("SpaceToBatchND", "padded 2-D blocks and a 1-D block") {
  CheckGradients("SpaceToBatchND",
                 [](const Tensors& x) {
                   return Tensors{space_to_batch_nd(x[0], {2, 2}, {{1, 0}, {0, 1}})};
                 },
                 {RandomInput({2, 3, 3, 2}, 1)});
  CheckGradients("SpaceToBatchND",
                 [](const Tensors& x) {
                   return Tensors{space_to_batch_nd(x[0], {3}, {{2, 2}})};
                 },
                 {RandomInput({2, 5, 1}, 2)});
}

DUET_GRADIENT_TEST("BatchToSpaceND", "cropped 2-D blocks, second order") {
  CheckGradients("BatchToSpaceND",
                 [](const Tensors& x) {
                   return Tensors{batch_to_space_nd(x[0], {2, 2}, {{0, 1}, {1, 0}})};
                 },
                 {RandomInput({8, 2, 2, 1}, 1)});
  CheckSecondOrderGradients("BatchToSpaceND",
                            [](const Tensors& x) {
                              return Tensors{batch_to_space_nd(x[0] * x[0], {2}, {{1, 0}})};
                            },
                            {RandomInput({4, 2, 1}, 2)});
}

DUET_GRADIENT_TEST("UnsortedSegmentSum", "rows into segments, one empty") {
  CheckGradients("UnsortedSegmentSum",
                 [](const Tensors& x) {
                   return Tensors{unsorted_segment_sum(x[0], constant({0, 2, 0, 3}), 4)};
                 },
                 {RandomInput({4, 3}, 1)});
}

DUET_GRADIENT_TEST("UnsortedSegmentSum", "2-D ids, int64, dropped negative ids") {
  CheckGradients(
      "UnsortedSegmentSum",
      [](const Tensors& x) {
        return Tensors{unsorted_segment_sum(x[0], constant<int64_t>({{1, -1}, {1, 0}}), 3)};
      },
      {RandomInput({2, 2, 3}, 1)});
  CheckGradients("UnsortedSegmentSum",
                 [](const Tensors& x) {
                   return Tensors{unsorted_segment_sum(x[0], constant({-1, -2}), 0)};
                 },
                 {RandomInput({2}, 2)});
}

TEST_CASE("UnsortedSegmentSum's gradient gives dropped slices zeros") {
  const Tensor data = RandomInput({3, 2}, 1);
  GradientTape tape;
  tape.watch(data);
  const Tensor y = unsorted_segment_sum(data, constant({1, -1, 0}), 2);
  const Tensor g = tape.gradient(y, {data}, {constant({{1.0, 2.0}, {3.0, 4.0}})})[0];
  ExpectTensor(g, kFloat64, {3, 2}, {3, 4, 0, 0, 1, 2});
}

TEST_CASE("StopGradient and shape queries pass no gradient") {
  const Tensor x = RandomInput({2}, 1);
  GradientTape tape;
  tape.watch(x);
  const Tensor y = concat({stop_gradient(x), x}, 0);
  shape_of(x);
  size(x);
  rank(x);
  zeros_like(x);
  ones_like(x);
  one_hot(constant({0, 1}), 3);
  range(constant(0), 3);
  CHECK(tape_internal::RecordedOpNames(tape) == std::vector<std::string>{"ConcatV2"});
  const Tensor g = tape.gradient(y, {x}, {constant({1.0, 2.0, 3.0, 4.0})})[0];
  ExpectTensor(g, kFloat64, {2}, {3, 4});
}

}  // namespace
}  // namespace duet::testing
