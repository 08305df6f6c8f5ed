// Where (where_indices): coordinates of the true elements for every dtype, against TensorFlow's
// tf.where(x) for x = (np.arange(24) * 7 % 5).reshape(2, 3, 4), small cases and empty inputs.
// tests/graph/eager_graph_test.cc runs it in a graph, where the count is known only at run time.
#include "ops/array/where_op.h"

#include <catch2/catch.hpp>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEMPLATE_TEST_CASE("Where gives the coordinates of true elements", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  std::vector<double> x;
  for (int i = 0; i < 24; ++i) x.push_back(i * 7 % 5);
  std::vector<double> expected = {0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 1, 0, 0, 1, 2, 0, 1, 3, 0,
                                  2, 0, 0, 2, 1, 0, 2, 3, 1, 0, 0, 1, 0, 1, 1, 0, 2, 1, 1,
                                  0, 1, 1, 1, 1, 1, 2, 1, 1, 3, 1, 2, 1, 1, 2, 2, 1, 2, 3};
  testing::ExpectTensor(where_indices(testing::MakeTensor(dt, {2, 3, 4}, x)), kInt64, {19, 3},
                        expected);
  testing::ExpectTensor(where_indices(testing::MakeTensor(dt, {4}, {0, 1, 0, 1})), kInt64, {2, 1},
                        {1, 3});
  testing::ExpectTensor(where_indices(zeros({2, 0}, dt)), kInt64, {0, 2}, {});
  testing::ExpectTensor(where_indices(zeros({3, 2}, dt)), kInt64, {0, 2}, {});
}

TEST_CASE("Where reads non-zero floats as true, NaN and -0 included") {
  const Tensor x = from_vector(std::vector<float>{0.f, 1.5f, -0.f, -2.f, NAN});
  testing::ExpectTensor(where_indices(x), kInt64, {3, 1}, {1, 3, 4});
}

}  // namespace
}  // namespace duet
