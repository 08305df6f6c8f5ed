// CUDA GatherV2, GatherNd, OneHot, DenseBincount, UnsortedSegmentSum and the ScatterNd family
// against the CPU.
// Gather and OneHot move bits (tolerance 0), as do GatherNd and TensorScatterUpdate (with unique
// rows). UnsortedSegmentSum, ScatterNd and TensorScatterAdd add with atomics in any order: the
// inputs are small integers, whose float sums are exact in every order, so it is checked exactly
// too; one non-integer float32 case uses 1e-5 (absolute + relative).
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectDeviceMatchesCpu;
using testing::SkipWithoutTestDevice;

const std::vector<DType> kAllTypes = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                      kInt32,   kInt64,   kBool};

Tensor Pattern(DType dtype, const Shape& shape) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7) % 23) - 11;
  return testing::MakeTensor(dtype, shape, v);
}

// float32 multiples of 0.1: inexact, so sums depend on their order.
Tensor Tenths(const Shape& shape) {
  std::vector<double> v = testing::ToDoubles(Pattern(kFloat64, shape));
  for (double& x : v) x *= 0.1;
  return testing::MakeTensor(kFloat32, shape, v);
}

// Indices in [lo, lo + range), scrambled.
Tensor Indices(DType dtype, const Shape& shape, int64_t range, int64_t lo = 0) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 13 + 5) % range + lo);
  return testing::MakeTensor(dtype, shape, v);
}

TEST_CASE("CUDA GatherV2 matches the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    for (DType index_type : {kInt32, kInt64}) {
      INFO("dtype " << DTypeName(dtype) << " indices " << DTypeName(index_type));
      for (int64_t axis : {0, 1, -1}) {
        INFO("axis " << axis);
        ExpectDeviceMatchesCpu(
            [axis](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{gather(in[0], in[1], axis)};
            },
            {Pattern(dtype, {5, 6, 7}), Indices(index_type, {2, 3}, 5)}, 0);
      }
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{gather(in[0], in[1], 0)};
          },
          {Pattern(dtype, {5, 3}), Indices(index_type, {0}, 5)}, 0);
    }
  }
  ExpectDeviceMatchesCpu(
      [](const std::vector<Tensor>& in) { return std::vector<Tensor>{gather(in[0], in[1], 0)}; },
      {Pattern(kFloat32, {1000, 129}), Indices(kInt64, {9001}, 1000)}, 0);
}

// Issue 37: batch_dims.
TEST_CASE("CUDA GatherV2 with batch_dims matches the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{gather(in[0], in[1], 2, 1)};
        },
        {Pattern(dtype, {5, 6, 7}), Indices(kInt64, {5, 4}, 7)}, 0);
    ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{gather(in[0], in[1], 2, -1)};
        },
        {Pattern(dtype, {5, 6, 7}), Indices(kInt32, {5, 6, 3}, 7)}, 0);
  }
}

TEST_CASE("CUDA GatherV2 writes zeros for out-of-range indices where the CPU fails") {
  if (testing::SkipWithoutGpu()) return;
  const Tensor params = Pattern(kFloat32, {3, 2});
  const Tensor indices = testing::MakeTensor(kInt32, {3}, {2, 3, -1});
  testing::ExpectError([&] { gather(params, indices); }, {"not in [0, 3)"});
  const Tensor out = gather(params.gpu(), indices.gpu());
  const std::vector<double> p = testing::ToDoubles(params);
  testing::ExpectTensor(out.cpu(), kFloat32, {3, 2}, {p[4], p[5], 0, 0, 0, 0}, 0);
}

