// ResizeBilinear, ResizeNearestNeighbor, ResizeBilinearGrad and ResizeNearestNeighborGrad through
// their op functions: values vs TensorFlow in every (align_corners, half_pixel_centers) mode
// (testdata/resize_expected.txt, written by testdata/gen_resize_expected.py, which also checks
// that Keras' UpSampling2D(interpolation="bilinear") freezes to ResizeBilinear with
// half_pixel_centers), other dtypes against float32, the adjoint identities in float64, and
// shape and attr errors.
#include <array>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/constant.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;
using testing::ToDoubles;

Tensor Images(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 7, 11, 5, 4));
}
Tensor Grads(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 3, 7, 3, 2));
}

// One line of resize_expected.txt.
struct ExpectedCase {
  std::string op;
  bool align_corners, half_pixel_centers;
  Shape image;
  int64_t out_h, out_w;
  std::vector<double> values;
};

std::vector<ExpectedCase> ReadExpected() {
  std::ifstream file("tests/ops/nn/testdata/resize_expected.txt");
  REQUIRE(file.good());
  std::vector<ExpectedCase> cases;
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream in(line);
    ExpectedCase c;
    int64_t n, h, w, ch;
    std::string colon;
    in >> c.op >> c.align_corners >> c.half_pixel_centers >> n >> h >> w >> ch >> c.out_h >>
        c.out_w >> colon;
    c.image = Shape{n, h, w, ch};
    for (double v; in >> v;) c.values.push_back(v);
    cases.push_back(std::move(c));
  }
  return cases;
}

// The op of `c` on inputs of dtype `dt` (the bilinear gradient's grads are always float32).
Tensor Run(const ExpectedCase& c, DType dt) {
  const Shape resized{c.image[0], c.out_h, c.out_w, c.image[3]};
  const Tensor size =
      from_vector<int32_t>({static_cast<int32_t>(c.out_h), static_cast<int32_t>(c.out_w)}, {2});
  const Tensor image_size = from_vector<int32_t>(
      {static_cast<int32_t>(c.image[1]), static_cast<int32_t>(c.image[2])}, {2});
  const bool a = c.align_corners, h = c.half_pixel_centers;
  if (c.op == "ResizeBilinear") return resize_bilinear(Images(dt, c.image), size, a, h);
  if (c.op == "ResizeNearestNeighbor") {
    return resize_nearest_neighbor(Images(dt, c.image), size, a, h);
  }
  if (c.op == "ResizeBilinearGrad") {
    return resize_bilinear_grad(Grads(kFloat32, resized), Images(dt, c.image), a, h);
  }
  REQUIRE(c.op == "ResizeNearestNeighborGrad");
  return resize_nearest_neighbor_grad(Grads(dt, resized), image_size, a, h);
}

TEST_CASE("Resize ops match TensorFlow in every corner mode") {
  const std::vector<ExpectedCase> cases = ReadExpected();
  REQUIRE(cases.size() == 25);
  for (const ExpectedCase& c : cases) {
    INFO(c.op << " " << c.image.str() << " to (" << c.out_h << ", " << c.out_w << ") align_corners "
              << c.align_corners << " half_pixel_centers " << c.half_pixel_centers);
    const bool grad = c.op == "ResizeBilinearGrad" || c.op == "ResizeNearestNeighborGrad";
    const Shape shape = grad ? c.image : Shape{c.image[0], c.out_h, c.out_w, c.image[3]};
    testing::ExpectTensor(Run(c, kFloat32), kFloat32, shape, c.values, 1e-5);
    // float64 inputs: ResizeBilinear still gives float32; the rest keep float64.
    const Tensor f64 = Run(c, kFloat64);
    CHECK(f64.dtype() == (c.op == "ResizeBilinear" ? kFloat32 : kFloat64));
    testing::ExpectTensor(f64, f64.dtype(), shape, c.values, 1e-5);
  }
}

TEST_CASE("Resize ops match TensorFlow in float16 and bfloat16") {
  for (const ExpectedCase& c : ReadExpected()) {
    for (DType dt : {kFloat16, kBFloat16}) {
      INFO(c.op << " " << c.image.str() << " align_corners " << c.align_corners
                << " half_pixel_centers " << c.half_pixel_centers << " " << DTypeName(dt));
      // The patterns are exact in both; the results round (bilinear's to float32 only).
      const Tensor got = Run(c, dt);
      CHECK(got.dtype() == (c.op == "ResizeBilinear" ? kFloat32 : dt));
      testing::ExpectTensor(got, got.dtype(), got.shape(), c.values, dt == kBFloat16 ? 2e-2 : 2e-3);
    }
  }
}

// Integer images read as float32 by bilinear, copied by nearest and summed by its gradient.
TEST_CASE("Resize ops take integer images") {
  const Shape s{2, 3, 5, 2};
  std::vector<double> ints(s.num_elements());
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<double>((i * 7) % 11) - 5;
  const Tensor size = from_vector<int32_t>({4, 7}, {2});
  const Tensor image_size = from_vector<int32_t>({3, 5}, {2});
  const Tensor g = MakeTensor(kFloat32, {2, 4, 7, 2}, ModPattern(2 * 4 * 7 * 2, 3, 7, 3, 1));
  for (bool align : {false, true}) {
    for (DType dt : {kInt32, kInt64}) {
      INFO(DTypeName(dt) << " align_corners " << align);
      const Tensor x = MakeTensor(dt, s, ints), x32 = MakeTensor(kFloat32, s, ints);
      testing::ExpectTensorNear(resize_bilinear(x, size, align, !align),
                                resize_bilinear(x32, size, align, !align), 0);
      const Tensor nearest = resize_nearest_neighbor(x, size, align, !align);
      CHECK(nearest.dtype() == dt);
      testing::ExpectTensor(nearest, dt, {2, 4, 7, 2},
                            ToDoubles(resize_nearest_neighbor(x32, size, align, !align)), 0);
    }
    const Tensor grad = resize_nearest_neighbor_grad(MakeTensor(kInt32, g.shape(), ToDoubles(g)),
                                                     image_size, align, !align);
    testing::ExpectTensor(grad, kInt32, s,
                          ToDoubles(resize_nearest_neighbor_grad(g, image_size, align, !align)), 0);
  }
}

