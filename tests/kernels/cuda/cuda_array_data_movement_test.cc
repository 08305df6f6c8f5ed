// CUDA Fill, ZerosLike, OnesLike, Transpose, ConcatV2, Split, SplitV, Slice, Pad, PadV2,
// MirrorPad, MirrorPadGrad (sums of small integers, exact too), StridedSlice, StridedSliceGrad,
// ReverseV2, Tile, BroadcastTo, SpaceToBatchND and BatchToSpaceND against the CPU, for every dtype.
// These kernels only move bits, so the tolerance is 0 (exact). Shapes include empty ones, odd
// sizes and more than 1M elements (many blocks); strided slices cover every mask and negative
// strides.
#include <catch2/catch.hpp>
#include <string>

#include "duet.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectDeviceMatchesCpu;
using testing::SkipWithoutTestDevice;
using Fn = testing::TensorFn;

const std::vector<DType> kAllTypes = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                      kInt32,   kInt64,   kBool};

// Small integers (odd ones true as bool): exact in every dtype.
Tensor Pattern(DType dtype, const Shape& shape) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7) % 23) - 11;
  return testing::MakeTensor(dtype, shape, v);
}

// One op function applied to input 0.
Fn Unary(std::function<Tensor(const Tensor&)> f) {
  return [f](const std::vector<Tensor>& in) { return std::vector<Tensor>{f(in[0])}; };
}

const Shape kLarge = {1025, 1031};  // > 1M elements, neither dim a multiple of 32

TEST_CASE("CUDA Fill, ZerosLike and OnesLike match the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    const Tensor value = testing::MakeTensor(dtype, {}, {-3});
    // The value input goes to the GPU: the kernel reads it from device memory.
    ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{fill({3, 5}, in[0]), fill({0, 4}, in[0]), fill({}, in[0])};
        },
        {value}, 0);
    for (const Shape& shape : {Shape({2, 3}), Shape({0, 3}), Shape({257}), kLarge}) {
      INFO("shape " << shape.str());
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{zeros_like(in[0]), ones_like(in[0])};
          },
          {Pattern(dtype, shape)}, 0);
    }
  }
  ExpectDeviceMatchesCpu(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{fill({1025, 1031}, in[0])};
      },
      {testing::MakeTensor(kFloat32, {}, {2.5})}, 0);
}

TEST_CASE("CUDA Transpose matches the CPU") {
  if (SkipWithoutTestDevice()) return;
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
  };
  const std::vector<Case> cases = {
      {{37, 65}, {1, 0}},                        // 2-D: tiled
      {{4, 33, 70}, {0, 2, 1}},                  // batched 2-D: tiled
      {{2, 3, 5, 7}, {0, 2, 3, 1}},              // NCHW -> NHWC: tiled after merging H, W
      {{2, 3, 5, 7}, {0, 3, 1, 2}},              // NHWC -> NCHW
      {{2, 3, 5, 7}, {3, 1, 2, 0}},              // general: strided
      {{2, 3, 5, 7}, {1, 0, 2, 3}},              // keeps the innermost dims: block copy
      {{6, 1, 5}, {2, 1, 0}},                    // size-1 dims
      {{3, 4, 5}, {2, 0, 1}},                    // rotation: one 2-D transpose
      {{0, 5}, {1, 0}},                          // empty
      {{7}, {0}},                                // rank 1
      {{}, {}},                                  // scalar
      {kLarge, {1, 0}},                          // many tiles
      {{9, 2, 3, 2, 3, 2}, {5, 3, 1, 4, 2, 0}},  // rank 6, nothing merges
  };
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    for (const Case& c : cases) {
      INFO("shape " << c.shape.str() << " perm " << c.perm.size());
      const std::vector<int64_t> perm = c.perm;
      ExpectDeviceMatchesCpu(Unary([perm](const Tensor& x) { return transpose(x, perm); }),
                             {Pattern(dtype, c.shape)}, 0);
    }
  }
}

