#include "core/constant.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("constant takes its dtype and shape from the literal") {
  testing::ExpectTensor(constant(3.f), kFloat32, {}, {3});
  testing::ExpectTensor(constant(2.5), kFloat64, {}, {2.5});
  testing::ExpectTensor(constant({1, 2, 3}), kInt32, {3}, {1, 2, 3});
  testing::ExpectTensor(constant({int64_t{1} << 40}), kInt64, {1}, {1099511627776.0});
  testing::ExpectTensor(constant({true, false}), kBool, {2}, {1, 0});
  testing::ExpectTensor(constant({{1.f, 2.f}, {3.f, 4.f}}), kFloat32, {2, 2}, {1, 2, 3, 4});
  testing::ExpectTensor(constant({{{1.0}, {2.0}}}), kFloat64, {1, 2, 1}, {1, 2});
  testing::ExpectTensor(constant({{{{1, 2}}}}), kInt32, {1, 1, 1, 2}, {1, 2});
  testing::ExpectTensor(constant(std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2}), kFloat32, {3, 2},
                        {1, 2, 3, 4, 5, 6});
}

TEST_CASE("Ragged nested lists are errors naming the depth and lengths") {
  testing::ExpectError(
      [] {
        constant({{1.f, 2.f}, {3.f}});
      },
      {"ragged", "depth 1", "1 elements", "expected 2"});
  testing::ExpectError(
      [] {
        constant({{{1, 2}, {3, 4}}, {{5, 6}, {7}}});
      },
      {"ragged", "depth 2", "expected 2"});
  testing::ExpectError([] { constant({{{1}, {2}}, {{3}}}); }, {"ragged", "depth 1"});
}

TEST_CASE("from_vector copies and checks the element count") {
  std::vector<double> v = {1, 2, 3, 4};
  const Tensor t = from_vector(v, {2, 2});
  v[0] = 99;  // the tensor holds a copy
  testing::ExpectTensor(t, kFloat64, {2, 2}, {1, 2, 3, 4});
  testing::ExpectTensor(from_vector(std::vector<bool>{true, false, true}), kBool, {3}, {1, 0, 1});
  testing::ExpectTensor(from_vector(std::vector<float>{}), kFloat32, {0}, {});
  testing::ExpectError(
      [] {
        from_vector(std::vector<int>{1, 2, 3}, {2, 2});
      },
      {"from_vector", "3 values", "(2, 2)", "4 elements"});
  testing::ExpectError([] { from_vector(std::vector<int>{1}, {Shape::kUnknownDim}); }, {"(None,)"});
}

TEST_CASE("zeros, ones, fill and scalar in every dtype") {
  testing::ExpectTensor(zeros({2, 3}), kFloat32, {2, 3}, {0, 0, 0, 0, 0, 0});
  testing::ExpectTensor(ones({2}, kFloat64), kFloat64, {2}, {1, 1});
  testing::ExpectTensor(fill({3}, 2.5, kFloat16), kFloat16, {3}, {2.5, 2.5, 2.5});
  testing::ExpectTensor(fill({1}, 0.1, kBFloat16), kBFloat16, {1}, {0.10009765625});
  testing::ExpectTensor(fill({2}, -7, kInt64), kInt64, {2}, {-7, -7});
  testing::ExpectTensor(ones({2, 2}, kBool), kBool, {2, 2}, {1, 1, 1, 1});
  testing::ExpectTensor(zeros({0, 5}, kInt32), kInt32, {0, 5}, {});
  testing::ExpectTensor(scalar(3, kInt32), kInt32, {}, {3});
}

TEST_CASE("range follows numpy.arange") {
  testing::ExpectTensor(range(5), kInt32, {5}, {0, 1, 2, 3, 4});
  testing::ExpectTensor(range(2, 11, 3), kInt32, {3}, {2, 5, 8});
  testing::ExpectTensor(range(5, 0, -2), kInt32, {3}, {5, 3, 1});
  testing::ExpectTensor(range(0, 1, 0.25), kFloat32, {4}, {0, 0.25, 0.5, 0.75});
  testing::ExpectTensor(range(0, 1, 0.1), kFloat32, {10}, {0, .1, .2, .3, .4, .5, .6, .7, .8, .9},
                        1e-6);  // numpy: 10 values
  testing::ExpectTensor(range(0, 3, 1, kFloat64), kFloat64, {3}, {0, 1, 2});
  testing::ExpectTensor(range(3, 3), kInt32, {0}, {});
  testing::ExpectTensor(range(0, 5, -1), kInt32, {0}, {});
  testing::ExpectError([] { range(0, 5, 0); }, {"delta must not be 0"});
  testing::ExpectError([] { range(0, 1e20); }, {"range", "too many elements"});
  testing::ExpectError([] { range(0, std::nan("")); }, {"range", "too many elements"});
}

}  // namespace
}  // namespace duet
