// ResizeBilinear, ResizeNearestNeighbor and their gradients: NHWC images resized to `size`, with
// TensorFlow's coordinate rules (kernels/common/resize_geometry.h).
#include "absl/strings/str_cat.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const std::vector<DType> kResizeTypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64};
// TensorFlow's ResizeNearestNeighborGrad has no int64.
const std::vector<DType> kNearestGradTypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32};

// `sampled`: the op reads pixels of these images, so they need some (as in TensorFlow).
absl::Status CheckImages(const Shape& images, absl::string_view name, bool sampled) {
  if (images.unknown_rank()) return absl::OkStatus();
  if (images.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be 4-D NHWC, got shape ", images.str()));
  }
  if (sampled && (images.dim(1) == 0 || images.dim(2) == 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must have a non-zero height and width, got shape ", images.str()));
  }
  return absl::OkStatus();
}

absl::Status CheckCorners(const ShapeContext& ctx) {
  if (ctx.attr(ResizeAttrs::kHalfPixelCenters) && ctx.attr(ResizeAttrs::kAlignCorners)) {
    return absl::InvalidArgumentError(
        "half_pixel_centers and align_corners cannot both be true (TensorFlow's rule)");
  }
  return absl::OkStatus();
}

// [N, size[0], size[1], C] for NHWC `images` and the host input `size` (input i).
absl::Status ResizedShape(ShapeContext& ctx, const Shape& images, int size_input, DType dtype) {
  DUET_RETURN_IF_ERROR(CheckCorners(ctx));
  const Shape& s = ctx.input_shape(size_input);
  if (!s.unknown_rank() && (s.rank() != 1 || (s.dim(0) >= 0 && s.dim(0) != 2))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size must be a 1-D tensor of 2 elements (height, width), got shape ", s.str()));
  }
  const int64_t n = images.unknown_rank() ? Shape::kUnknownDim : images.dim(0);
  const int64_t c = images.unknown_rank() ? Shape::kUnknownDim : images.dim(3);
  const auto size = ctx.input_ints(size_input);
  if (!size) {
    ctx.set_output(0, dtype, Shape{n, Shape::kUnknownDim, Shape::kUnknownDim, c});
    return absl::OkStatus();
  }
  if ((*size)[0] <= 0 || (*size)[1] <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("size [", (*size)[0], ", ", (*size)[1], "] must be positive"));
  }
  ctx.set_output(0, dtype, Shape{n, (*size)[0], (*size)[1], c});
  return absl::OkStatus();
}

absl::Status ResizeShape(ShapeContext& ctx) {
  const Shape& images = ctx.input_shape(0);
  DUET_RETURN_IF_ERROR(CheckImages(images, "images", true));
  return ResizedShape(ctx, images, 1, ctx.output(0).dtype);
}

absl::Status ResizeNearestNeighborGradShape(ShapeContext& ctx) {
  const Shape& grads = ctx.input_shape(0);
  DUET_RETURN_IF_ERROR(CheckImages(grads, "grads", false));
  return ResizedShape(ctx, grads, 1, ctx.output(0).dtype);
}

// The output is original_image's shape; grads must be 4-D with its batch and channels.
absl::Status ResizeBilinearGradShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckCorners(ctx));
  const Shape& grads = ctx.input_shape(0);
  const Shape& image = ctx.input_shape(1);
  DUET_RETURN_IF_ERROR(CheckImages(grads, "grads", false));
  DUET_RETURN_IF_ERROR(CheckImages(image, "original_image", true));
  if (!grads.unknown_rank() && !image.unknown_rank()) {
    for (int d : {0, 3}) {
      if (grads.dim(d) >= 0 && image.dim(d) >= 0 && grads.dim(d) != image.dim(d)) {
        return absl::InvalidArgumentError(
            absl::StrCat("grads ", grads.str(), " and original_image ", image.str(),
                         " must have the same batch size and channels"));
      }
    }
  }
  ctx.set_output(0, ctx.output(0).dtype, image);
  return absl::OkStatus();
}