TEST_CASE("CUDA ConcatV2, Split and SplitV match the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    for (int64_t axis : {0, 1, -1}) {
      INFO("axis " << axis);
      ExpectDeviceMatchesCpu(
          [axis](const std::vector<Tensor>& in) { return std::vector<Tensor>{concat(in, axis)}; },
          {Pattern(dtype, {3, 4, 5}), Pattern(dtype, {3, 4, 5}), Pattern(dtype, {3, 4, 5})}, 0);
    }
    // Different widths, one of them empty.
    ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) { return std::vector<Tensor>{concat(in, 1)}; },
        {Pattern(dtype, {3, 2, 5}), Pattern(dtype, {3, 0, 5}), Pattern(dtype, {3, 7, 5})}, 0);
    ExpectDeviceMatchesCpu([](const std::vector<Tensor>& in) { return split(in[0], 3, 1); },
                           {Pattern(dtype, {4, 9, 5})}, 0);
    ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) {
          return split(in[0], std::vector<int64_t>{2, 0, -1}, -1);
        },
        {Pattern(dtype, {4, 3, 11})}, 0);
    ExpectDeviceMatchesCpu([](const std::vector<Tensor>& in) { return split(in[0], 2, 0); },
                           {Pattern(dtype, {0, 3})}, 0);
  }
  ExpectDeviceMatchesCpu(
      [](const std::vector<Tensor>& in) {
        std::vector<Tensor> out = split(in[0], std::vector<int64_t>{100, 931}, 1);
        out.push_back(concat({in[0], in[0]}, 0));
        out.push_back(concat({in[0], in[0]}, 1));
        return out;
      },
      {Pattern(kFloat32, kLarge)}, 0);
}

TEST_CASE("CUDA Slice and Pad match the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return slice(x, {1, 0, 2}, {2, -1, 3});
                           }),
                           {Pattern(dtype, {4, 5, 6})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return slice(x, {1, 2}, {0, 3});
                           }),
                           {Pattern(dtype, {4, 5})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return pad(x, {{1, 2}, {0, 3}, {2, 0}});
                           }),
                           {Pattern(dtype, {3, 4, 5})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return pad(x, {{1, 1}, {2, 0}});
                           }),
                           {Pattern(dtype, {0, 3})}, 0);
  }
  ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                           return pad(slice(x, {3, 5}, {1000, 1001}), {{7, 0}, {1, 33}});
                         }),
                         {Pattern(kInt32, kLarge)}, 0);
}

TEST_CASE("CUDA PadV2, MirrorPad and MirrorPadGrad match the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    // The constant goes to the GPU too: the fill kernel reads it from device memory.
    ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{pad(in[0], {{1, 2}, {0, 3}, {2, 0}}, in[1]),
                                     pad(in[0], {{0, 0}, {1, 1}, {0, 0}}, in[1])};
        },
        {Pattern(dtype, {3, 4, 5}), testing::MakeTensor(dtype, {}, {-3})}, 0);
    for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
      INFO(mode);
      ExpectDeviceMatchesCpu(Unary([mode](const Tensor& x) {
                               return mirror_pad(x, {{1, 2}, {0, 3}, {2, 0}}, mode);
                             }),
                             {Pattern(dtype, {3, 4, 5})}, 0);
      // An empty dim takes no REFLECT padding, not even 0 (pad < dim), as in TensorFlow.
      if (std::string(mode) == "SYMMETRIC") {
        ExpectDeviceMatchesCpu(Unary([mode](const Tensor& x) {
                                 return mirror_pad(x, {{0, 0}, {1, 1}}, mode);
                               }),
                               {Pattern(dtype, {0, 3})}, 0);
      }
      if (dtype == kBool) continue;
      ExpectDeviceMatchesCpu(
          Unary([mode](const Tensor& dy) {
            return mirror_pad_grad(dy, from_vector<int32_t>({1, 2, 0, 3, 2, 0}, {3, 2}), mode);
          }),
          {Pattern(dtype, {6, 7, 7})}, 0);
    }
  }
  ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                           return mirror_pad(x, {{7, 3}, {1, 33}}, "REFLECT");
                         }),
                         {Pattern(kInt32, kLarge)}, 0);
  ExpectDeviceMatchesCpu(
      Unary([](const Tensor& dy) {
        return mirror_pad_grad(dy, from_vector<int32_t>({7, 3, 1, 33}, {2, 2}), "SYMMETRIC");
      }),
      {Pattern(kFloat32, kLarge)}, 1e-6);
}

