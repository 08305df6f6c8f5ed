// data::fashion_mnist() on Debian's dataset-fashion-mnist files; the expected values were computed
// with NumPy straight from the gzipped IDX files.
#include "io/data/fashion_mnist.h"

#include <array>
#include <filesystem>

#include "catch2/catch.hpp"
#include "core/error.h"

namespace duet {
namespace {

bool Installed() {
  return std::filesystem::exists(std::string(data::kFashionMnistDir) +
                                 "/train-images-idx3-ubyte.gz");
}

std::array<int64_t, 10> LabelCounts(const Tensor& labels) {
  std::array<int64_t, 10> counts{};
  for (int64_t label : labels.to_vector<int64_t>()) counts.at(label)++;
  return counts;
}

int64_t PixelSum(const Tensor& images, int64_t index) {
  const uint8_t* p = images.data<uint8_t>() + index * 28 * 28;
  int64_t sum = 0;
  for (int i = 0; i < 28 * 28; ++i) sum += p[i];
  return sum;
}

TEST_CASE("loads Debian's Fashion-MNIST: counts, shapes, dtypes, known values") {
  if (!Installed()) {
    WARN(
        "skipped: Debian's dataset-fashion-mnist is not installed (tools/dev.sh deps installs it)");
    return;
  }
  auto [train, test] = data::fashion_mnist();
  REQUIRE(train.size() == 2);
  REQUIRE(test.size() == 2);
  CHECK(train[0].dtype() == kUInt8);
  CHECK(train[0].shape() == Shape{60000, 28, 28});
  CHECK(train[1].dtype() == kInt64);
  CHECK(train[1].shape() == Shape{60000});
  CHECK(test[0].shape() == Shape{10000, 28, 28});
  CHECK(test[1].shape() == Shape{10000});
  // The classes are balanced: 6000 of each in training, 1000 in test.
  std::array<int64_t, 10> train_counts, test_counts;
  train_counts.fill(6000);
  test_counts.fill(1000);
  CHECK(LabelCounts(train[1]) == train_counts);
  CHECK(LabelCounts(test[1]) == test_counts);
  CHECK(train[1].to_vector<int64_t>()[0] == 9);  // class 9, ankle boot
  CHECK(test[1].to_vector<int64_t>()[1] == 2);
  CHECK(PixelSum(train[0], 0) == 76247);
  CHECK(PixelSum(test[0], 0) == 33456);
  CHECK(train[0].data<uint8_t>()[14 * 28 + 14] == 217);
}

TEST_CASE("a missing dataset names the file and the Debian package") {
  CHECK_THROWS_WITH(data::fashion_mnist("/nonexistent/fashion"),
                    Catch::Contains("/nonexistent/fashion/train-images-idx3-ubyte.gz") &&
                        Catch::Contains("dataset-fashion-mnist"));
}

}  // namespace
}  // namespace duet
