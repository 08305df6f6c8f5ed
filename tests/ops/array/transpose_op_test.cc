// Transpose: permutations of 2-D and 3-D tensors in every dtype, large tiled cases, errors.
#include <bit>
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;
using testing::SequenceValue;

TEMPLATE_TEST_CASE("Transpose permutes dims", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  testing::ExpectTensor(transpose(SequenceTensor<TestType>({2, 3}), {1, 0}), dt, {3, 2},
                        SequenceExpected<TestType>({0, 3, 1, 4, 2, 5}));
  Tensor x = SequenceTensor<TestType>({2, 3, 4});
  // np.arange(24).reshape(2, 3, 4).transpose(perm).ravel()
  testing::ExpectTensor(transpose(x, {2, 0, 1}), dt, {4, 2, 3},
                        SequenceExpected<TestType>({0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                                                    2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}));
  testing::ExpectTensor(transpose(x, {1, 0, 2}), dt, {3, 2, 4},
                        SequenceExpected<TestType>({0,  1,  2,  3, 12, 13, 14, 15, 4,  5,  6, 7, 16,
                                                    17, 18, 19, 8, 9,  10, 11, 20, 21, 22, 23}));
  testing::ExpectTensor(transpose(x), dt, {4, 3, 2},
                        SequenceExpected<TestType>({0, 12, 4, 16, 8,  20, 1, 13, 5, 17, 9,  21,
                                                    2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23}));
  testing::ExpectTensor(
      transpose(x, {0, 2, 1}), dt, {2, 4, 3},
      SequenceExpected<TestType>(
          {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23}));
  testing::ExpectTensor(transpose(x, {0, 1, 2}), dt, {2, 3, 4}, SequenceExpected<TestType>([] {
                          std::vector<double> v(24);
                          for (int i = 0; i < 24; ++i) v[i] = i;
                          return v;
                        }()));
}

// Checks transpose(x, perm) of a large Iota tensor element by element against index math.
template <typename T>
void CheckLargeTranspose(const Shape& shape, const std::vector<int64_t>& perm) {
  Tensor x = SequenceTensor<T>(shape);
  Tensor y = transpose(x, perm);
  const int r = shape.rank();
  std::vector<int64_t> in_strides(r), out_dims(r);
  for (int d = r - 1, s = 1; d >= 0; s *= shape.dim(d), --d) in_strides[d] = s;
  for (int d = 0; d < r; ++d) out_dims[d] = y.shape().dim(d);
  const std::vector<T> got = y.to_vector<T>();
  std::vector<int64_t> idx(r, 0);
  int64_t mismatches = 0;
  for (size_t flat = 0; flat < got.size(); ++flat) {
    int64_t src = 0;
    for (int d = 0; d < r; ++d) src += idx[d] * in_strides[perm[d]];
    if (testing::ToDoubles(from_vector(std::vector<T>{got[flat]}))[0] !=
        testing::ToDoubles(from_vector(std::vector<T>{SequenceValue<T>(src)}))[0]) {
      ++mismatches;
    }
    for (int d = r - 1; d >= 0 && ++idx[d] == out_dims[d]; --d) idx[d] = 0;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("Transpose of large tensors matches index math for every element size and path") {
  CheckLargeTranspose<float>({300, 517}, {1, 0});
  CheckLargeTranspose<int64_t>({37, 64, 33}, {2, 0, 1});
  CheckLargeTranspose<bool>({33, 70, 45}, {1, 2, 0});
  CheckLargeTranspose<int32_t>({5, 40, 3, 70}, {3, 1, 0, 2});
  // float32 and int32 above 16K elements take the oneDNN reorder path.
  CheckLargeTranspose<int32_t>({8, 40, 16, 30}, {0, 2, 3, 1});
  CheckLargeTranspose<float>({16, 33, 77}, {2, 1, 0});
  CheckLargeTranspose<double>({600, 2, 300}, {2, 1, 0});
  // float16 holds integers exactly only up to 2048: a small case still crosses tile edges.
  CheckLargeTranspose<float16>({45, 40}, {1, 0});
}

TEST_CASE("Transpose moves float bits unchanged, NaN payloads included") {
  std::vector<float> v(200 * 100);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = std::bit_cast<float>(static_cast<uint32_t>(0x7f800001u + i));  // signalling NaNs
  }
  std::vector<float> t = transpose(from_vector(v, {200, 100})).to_vector<float>();
  int64_t mismatches = 0;
  for (int64_t r = 0; r < 100; ++r) {
    for (int64_t c = 0; c < 200; ++c) {
      mismatches +=
          std::bit_cast<uint32_t>(t[r * 200 + c]) != std::bit_cast<uint32_t>(v[c * 100 + r]);
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("Transpose of scalars and empty tensors") {
  testing::ExpectTensor(transpose(constant(4.f)), kFloat32, {}, {4});
  testing::ExpectTensor(transpose(zeros({0, 3})), kFloat32, {3, 0}, {});
}

TEST_CASE("Transpose reports bad permutations") {
  Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        transpose(x, {1, 0, 2});
      },
      {"Transpose", "perm [1, 0, 2] has 3 entries but the input has rank 2", "x: float32 (2, 3)",
       "transpose_op_test.cc"});
  testing::ExpectError(
      [&] {
        transpose(x, {0, 0});
      },
      {"Transpose", "perm [0, 0] is not a permutation of 0..1"});
  testing::ExpectError(
      [&] {
        transpose(x, {0, 2});
      },
      {"Transpose", "perm [0, 2] is not a permutation of 0..1"});
  testing::ExpectError(
      [&] {
        transpose(x, {-1, 0});
      },
      {"Transpose", "perm [-1, 0] is not a permutation"});
}

}  // namespace
}  // namespace duet