// <resize(x), dy> == <x, resize_grad(dy)> in float64, for random values, every mode.
TEST_CASE("The resize gradients are the adjoints of the resizes") {
  struct Mode {
    bool align_corners, half_pixel_centers;
  };
  for (Mode m : {Mode{false, false}, Mode{true, false}, Mode{false, true}}) {
    for (auto [h, w, oh, ow] : {std::array<int64_t, 4>{3, 4, 7, 9},
                                {5, 7, 2, 3},
                                std::array<int64_t, 4>{4, 4, 4, 4},
                                {1, 5, 3, 1}}) {
      INFO("mode " << m.align_corners << m.half_pixel_centers << " " << h << "x" << w << " to "
                   << oh << "x" << ow);
      const Shape image{2, h, w, 3}, resized{2, oh, ow, 3};
      const Tensor size =
          from_vector<int32_t>({static_cast<int32_t>(oh), static_cast<int32_t>(ow)}, {2});
      const Tensor image_size =
          from_vector<int32_t>({static_cast<int32_t>(h), static_cast<int32_t>(w)}, {2});
      const Tensor x = MakeTensor(kFloat64, image, ModPattern(image.num_elements(), 5, 13, 6, 3));
      const Tensor dy =
          MakeTensor(kFloat64, resized, ModPattern(resized.num_elements(), 3, 7, 3, 2));
      auto dot = [](const Tensor& a, const Tensor& b) {
        const std::vector<double> u = ToDoubles(a), v = ToDoubles(b);
        REQUIRE(u.size() == v.size());
        double s = 0;
        for (size_t i = 0; i < u.size(); ++i) s += u[i] * v[i];
        return s;
      };
      const double nearest =
          dot(resize_nearest_neighbor(x, size, m.align_corners, m.half_pixel_centers), dy);
      CHECK(nearest == Approx(dot(x, resize_nearest_neighbor_grad(dy, image_size, m.align_corners,
                                                                  m.half_pixel_centers)))
                           .margin(1e-9));
      const Tensor dy32 = MakeTensor(kFloat32, resized, ToDoubles(dy));
      const double bilinear =
          dot(resize_bilinear(x, size, m.align_corners, m.half_pixel_centers), dy32);
      CHECK(bilinear ==
            Approx(dot(x, resize_bilinear_grad(dy32, x, m.align_corners, m.half_pixel_centers)))
                .epsilon(1e-5)
                .margin(1e-5));
    }
  }
}

TEST_CASE("Resize ops report bad images, sizes and attrs") {
  const Tensor x = zeros({1, 3, 4, 2});
  testing::ExpectError(
      [&] {
        resize_bilinear(zeros({3, 4, 2}), {5, 7});
      },
      {"ResizeBilinear", "images must be 4-D NHWC, got shape (3, 4, 2)",
       "images: float32 (3, 4, 2)", "resize_ops_test.cc"});
  testing::ExpectError(
      [&] {
        resize_nearest_neighbor(x, {5, 7, 1});
      },
      {"ResizeNearestNeighbor",
       "size must be a 1-D tensor of 2 elements (height, width), got shape (3,)"});
  testing::ExpectError(
      [&] {
        resize_bilinear(x, {0, 7});
      },
      {"ResizeBilinear", "size [0, 7] must be positive"});
  testing::ExpectError(
      [&] {
        resize_bilinear(x, {2, 2}, true, true);
      },
      {"ResizeBilinear",
       "half_pixel_centers and align_corners cannot both be "
       "true"});
  testing::ExpectError(
      [&] {
        resize_bilinear(zeros({1, 0, 4, 2}), {2, 2});
      },
      {"ResizeBilinear", "images must have a non-zero height and width"});
  testing::ExpectError(
      [&] {
        resize_bilinear_grad(zeros({2, 5, 7, 2}), x);
      },
      {"ResizeBilinearGrad",
       "grads (2, 5, 7, 2) and original_image (1, 3, 4, 2) must have the same batch size and "
       "channels"});
  testing::ExpectError(
      [&] {
        resize_nearest_neighbor_grad(zeros({5, 7, 2}), {3, 4});
      },
      {"ResizeNearestNeighborGrad", "grads must be 4-D NHWC"});
  testing::ExpectError(
      [&] {
        resize_nearest_neighbor(from_vector<bool>({true}, {1, 1, 1, 1}), {2, 2});
      },
      {"ResizeNearestNeighbor", "bool"});
  // Empty batches and channels resize to empty outputs.
  CHECK(resize_bilinear(zeros({0, 3, 4, 2}), {5, 7}).shape() == Shape({0, 5, 7, 2}));
  CHECK(resize_nearest_neighbor(zeros({1, 3, 4, 0}), {5, 7}).shape() == Shape({1, 5, 7, 0}));
}

}  // namespace
}  // namespace duet
