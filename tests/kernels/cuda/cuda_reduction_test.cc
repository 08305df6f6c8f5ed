// CUDA Sum, Mean, Max, Min, Prod, All, Any, ArgMax, ArgMin, Cumsum and Cumprod against the CPU,
// over many axes sets, with and without keep_dims, on empty, odd and large (> 1M elements) shapes.
// Scans accumulate in the CPU's order, so they must match exactly.
//
// Tolerances: integer inputs (and float inputs that are small integers, whose sums stay below
// 2^24 so every order is exact) must match exactly, as must Max, Min and the Arg ops. Float sums
// of inexact values differ from the CPU's only by summation order (a tree of warp shuffles here,
// pairwise blocks there): 1e-5 for float32 and 1e-12 for float64 (absolute + relative).
#include <catch2/catch.hpp>
#include <cmath>

#include "duet.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectDeviceMatchesCpu;
using testing::SkipWithoutTestDevice;

const std::vector<DType> kTypes = {kFloat32, kFloat64, kInt32, kInt64};

// Small integers with many repeats (ties for the Arg ops).
Tensor Pattern(DType dtype, const Shape& shape) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7) % 23) - 11;
  return testing::MakeTensor(dtype, shape, v);
}

// Inexact float values in (0, 1): sums depend on their order.
Tensor Fractions(DType dtype, const Shape& shape) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1 + 0.8 * ((i * 7919) % 1000) / 1000.0 + 1e-4;
  return testing::MakeTensor(dtype, shape, v);
}

// Every reduction of in[0] over `axes`.
testing::TensorFn AllReductions(Axes axes, bool keep_dims, bool with_prod = true) {
  return [axes, keep_dims, with_prod](const std::vector<Tensor>& in) {
    std::vector<Tensor> out = {
        reduce_sum(in[0], axes, keep_dims), reduce_mean(in[0], axes, keep_dims),
        reduce_max(in[0], axes, keep_dims), reduce_min(in[0], axes, keep_dims)};
    if (with_prod) out.push_back(reduce_prod(in[0], axes, keep_dims));
    return out;
  };
}

const std::vector<std::vector<int64_t>> kAxesSets = {{},     {0},    {1},    {2},      {-1},
                                                     {0, 2}, {0, 1}, {1, 2}, {0, 1, 2}};

TEST_CASE("CUDA reductions match the CPU over every axes set") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kTypes) {
    INFO("dtype " << DTypeName(dtype));
    for (const auto& axes : kAxesSets) {
      for (bool keep_dims : {false, true}) {
        INFO("axes " << axes.size() << (axes.empty() ? -1 : axes[0]) << " keep_dims " << keep_dims);
        // Prod of 11 * 9 * 7 small integers overflows float: exact only for the ints (wrap).
        const bool prod = dtype == kInt32 || dtype == kInt64 || axes.size() == 1;
        const Axes a = axes.empty() ? Axes() : Axes(axes);
        ExpectDeviceMatchesCpu(AllReductions(a, keep_dims, prod), {Pattern(dtype, {7, 9, 11})},
                               dtype == kFloat32 || dtype == kFloat64 ? 1e-6 : 0);
      }
    }
  }
}

TEST_CASE("CUDA reductions of inexact floats match the CPU within rounding") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64}) {
    const double tol = dtype == kFloat32 ? 1e-5 : 1e-12;
    INFO("dtype " << DTypeName(dtype));
    for (const auto& axes : kAxesSets) {
      ExpectDeviceMatchesCpu(AllReductions(axes.empty() ? Axes() : Axes(axes), false, false),
                             {Fractions(dtype, {7, 9, 11})}, tol);
    }
    // Large: one block per row, column blocks, and the split paths for long reductions with
    // few outputs (rows and columns).
    for (const Shape& shape :
         {Shape({1025, 1031}), Shape({3, 400001}), Shape({400001, 3}), Shape({2000003})}) {
      INFO("shape " << shape.str());
      for (int64_t axis : {0, -1}) {
        ExpectDeviceMatchesCpu(AllReductions(axis, true, false), {Fractions(dtype, shape)}, tol);
      }
      ExpectDeviceMatchesCpu(AllReductions(Axes(), false, false), {Fractions(dtype, shape)}, tol);
    }
    ExpectDeviceMatchesCpu(AllReductions(1, false), {Fractions(dtype, {33, 65, 3})}, tol);
  }
  // Large integer reductions are exact (sums and products wrap the same in any order).
  for (DType dtype : {kInt32, kInt64}) {
    ExpectDeviceMatchesCpu(AllReductions({0, 2}, false), {Pattern(dtype, {1001, 7, 301})}, 0);
    ExpectDeviceMatchesCpu(AllReductions(Axes(), false), {Pattern(dtype, {2000003})}, 0);
  }
}

TEST_CASE("CUDA empty reductions give the CPU's identities") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kTypes) {
    INFO("dtype " << DTypeName(dtype));
    for (bool keep_dims : {false, true}) {
      ExpectDeviceMatchesCpu(AllReductions(0, keep_dims), {Pattern(dtype, {0, 5})}, 0);
      ExpectDeviceMatchesCpu(AllReductions(1, keep_dims), {Pattern(dtype, {0, 5})}, 0);
      ExpectDeviceMatchesCpu(AllReductions(Axes(), keep_dims), {Pattern(dtype, {3, 0, 2})}, 0);
    }
    // Only size-1 dims reduced: a copy (Mean divides by 1).
    ExpectDeviceMatchesCpu(AllReductions({0, 2}, false), {Pattern(dtype, {1, 6, 1})}, 0);
  }
}

