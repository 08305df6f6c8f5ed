// Neural-network op functions: matmul, einsum, bias_add, conv2d, conv3d, depthwise_conv2d, 2-D and
// 3-D pooling, image resizing, softmax, batch norm and cross-entropy. Ops and attrs are
// TensorFlow's (MatMul, BatchMatMulV2, Einsum, BiasAdd, Conv2D, Conv3D, DepthwiseConv2dNative,
// MaxPool, AvgPool, MaxPool3D, AvgPool3D, ResizeBilinear, ResizeNearestNeighbor, Softmax,
// LogSoftmax, FusedBatchNormV3, SoftmaxCrossEntropyWithLogits,
// SparseSoftmaxCrossEntropyWithLogits). Images are NHWC and filters HWIO (volumes NDHWC and
// filters DHWIO), as in TensorFlow.
// Every function throws duet::Error (naming the op, input dtypes/shapes and the caller's line) on
// bad shapes, dtypes or attrs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// Matrix product of the last two dims: op MatMul for two 2-D inputs, BatchMatMulV2 (batch dims
// broadcast NumPy-style) otherwise. transpose_a/b transpose the last two dims of x/y first.
// float32, float64, bfloat16.
Tensor matmul(const Tensor& x, const Tensor& y, bool transpose_a = false, bool transpose_b = false,
              OpSite site = {});

// Einstein summation (op Einsum) of one or two operands, as tf.einsum with an explicit output:
// einsum("abc,cd->abd", {x, w}), einsum("ij->ji", {x}), einsum("...b,bc->...c", {x, w}).
// Labels are letters; a label in both operands and not in the output is contracted, one in a
// single operand and not in the output is summed away. "..." (once per term) stands for the
// leading/middle dims a term does not name; they broadcast NumPy-style and must appear in the
// output when not empty. A label's size must be the same in both operands. float32, float64.
// Errors: a malformed equation, a rank that does not fit its term, mismatched sizes
// (InvalidArgument); more than two operands or a label repeated within one operand (a diagonal
// or trace: Unimplemented).
Tensor einsum(const std::string& equation, const std::vector<Tensor>& inputs, OpSite site = {});

// The layout of images: channels last (N, H, W, C; TensorFlow's default, what the kernels run) or
// channels first (N, C, H, W; PyTorch's, and TensorFlow's on GPUs). kChannelsLast/kChannelsFirst
// are Keras' names. A channels-first op is its channels-last twin between transposes, which the
// graph optimizer cancels between consecutive ops (Note [Channels-first] in ops/channels_first.cc).
enum class DataFormat { kNHWC, kNCHW, kChannelsLast = kNHWC, kChannelsFirst = kNCHW };

// value + bias, with 1-D `bias` added along the last dim of `value` (rank >= 2; op BiasAdd, NHWC).
Tensor bias_add(const Tensor& value, const Tensor& bias, OpSite site = {});
// Same, along dim 1 (the channels) for kNCHW.
Tensor bias_add(const Tensor& value, const Tensor& bias, DataFormat format, OpSite site = {});

// 2-D convolution (op Conv2D): input NHWC, filter HWIO (height, width, in_channels,
// out_channels). `strides`/`dilations` have 4 entries [1, h, w, 1], or 2 entries [h, w] or one
// for both. `padding` is "SAME" or "VALID" with TensorFlow's arithmetic (SAME pads total/2 before).
// An input with a multiple of the filter's in_channels convolves in groups, as in TensorFlow:
// groups = input channels / in_channels, out_channels a multiple of groups, output channel k
// reading input group k / (out_channels / groups). float32, float64, bfloat16.
Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, std::vector<int64_t> dilations = {1, 1, 1, 1}, OpSite site = {});
// Same, naming the node: conv2d(x, f, {1, 1}, "SAME", "conv1").
Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, OpSite site);
// Same with images in `format`: conv2d(x_nchw, f, {1, 1}, "SAME", DataFormat::kNCHW); 4-entry
// strides/dilations are in the format's order ([1, 1, h, w] for NCHW).
Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, DataFormat format, std::vector<int64_t> dilations = {1},
              OpSite site = {});

// 3-D convolution (op Conv3D): input NDHWC [batch, depth, height, width, in_channels], filter
// DHWIO [depth, height, width, in_channels, out_channels]. `strides`/`dilations` have 5 entries
// [1, d, h, w, 1], or 3 entries [d, h, w] or one for all three; `padding` "SAME" or "VALID".
// float32, float64, bfloat16.
Tensor conv3d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, std::vector<int64_t> dilations = {1}, OpSite site = {});

// Depthwise 2-D convolution (op DepthwiseConv2dNative): input NHWC [batch, height, width,
// in_channels], filter [height, width, in_channels, multiplier]; each input channel c is convolved
// with its own filters filter[:, :, c, m] into output channel c * multiplier + m, giving
// in_channels * multiplier channels (TensorFlow's tf.nn.depthwise_conv2d). `strides`, `padding`
// and `dilations` as conv2d's. float32, float64, bfloat16. Errors as conv2d's (the filter's
// in_channels must be the input's).
Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
                        std::string padding, std::vector<int64_t> dilations = {1, 1, 1, 1},
                        OpSite site = {});
// Same, naming the node.
Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
                        std::string padding, OpSite site);
// Same with images in `format`, as conv2d's.
Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
                        std::string padding, DataFormat format,
                        std::vector<int64_t> dilations = {1}, OpSite site = {});