TEST_CASE("CUDA OneHot matches the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    for (DType index_type : {kInt32, kInt64}) {
      INFO("dtype " << DTypeName(dtype) << " indices " << DTypeName(index_type));
      // Indices in [-2, 7) with depth 5: some out of range on both sides (all off).
      const Tensor indices = Indices(index_type, {4, 3}, 9, -2);
      for (int64_t axis : {-1, 0, 1}) {
        INFO("axis " << axis);
        ExpectDeviceMatchesCpu(
            [axis, dtype](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{one_hot(in[0], 5, 1, 0, axis, dtype),
                                         one_hot(in[0], 5, -2, 3, axis, dtype)};
            },
            {indices}, 0);
      }
      ExpectDeviceMatchesCpu(
          [dtype](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{one_hot(in[0], 4, 1, 0, -1, dtype)};
          },
          {Indices(index_type, {0, 3}, 4)}, 0);
    }
  }
  ExpectDeviceMatchesCpu(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{one_hot(in[0], 1000, 1, 0, -1, kFloat16)};
      },
      {Indices(kInt64, {1500}, 1000)}, 0);
}

TEST_CASE("CUDA DenseBincount matches the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    for (DType index_type : {kInt32, kInt64}) {
      INFO("dtype " << DTypeName(dtype) << " values " << DTypeName(index_type));
      // Values in [0, 9) into 6 bins: the larger ones are dropped.
      for (bool binary : {false, true}) {
        ExpectDeviceMatchesCpu(
            [binary](const std::vector<Tensor>& in) {
              const Tensor first = constant(0);  // one row: the 1-D form
              return std::vector<Tensor>{
                  dense_bincount(in[0], 6, in[1], binary),
                  dense_bincount(gather(in[0], first, 0), 6, gather(in[1], first, 0), binary)};
            },
            {Indices(index_type, {7, 30}, 9), Pattern(dtype, {7, 30})}, 0);
      }
      ExpectDeviceMatchesCpu(
          [dtype](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{dense_bincount(in[0], 5, zeros({0}, dtype))};
          },
          {Indices(index_type, {4000}, 5)}, 0);
    }
  }
}

TEST_CASE("CUDA UnsortedSegmentSum matches the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    for (DType index_type : {kInt32, kInt64}) {
      INFO("dtype " << DTypeName(dtype) << " ids " << DTypeName(index_type));
      // Ids in [-1, 6) over 6 segments: negative ids are dropped.
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{unsorted_segment_sum(in[0], in[1], 6),
                                       unsorted_segment_sum(in[0], in[1], 9)};
          },
          {Pattern(dtype, {20, 3, 2}), Indices(index_type, {20}, 7, -1)}, 0);
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{unsorted_segment_sum(in[0], in[1], 4)};
          },
          {Pattern(dtype, {2, 3, 5}), Indices(index_type, {2, 3}, 4)}, 0);
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{unsorted_segment_sum(in[0], in[1], 3)};
          },
          {Pattern(dtype, {0, 4}), Indices(index_type, {0}, 3)}, 0);
    }
  }
  // Many rows into few segments: heavy atomic contention, more than 1M elements.
  ExpectDeviceMatchesCpu(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{unsorted_segment_sum(in[0], in[1], 17)};
      },
      {Pattern(kInt64, {20011, 53}), Indices(kInt32, {20011}, 17)}, 0);
  // Non-integer float32 values: the order of the adds shows in the last bits.
  ExpectDeviceMatchesCpu(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{unsorted_segment_sum(in[0], in[1], 7)};
      },
      {Tenths({4099, 33}), Indices(kInt64, {4099}, 7)}, 1e-5);
}

TEST_CASE("CUDA UnsortedSegmentSum drops ids past the last segment where the CPU fails") {
  if (testing::SkipWithoutGpu()) return;
  const Tensor data = testing::MakeTensor(kFloat32, {3}, {1, 2, 4});
  const Tensor ids = testing::MakeTensor(kInt32, {3}, {0, 2, 1});
  testing::ExpectError([&] { unsorted_segment_sum(data, ids, 2); }, {"num_segments"});
  testing::ExpectTensor(unsorted_segment_sum(data.gpu(), ids.gpu(), 2).cpu(), kFloat32, {2}, {1, 4},
                        0);
}