TEST_CASE("CUDA reductions over size-1 dims only copy, keeping -0.0") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dtype));
    const Tensor x = testing::OnTestDevice(testing::MakeTensor(dtype, {1, 2, 1}, {-0.0, 1.5}));
    for (const Tensor& y : AllReductions({0, 2}, false)({x})) {
      const std::vector<double> v = testing::ToDoubles(y.cpu());
      REQUIRE(v.size() == 2);
      CHECK(std::signbit(v[0]));  // -0.0, not the identity's +0.0 added to it
      CHECK(v[1] == 1.5);
    }
  }
}

TEST_CASE("CUDA Max and Min propagate NaN like the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64}) {
    std::vector<double> v = testing::ToDoubles(Pattern(kFloat64, {6, 300}));
    v[5] = NAN;
    v[300 * 3 + 299] = NAN;
    v[300 * 4 + 7] = NAN;
    v[300 * 4 + 100] = NAN;
    const Tensor x = testing::MakeTensor(dtype, {6, 300}, v);
    ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{reduce_max(in[0], 0), reduce_max(in[0], 1),
                                     reduce_min(in[0], 0), reduce_min(in[0], 1),
                                     argmax(in[0], 0),     argmax(in[0], 1),
                                     argmin(in[0], 0),     argmin(in[0], 1)};
        },
        {x}, 0);
  }
}

TEST_CASE("CUDA ArgMax and ArgMin match the CPU (first of ties)") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kTypes) {
    for (DType out_type : {kInt32, kInt64}) {
      INFO("dtype " << DTypeName(dtype) << " output " << DTypeName(out_type));
      for (int64_t axis : {0, 1, 2, -1}) {
        ExpectDeviceMatchesCpu(
            [axis, out_type](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{argmax(in[0], axis, out_type),
                                         argmin(in[0], axis, out_type)};
            },
            {Pattern(dtype, {7, 9, 11})}, 0);
      }
      ExpectDeviceMatchesCpu(
          [out_type](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{argmax(in[0], 1, out_type), argmin(in[0], 1, out_type)};
          },
          {Pattern(dtype, {0, 4})}, 0);
    }
    for (const Shape& shape : {Shape({1025, 1031}), Shape({3, 300007}), Shape({300007, 3})}) {
      INFO("shape " << shape.str());
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{argmax(in[0], 0), argmin(in[0], 0), argmax(in[0], 1),
                                       argmin(in[0], 1)};
          },
          {Pattern(dtype, shape)}, 0);
    }
  }
}

TEST_CASE("CUDA Cumsum and Cumprod match the CPU exactly, every axis, exclusive and reverse") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kTypes) {
    INFO("dtype " << DTypeName(dtype));
    for (int64_t axis : {0, 1, 2, -1}) {
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          INFO("axis " << axis << " exclusive " << exclusive << " reverse " << reverse);
          ExpectDeviceMatchesCpu(
              [=](const std::vector<Tensor>& in) {
                return std::vector<Tensor>{cumsum(in[0], axis, exclusive, reverse),
                                           cumprod(in[0], axis, exclusive, reverse)};
              },
              {Pattern(dtype, {7, 9, 11})}, 0);
        }
      }
    }
    for (const Shape& shape : {Shape({0, 4}), Shape({3, 300007}), Shape({300007, 3})}) {
      INFO("shape " << shape.str());
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{cumsum(in[0], 0), cumsum(in[0], 1, true, true)};
          },
          {Pattern(dtype, shape)}, 0);
    }
  }
}

// Bools where true is rare (`every` = 0: none), so that Any and All differ along every axis.
Tensor SparseBools(const Shape& shape, int64_t every) {
  std::vector<bool> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = every > 0 && (i * 7919) % every == 0;
  return from_vector(v, shape);
}

TEST_CASE("CUDA All and Any match the CPU") {
  if (SkipWithoutTestDevice()) return;
  auto both = [](Axes axes, bool keep_dims) {
    return [axes, keep_dims](const std::vector<Tensor>& in) {
      const Tensor flipped = logical_not(in[0]);
      return std::vector<Tensor>{
          reduce_all(in[0], axes, keep_dims), reduce_any(in[0], axes, keep_dims),
          reduce_all(flipped, axes, keep_dims), reduce_any(flipped, axes, keep_dims)};
    };
  };
  for (const auto& axes : kAxesSets) {
    for (bool keep_dims : {false, true}) {
      ExpectDeviceMatchesCpu(both(axes.empty() ? Axes() : Axes(axes), keep_dims),
                             {SparseBools({7, 9, 11}, 13)}, 0);
    }
  }
  // Long rows and columns (split paths), all-false inputs, and empty ones.
  for (const Shape& shape : {Shape({3, 400001}), Shape({400001, 3}), Shape({2000003})}) {
    for (int64_t every : {0, 1000003}) {
      INFO("shape " << shape.str() << " every " << every);
      ExpectDeviceMatchesCpu(both(0, false), {SparseBools(shape, every)}, 0);
      ExpectDeviceMatchesCpu(both(-1, true), {SparseBools(shape, every)}, 0);
      ExpectDeviceMatchesCpu(both(Axes(), false), {SparseBools(shape, every)}, 0);
    }
  }
  ExpectDeviceMatchesCpu(both(0, false), {SparseBools({0, 5}, 3)}, 0);
  ExpectDeviceMatchesCpu(both(Axes(), false), {SparseBools({3, 0, 2}, 3)}, 0);
}

}  // namespace
}  // namespace duet