// T, then the two corner attrs, for every resize op.
OpDefBuilder& DeclareResizeAttrs(OpDefBuilder& builder, const std::vector<DType>& types) {
  return builder.TypeAttr(ResizeAttrs::kT, types)
      .BoolAttr(ResizeAttrs::kAlignCorners, false)
      .BoolAttr(ResizeAttrs::kHalfPixelCenters, false);
}

const OpDef* const kResizeBilinear =
    DeclareResizeAttrs(OpDefBuilder("ResizeBilinear")
                           .Input("images", "T")
                           .Input("size", kInt32)
                           .HostInputs({"size"})
                           .Output("resized_images", kFloat32),
                       kResizeTypes)
        .Doc("NHWC images resized to size (height, width) by bilinear interpolation, as float32.")
        .SetShapeFn(ResizeShape)
        .Register();

const OpDef* const kResizeNearestNeighbor =
    DeclareResizeAttrs(OpDefBuilder("ResizeNearestNeighbor")
                           .Input("images", "T")
                           .Input("size", kInt32)
                           .HostInputs({"size"})
                           .Output("resized_images", "T"),
                       kResizeTypes)
        .Doc("NHWC images resized to size (height, width), each pixel its nearest input pixel.")
        .SetShapeFn(ResizeShape)
        .Register();

const OpDef* const kResizeBilinearGrad =
    DeclareResizeAttrs(OpDefBuilder("ResizeBilinearGrad")
                           .Input("grads", kFloat32)
                           .Input("original_image", "T")
                           .Output("output", "T"),
                       kFloatTypes)
        .Doc(
            "The gradient of ResizeBilinear's images: each grad spread over the four input "
            "pixels it interpolated, by the same weights.")
        .SetShapeFn(ResizeBilinearGradShape)
        .Register();

const OpDef* const kResizeNearestNeighborGrad =
    DeclareResizeAttrs(OpDefBuilder("ResizeNearestNeighborGrad")
                           .Input("grads", "T")
                           .Input("size", kInt32)
                           .HostInputs({"size"})
                           .Output("output", "T"),
                       kNearestGradTypes)
        .Doc(
            "The gradient of ResizeNearestNeighbor's images (of spatial size `size`): each grad "
            "added to the input pixel it copied.")
        .SetShapeFn(ResizeNearestNeighborGradShape)
        .Register();

Tensor RunResize(const OpDef* op, const Tensor& a, const Tensor& b, bool align_corners,
                 bool half_pixel_centers, OpSite site) {
  OpCall call(op, {a, b}, site);
  call.set(ResizeAttrs::kAlignCorners, align_corners);
  call.set(ResizeAttrs::kHalfPixelCenters, half_pixel_centers);
  return RunSingleOutputOp(call);
}

}  // namespace

Tensor resize_bilinear(const Tensor& images, const Tensor& size, bool align_corners,
                       bool half_pixel_centers, OpSite site) {
  return RunResize(kResizeBilinear, images, size, align_corners, half_pixel_centers, site);
}

Tensor resize_nearest_neighbor(const Tensor& images, const Tensor& size, bool align_corners,
                               bool half_pixel_centers, OpSite site) {
  return RunResize(kResizeNearestNeighbor, images, size, align_corners, half_pixel_centers, site);
}

Tensor resize_bilinear_grad(const Tensor& grads, const Tensor& original_image, bool align_corners,
                            bool half_pixel_centers, OpSite site) {
  return RunResize(kResizeBilinearGrad, grads, original_image, align_corners, half_pixel_centers,
                   site);
}

Tensor resize_nearest_neighbor_grad(const Tensor& grads, const Tensor& size, bool align_corners,
                                    bool half_pixel_centers, OpSite site) {
  return RunResize(kResizeNearestNeighborGrad, grads, size, align_corners, half_pixel_centers,
                   site);
}

}  // namespace duet