TEST_CASE("CUDA StridedSlice and StridedSliceGrad match the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    // x[1:, ..., ::-1, None, 2]
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return strided_slice(x, {1, 0, 0, 0, 2}, {0, 0, 0, 0, 3},
                                                  {1, 1, -1, 1, 1},
                                                  {.begin_mask = 4,
                                                   .end_mask = 5,
                                                   .ellipsis_mask = 2,
                                                   .new_axis_mask = 8,
                                                   .shrink_axis_mask = 16});
                           }),
                           {Pattern(dtype, {3, 4, 5, 6})}, 0);
    // x[-10:10:3, 4:0:-2] and an empty x[2:1]
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return strided_slice(x, {-10, 4}, {10, 0}, {3, -2});
                           }),
                           {Pattern(dtype, {7, 5})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) { return strided_slice(x, {2}, {1}, {1}); }),
                           {Pattern(dtype, {4, 3})}, 0);
    // The gradient of x[::2, ::-3] for x of shape (5, 7).
    ExpectDeviceMatchesCpu(Unary([](const Tensor& dy) {
                             return strided_slice_grad(constant({5, 7}), constant({0, 0}),
                                                       constant({0, 0}), constant({2, -3}), dy,
                                                       {.begin_mask = 3, .end_mask = 3});
                           }),
                           {Pattern(dtype, {3, 3})}, 0);
  }
  ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                           return strided_slice(x, {1000, 3}, {1, 1030}, {-1, 2});
                         }),
                         {Pattern(kInt32, kLarge)}, 0);
  // The gradient of x[1:, ::-1].
  ExpectDeviceMatchesCpu(Unary([](const Tensor& dy) {
                           return strided_slice_grad(constant({1025, 1031}), constant({1, 0}),
                                                     constant({0, 0}), constant({1, -1}), dy,
                                                     {.begin_mask = 2, .end_mask = 3});
                         }),
                         {Pattern(kFloat32, {1024, 1031})}, 0);
}

TEST_CASE("CUDA ReverseV2 matches the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return reverse(x, {0, -1});
                           }),
                           {Pattern(dtype, {3, 4, 5})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) { return reverse(x, {1}); }),
                           {Pattern(dtype, {0, 3})}, 0);
  }
  ExpectDeviceMatchesCpu(Unary([](const Tensor& x) { return reverse(x, {1}); }),
                         {Pattern(kFloat64, kLarge)}, 0);
}

TEST_CASE("CUDA Tile and BroadcastTo match the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return tile(x, {2, 1, 3});
                           }),
                           {Pattern(dtype, {3, 4, 5})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return tile(x, {0, 2});
                           }),
                           {Pattern(dtype, {3, 4})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return broadcast_to(x, {2, 3, 4, 5});
                           }),
                           {Pattern(dtype, {3, 1, 5})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return broadcast_to(x, {6, 7});
                           }),
                           {Pattern(dtype, {})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return broadcast_to(x, {0, 7});
                           }),
                           {Pattern(dtype, {1, 7})}, 0);
  }
  ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                           return broadcast_to(x, {1025, 1031});
                         }),
                         {Pattern(kFloat64, {1, 1031})}, 0);
  ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                           return tile(x, {41, 1});
                         }),
                         {Pattern(kFloat16, {25, 1031})}, 0);
}

TEST_CASE("CUDA SpaceToBatchND and BatchToSpaceND match the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return space_to_batch_nd(x, {2, 2}, {{1, 0}, {0, 2}});
                           }),
                           {Pattern(dtype, {2, 3, 4, 3})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return batch_to_space_nd(x, {2, 2}, {{0, 1}, {1, 0}});
                           }),
                           {Pattern(dtype, {8, 2, 3, 3})}, 0);
    ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                             return space_to_batch_nd(x, {3}, {{2, 2}});
                           }),
                           {Pattern(dtype, {2, 5, 1})}, 0);
  }
  ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                           return space_to_batch_nd(x, {4, 3}, {{3, 0}, {1, 1}});
                         }),
                         {Pattern(kFloat32, {3, 129, 127, 17})}, 0);
  ExpectDeviceMatchesCpu(Unary([](const Tensor& x) {
                           return batch_to_space_nd(x, {4, 3}, {{3, 0}, {1, 1}});
                         }),
                         {Pattern(kFloat32, {36, 33, 43, 17})}, 0);
}

}  // namespace
}  // namespace duet
