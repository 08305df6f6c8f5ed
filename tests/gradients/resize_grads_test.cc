// Gradients of the resize ops and their gradient ops against finite differences, in every
// (align_corners, half_pixel_centers) mode, upsampling and downsampling. ResizeBilinear always
// outputs float32 (TensorFlow's op) and ResizeBilinearGrad takes float32 grads, so those checks
// cast to float64 and step by 1e-2: the ops are linear, so the wide step costs no accuracy and
// keeps float32 rounding small next to it.
#include <array>
#include <vector>

#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Tensors = std::vector<Tensor>;

struct Mode {
  bool align_corners, half_pixel_centers;
};
constexpr std::array<Mode, 3> kModes = {Mode{false, false}, Mode{true, false}, Mode{false, true}};

// (in_h, in_w, out_h, out_w): up in both, down in both, mixed.
constexpr std::array<std::array<int32_t, 4>, 3> kSizes = {
    std::array<int32_t, 4>{3, 4, 5, 7}, {5, 6, 2, 3}, {2, 5, 4, 3}};

DUET_GRADIENT_TEST("ResizeBilinear", "every corner mode, up and down") {
  for (const Mode m : kModes) {
    for (const auto& s : kSizes) {
      INFO("mode " << m.align_corners << m.half_pixel_centers << " size " << s[0] << "x" << s[1]
                   << " to " << s[2] << "x" << s[3]);
      const Tensor size = from_vector<int32_t>({s[2], s[3]}, {2});
      CheckGradients(
          "ResizeBilinear",
          [&](const Tensors& x) {
            return Tensors{
                cast(resize_bilinear(x[0], size, m.align_corners, m.half_pixel_centers), kFloat64)};
          },
          {RandomInput({2, s[0], s[1], 2}, 1)}, Float32GradientCheck());
    }
  }
}

DUET_GRADIENT_TEST("ResizeBilinearGrad", "every corner mode, up and down") {
  for (const Mode m : kModes) {
    for (const auto& s : kSizes) {
      INFO("mode " << m.align_corners << m.half_pixel_centers << " size " << s[0] << "x" << s[1]
                   << " to " << s[2] << "x" << s[3]);
      const Tensor image = RandomInput({2, s[0], s[1], 2}, 2);
      CheckGradients(
          "ResizeBilinearGrad",
          [&](const Tensors& g) {
            return Tensors{resize_bilinear_grad(cast(g[0], kFloat32), image, m.align_corners,
                                                m.half_pixel_centers)};
          },
          {RandomInput({2, s[2], s[3], 2}, 3)}, Float32GradientCheck());
    }
  }
}

DUET_GRADIENT_TEST("ResizeNearestNeighbor", "every corner mode, up and down") {
  for (const Mode m : kModes) {
    for (const auto& s : kSizes) {
      INFO("mode " << m.align_corners << m.half_pixel_centers << " size " << s[0] << "x" << s[1]
                   << " to " << s[2] << "x" << s[3]);
      const Tensor size = from_vector<int32_t>({s[2], s[3]}, {2});
      CheckGradients("ResizeNearestNeighbor",
                     [&](const Tensors& x) {
                       return Tensors{resize_nearest_neighbor(x[0], size, m.align_corners,
                                                              m.half_pixel_centers)};
                     },
                     {RandomInput({2, s[0], s[1], 2}, 4)});
    }
  }
  CheckSecondOrderGradients("ResizeNearestNeighbor",
                            [](const Tensors& x) {
                              return Tensors{resize_nearest_neighbor(
                                  x[0], from_vector<int32_t>({5, 3}, {2}), false, true)};
                            },
                            {RandomInput({1, 3, 4, 2}, 5)});
}

DUET_GRADIENT_TEST("ResizeNearestNeighborGrad", "every corner mode, up and down") {
  for (const Mode m : kModes) {
    for (const auto& s : kSizes) {
      INFO("mode " << m.align_corners << m.half_pixel_centers << " size " << s[0] << "x" << s[1]
                   << " to " << s[2] << "x" << s[3]);
      const Tensor image_size = from_vector<int32_t>({s[0], s[1]}, {2});
      CheckGradients("ResizeNearestNeighborGrad",
                     [&](const Tensors& g) {
                       return Tensors{resize_nearest_neighbor_grad(
                           g[0], image_size, m.align_corners, m.half_pixel_centers)};
                     },
                     {RandomInput({2, s[2], s[3], 2}, 6)});
    }
  }
}

}  // namespace
}  // namespace duet::testing