TEST_CASE("CUDA GatherNd and the ScatterNd family match the CPU") {
  if (SkipWithoutTestDevice()) return;
  // Unique rows (i, 2i mod 6, ...) into (5, 6, 7): TensorScatterUpdate's winner is then unique.
  std::vector<double> rows2, rows3;
  for (int i = 0; i < 5; ++i) {
    rows2.insert(rows2.end(), {double(i), double(2 * i % 6)});
    rows3.insert(rows3.end(), {double(i), double(2 * i % 6), double(3 * i % 7)});
  }
  for (DType dtype : kAllTypes) {
    for (DType index_type : {kInt32, kInt64}) {
      INFO("dtype " << DTypeName(dtype) << " indices " << DTypeName(index_type));
      const Tensor x = Pattern(dtype, {5, 6, 7});
      const auto gather_fn = [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{gather_nd(in[0], in[1])};
      };
      ExpectDeviceMatchesCpu(gather_fn, {x, Indices(index_type, {4, 3, 2}, 5)}, 0);
      ExpectDeviceMatchesCpu(gather_fn, {x, Indices(index_type, {9, 3}, 5)}, 0);
      ExpectDeviceMatchesCpu(gather_fn, {x, Indices(index_type, {2, 0}, 5)}, 0);
      ExpectDeviceMatchesCpu(gather_fn, {x, Indices(index_type, {0, 1}, 5)}, 0);
      const auto update_fn = [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{tensor_scatter_update(in[0], in[1], in[2])};
      };
      ExpectDeviceMatchesCpu(
          update_fn, {x, testing::MakeTensor(index_type, {5, 2}, rows2), Pattern(dtype, {5, 7})},
          0);
      ExpectDeviceMatchesCpu(
          update_fn, {x, testing::MakeTensor(index_type, {5, 3}, rows3), Pattern(dtype, {5})}, 0);
      if (dtype == kBool) continue;
      // Duplicate rows add up.
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{scatter_nd(in[0], in[1], Shape{5, 6, 7})};
          },
          {Indices(index_type, {3, 4, 2}, 5), Pattern(dtype, {3, 4, 7})}, 0);
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{tensor_scatter_add(in[0], in[1], in[2])};
          },
          {x, Indices(index_type, {11, 1}, 5), Pattern(dtype, {11, 6, 7})}, 0);
    }
  }
  // Many rows onto few slices: heavy atomic contention.
  ExpectDeviceMatchesCpu(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{scatter_nd(in[0], in[1], Shape{3, 5, 64})};
      },
      {Indices(kInt64, {20011, 2}, 3), Pattern(kInt32, {20011, 64})}, 0);
  ExpectDeviceMatchesCpu(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{tensor_scatter_add(in[0], in[1], in[2])};
      },
      {Tenths({7, 33}), Indices(kInt32, {4099, 1}, 7), Tenths({4099, 33})}, 1e-5);
}

TEST_CASE("CUDA GatherNd and ScatterNd drop out-of-range rows where the CPU fails") {
  if (testing::SkipWithoutGpu()) return;
  const Tensor params = testing::MakeTensor(kFloat32, {2, 2}, {1, 2, 3, 4});
  const Tensor indices = testing::MakeTensor(kInt32, {3, 2}, {1, 0, 2, 0, 0, -1});
  testing::ExpectError([&] { gather_nd(params, indices); }, {"does not index into"});
  testing::ExpectTensor(gather_nd(params.gpu(), indices.gpu()).cpu(), kFloat32, {3}, {3, 0, 0}, 0);
  const Tensor updates = testing::MakeTensor(kFloat32, {3}, {5, 6, 7});
  testing::ExpectTensor(scatter_nd(indices.gpu(), updates.gpu(), Shape{2, 2}).cpu(), kFloat32,
                        {2, 2}, {0, 0, 5, 0}, 0);
}

}  // namespace
}  // namespace duet
