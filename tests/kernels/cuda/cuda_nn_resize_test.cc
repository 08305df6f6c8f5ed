// CUDA ResizeBilinear, ResizeNearestNeighbor, ResizeBilinearGrad and ResizeNearestNeighborGrad
// against the CPU kernels, in every (align_corners, half_pixel_centers) mode.
//
// Tolerances: nearest neighbour and its integer gradient are exact (0); bilinear 1e-5 (the same
// float coordinate code on both; only FMA contraction may differ); the gradients sum in another
// order on the GPU: float32 1e-5, float64 1e-6 (the weights are float32 products on both),
// float16 2e-3, bfloat16 2e-2.
#include <catch2/catch.hpp>

#include "duet.h"
#include "ops/nn/nn_backprop_ops.h"
#include "tests/cuda_test_util.h"

namespace duet {
namespace {

Tensor Random(const Shape& shape, int seed, DType dtype) {
  const Tensor t = random_uniform(shape, seed, dtype == kFloat64 ? kFloat64 : kFloat32, -1, 1);
  return t.dtype() == dtype ? t : cast(t, dtype);
}

double Tol(DType dtype) {
  return dtype == kFloat64 ? 1e-6 : dtype == kBFloat16 ? 2e-2 : dtype == kFloat16 ? 2e-3 : 1e-5;
}

struct ResizeCase {
  Shape image;
  int32_t out_h, out_w;
};

// Up, down, mixed, identity, one-pixel axes, a large case with many blocks, an empty batch.
std::vector<ResizeCase> Cases() {
  return {{{2, 5, 7, 3}, 11, 13}, {{2, 9, 8, 3}, 4, 3}, {{1, 4, 9, 2}, 7, 4},
          {{1, 6, 6, 5}, 6, 6},   {{1, 1, 5, 2}, 3, 1}, {{4, 67, 45, 17}, 131, 90},
          {{0, 4, 4, 2}, 8, 8}};
}

struct Mode {
  bool align_corners, half_pixel_centers;
};

TEST_CASE("CUDA resizes and their gradients match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 1;
  for (const Mode m : {Mode{false, false}, Mode{true, false}, Mode{false, true}}) {
    for (const ResizeCase& c : Cases()) {
      const Tensor size = from_vector<int32_t>({c.out_h, c.out_w}, {2});
      const Tensor image_size = from_vector<int32_t>(
          {static_cast<int32_t>(c.image[1]), static_cast<int32_t>(c.image[2])}, {2});
      const Shape resized{c.image[0], c.out_h, c.out_w, c.image[3]};
      for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
        INFO(DTypeName(dtype) << " " << c.image.str() << " to " << c.out_h << "x" << c.out_w
                              << " align_corners " << m.align_corners << " half_pixel_centers "
                              << m.half_pixel_centers);
        testing::ExpectDeviceMatchesCpu(
            [&](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{
                  resize_bilinear(in[0], size, m.align_corners, m.half_pixel_centers)};
            },
            {Random(c.image, seed++, dtype)}, 1e-5);
        testing::ExpectDeviceMatchesCpu(
            [&](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{
                  resize_nearest_neighbor(in[0], size, m.align_corners, m.half_pixel_centers)};
            },
            {Random(c.image, seed++, dtype)}, 0);
        testing::ExpectDeviceMatchesCpu(
            [&](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{
                  resize_bilinear_grad(in[0], in[1], m.align_corners, m.half_pixel_centers),
                  resize_nearest_neighbor_grad(in[2], image_size, m.align_corners,
                                               m.half_pixel_centers)};
            },
            {Random(resized, seed++, kFloat32), Random(c.image, seed++, dtype),
             Random(resized, seed++, dtype)},
            Tol(dtype));
      }
      INFO("integers " << c.image.str());
      const Tensor ints = cast(Random(c.image, seed++, kFloat32) * 100.f, kInt32);
      testing::ExpectDeviceMatchesCpu(
          [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{
                resize_nearest_neighbor(in[0], size, m.align_corners, m.half_pixel_centers),
                resize_nearest_neighbor(cast(in[0], kInt64), size, m.align_corners,
                                        m.half_pixel_centers),
                resize_bilinear(in[0], size, m.align_corners, m.half_pixel_centers)};
          },
          {ints}, 1e-5);
      const Tensor int_grads = cast(Random(resized, seed++, kFloat32) * 100.f, kInt32);
      testing::ExpectDeviceMatchesCpu(
          [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{resize_nearest_neighbor_grad(
                in[0], image_size, m.align_corners, m.half_pixel_centers)};
          },
          {int_grads}, 0);
    }
  }
}

}  // namespace
}  // namespace duet
