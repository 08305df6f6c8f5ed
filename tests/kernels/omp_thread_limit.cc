// oneDNN primitives under OMP_THREAD_LIMIT=1 (the cc_test sets it; libgomp reads it at start-up):
// Note [OpenMP thread limit] in core/thread_pool.h. Without FitOpenMpThreadsToLimit, oneDNN split
// the work for omp_get_max_threads() threads, the one-thread team ran one share, and the rest of
// the output was left unwritten.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("oneDNN matmuls and convolutions are right when OMP_THREAD_LIMIT is below the cores") {
  const Tensor x = random_normal({64, 784}, 1), w = random_normal({784, 10}, 2);
  const Tensor expected = matmul(cast(x, kFloat64), cast(w, kFloat64));  // Eigen, not oneDNN
  testing::ExpectTensorNear(cast(matmul(x, w), kFloat64), expected, 1e-3);

  const Tensor image = random_normal({8, 12, 12, 4}, 3), filter = random_normal({3, 3, 4, 8}, 4);
  const Tensor conv64 = conv2d(cast(image, kFloat64), cast(filter, kFloat64), {1, 1}, "SAME");
  testing::ExpectTensorNear(cast(conv2d(image, filter, {1, 1}, "SAME"), kFloat64), conv64, 1e-3);
}

}  // namespace
}  // namespace duet
