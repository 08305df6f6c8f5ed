#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("AddV2 adds same-shape float32 tensors") {
  Tensor a = constant({{1.f, 2.f}, {3.f, 4.f}});
  Tensor c = a + a;
  testing::ExpectTensor(c, kFloat32, {2, 2}, {2, 4, 6, 8});
}

TEST_CASE("AddV2 reports incompatible shapes with op, dtypes and shapes") {
  Tensor a = constant({{1.f, 2.f, 3.f}});
  Tensor b = constant({1.f, 2.f});
  testing::ExpectError([&] { add(a, b); },
                       {"AddV2", "incompatible shapes", "(1, 3)", "(2,)", "float32", "add_test.cc"});
}

TEST_CASE("AddV2 rejects mixed dtypes") {
  testing::ExpectError([&] { add(constant(1.f), constant(1.0)); },
                       {"AddV2", "float64", "float32"});
}

}  // namespace
}  // namespace duet