// Max over windows of NHWC `x` (op MaxPool). `ksize`/`strides` as conv2d's strides (4, 2 or 1
// entries); padding "SAME" or "VALID" (padded cells never win). float32, float64, bfloat16.
Tensor max_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, OpSite site = {});
// Mean over windows of NHWC `x` (op AvgPool); with SAME padding the padded cells are left out of
// the average, as in TensorFlow. float32, float64, bfloat16.
Tensor avg_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, OpSite site = {});
// max_pool and avg_pool of images in `format` (4-entry ksize/strides in the format's order).
Tensor max_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, DataFormat format, OpSite site = {});
Tensor avg_pool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                std::string padding, DataFormat format, OpSite site = {});
// Max over windows of NDHWC `x` [batch, depth, height, width, channels] (op MaxPool3D).
// `ksize`/`strides` have 5 entries [1, d, h, w, 1], or 3 entries [d, h, w] or one for all three;
// padding "SAME" or "VALID". float32, bfloat16 (TensorFlow's MaxPool3D has no float64).
Tensor max_pool3d(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                  std::string padding, OpSite site = {});
// Mean over windows of NDHWC `x` (op AvgPool3D), padded cells left out of the average; attrs as
// max_pool3d's. float32, float64, bfloat16.
Tensor avg_pool3d(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                  std::string padding, OpSite site = {});

// NHWC `images` resized to `size` (height, width; an int32 tensor, or a braced pair {h, w}) by
// bilinear interpolation, as float32 whatever the input dtype (op ResizeBilinear, as
// tf.compat.v1.image.resize_bilinear). align_corners lines up the corner pixels' centers;
// half_pixel_centers (what tf.image.resize and Keras' Resizing and UpSampling2D use) samples at
// pixel centers. float32, float64, float16, bfloat16, int32, int64. InvalidArgument for non-4-D
// images, a size that is not 2 positive numbers, or both flags true.
Tensor resize_bilinear(const Tensor& images, const Tensor& size, bool align_corners = false,
                       bool half_pixel_centers = false, OpSite site = {});
// Same, each output pixel a copy of its nearest input pixel, in the input's dtype (op
// ResizeNearestNeighbor): TensorFlow's rule, floor of the scaled coordinate (rounded with
// align_corners; at pixel centers with half_pixel_centers).
Tensor resize_nearest_neighbor(const Tensor& images, const Tensor& size, bool align_corners = false,
                               bool half_pixel_centers = false, OpSite site = {});

// exp(logits) / sum(exp(logits)) over the last axis (op Softmax). float32, float64, bfloat16.
Tensor softmax(const Tensor& logits, OpSite site = {});
// logits - log(sum(exp(logits))) over the last axis (op LogSoftmax). float32, float64, bfloat16.
Tensor log_softmax(const Tensor& logits, OpSite site = {});

// The outputs of op FusedBatchNormV3, in its output order.
struct FusedBatchNormResult {
  Tensor y;                // the normalized x, x's shape and dtype
  Tensor batch_mean;       // training: the batch mean (per channel); inference: the given mean
  Tensor batch_variance;   // training: Bessel-corrected batch variance n/(n-1); inference: given
  Tensor reserve_space_1;  // the mean y was normalized with (batch mean, or the given mean)
  Tensor reserve_space_2;  // the variance y was normalized with (biased batch variance in
                           // training, or the given variance)
  Tensor reserve_space_3;  // 1 / sqrt(reserve_space_2 + epsilon), per channel
};

// Batch normalization of NHWC `x` over N, H, W per channel (op FusedBatchNormV3):
// y = (x - mean) / sqrt(variance + epsilon) * scale + offset. Inference (is_training false) uses
// the given mean/variance; training uses the batch statistics (and mean/variance may be empty).
// scale, offset, mean, variance are 1-D of size C; float32 (also for bfloat16 x) or float64 (for
// float64 x).
FusedBatchNormResult fused_batch_norm(const Tensor& x, const Tensor& scale, const Tensor& offset,
                                      const Tensor& mean, const Tensor& variance,
                                      float epsilon = 1e-3f, bool is_training = false,
                                      OpSite site = {});
// Same for x in `format` (channels at dim 1 for kNCHW).
FusedBatchNormResult fused_batch_norm(const Tensor& x, const Tensor& scale, const Tensor& offset,
                                      const Tensor& mean, const Tensor& variance, float epsilon,
                                      bool is_training, DataFormat format, OpSite site = {});

// Per-example loss -sum(labels * log_softmax(logits)) over the last axis of 2-D [batch, classes]
// tensors (op SoftmaxCrossEntropyWithLogits, first output); labels and logits broadcast against
// each other (labels (1, classes) with logits (batch, classes)) to a 2-D shape. float32,
// float64.
Tensor softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits,
                                         OpSite site = {});
// Per-example loss -log_softmax(logits)[i, labels[i]] for int32/int64 class indices `labels`
// [batch] and `logits` [batch, classes] (op SparseSoftmaxCrossEntropyWithLogits, first output). A
// label outside [0, classes) is an InvalidArgument error naming it. float32, float64.
Tensor sparse_softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits,
                                                OpSite site = {});

// The values and indices of the k largest entries of each row along the last axis of `input` (op
// TopKV2), both of shape input.shape[:-1] + [k]. Equal values keep their order (the lower index
// first), as TensorFlow; with `sorted` the values are in descending order (this kernel always
// sorts them). k must be in [0, input.shape[-1]]. `index_type`: int32 or int64. dtypes:
// float32/64, float16, bfloat16, int32/64.
struct TopKResult {
  Tensor values;
  Tensor indices;
};
TopKResult top_k(const Tensor& input, int64_t k, bool sorted = true, DType index_type = kInt32,
                 OpSite site = {});

}  // namespace duet
