// Gradients of the resize ops. Each resize is linear in its image and its gradient op is its
// adjoint, so ResizeBilinear / ResizeBilinearGrad and ResizeNearestNeighbor /
// ResizeNearestNeighborGrad are each other's gradients (TensorFlow registers only the forward
// two; the others make gradients of any order exist). The size inputs get none.
#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "ops/gradient.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"

namespace duet {
namespace {

// The (height, width) of NHWC `images` (whose shape is `shape`) as an int32 [2] tensor: a
// constant when the shape knows them, else sliced from the shape at run time.
Tensor SpatialSize(const Shape& shape, const Tensor& images) {
  if (!shape.unknown_rank() && shape.dim(1) >= 0 && shape.dim(2) >= 0) {
    return from_vector<int32_t>(
        {static_cast<int32_t>(shape.dim(1)), static_cast<int32_t>(shape.dim(2))}, {2});
  }
  return strided_slice(shape_of(images, kInt32), {1}, {3}, {1});
}

bool AlignCorners(const GradientContext& ctx) { return ctx.attr(ResizeAttrs::kAlignCorners); }
bool HalfPixelCenters(const GradientContext& ctx) {
  return ctx.attr(ResizeAttrs::kHalfPixelCenters);
}

TensorList ResizeBilinearGrad(const GradientContext& ctx) {
  return {resize_bilinear_grad(ctx.grad(0), ctx.input(0), AlignCorners(ctx), HalfPixelCenters(ctx)),
          Tensor()};
}

// ResizeBilinearGrad(grads, original_image): linear in grads; original_image's values are unused.
TensorList ResizeBilinearGradGrad(const GradientContext& ctx) {
  return {resize_bilinear(ctx.grad(0), SpatialSize(ctx.input_shape(0), ctx.input(0)),
                          AlignCorners(ctx), HalfPixelCenters(ctx)),
          Tensor()};
}

TensorList ResizeNearestNeighborGrad(const GradientContext& ctx) {
  return {resize_nearest_neighbor_grad(ctx.grad(0), SpatialSize(ctx.input_shape(0), ctx.input(0)),
                                       AlignCorners(ctx), HalfPixelCenters(ctx)),
          Tensor()};
}

TensorList ResizeNearestNeighborGradGrad(const GradientContext& ctx) {
  return {resize_nearest_neighbor(ctx.grad(0), SpatialSize(ctx.input_shape(0), ctx.input(0)),
                                  AlignCorners(ctx), HalfPixelCenters(ctx)),
          Tensor()};
}

const GradientRegistrar kResizeBilinearGrad("ResizeBilinear", ResizeBilinearGrad,
                                            /*keep_inputs=*/{0});
const GradientRegistrar kResizeBilinearGradGrad("ResizeBilinearGrad", ResizeBilinearGradGrad,
                                                /*keep_inputs=*/{0});
const GradientRegistrar kResizeNearestNeighborGrad("ResizeNearestNeighbor",
                                                   ResizeNearestNeighborGrad,
                                                   /*keep_inputs=*/{0});
const GradientRegistrar kResizeNearestNeighborGradGrad("ResizeNearestNeighborGrad",
                                                       ResizeNearestNeighborGradGrad,
                                                       /*keep_inputs=*/{0});

}  // namespace
}  // namespace duet
