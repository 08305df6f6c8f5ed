// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, _FusedConv2D, DepthwiseConv2dNative,
// _FusedDepthwiseConv2dNative, DepthwiseConv2dNativeBackpropInput,
// DepthwiseConv2dNativeBackpropFilter, Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 on
// cuDNN (conv_cache.h): NHWC (NDHWC) activations as the ops define them; the HWIO (DHWIO) filter (a
// [window cells * in_c, out_c] matrix) is transposed to cuDNN's KRSC ([out_c, window cells * in_c])
// for each call, and the filter gradient back. The depthwise ops are grouped convolutions
// (cudnnSetConvolutionGroupCount, one group per input channel), whose filter [h, w, in_c,
// multiplier] is the [h*w, out_c] matrix of a grouped filter (Note [Grouped convolution weights] in
// kernels/cpu/nn/conv_dnnl.cc).
//
// Note [cuDNN pads symmetrically]
// cuDNN's convolution pads both sides of a dim by the same amount. When the op's padding
// (TensorFlow's SAME with an odd total, or EXPLICIT) differs before and after, the kernel still
// passes `before` when that yields exactly the op's output size (the windows then never reach the
// extra padding); otherwise it pads the input into a scratch copy, runs with pad 0, and for the
// input gradient crops the padded gradient back.
//
// Note [float64 convolutions without cuDNN]
// cuDNN's double precision does not cover NHWC layouts in every direction and rank: an H200 run
// found no algorithm for float64 Conv2DBackpropInput/Filter, DepthwiseConv2dNativeBackpropInput
// and every Conv3D. When cuDNN cannot plan or run a float64 convolution, the kernel computes it
// directly (kernels/common/direct_conv.h: one thread per result element, deterministic) from the
// op's own operands, padding included. Slower than cuDNN, but float64 convolutions serve gradient
// checks, not speed; float32 and bfloat16 always run on cuDNN.
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/common/channels_last_kernel.h"
#include "kernels/common/conv_geometry.h"
#include "kernels/common/fused_epilogue.h"
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/nn/activation_launchers.h"
#include "kernels/cuda/nn/conv_cache.h"
#include "kernels/cuda/nn/direct_conv_launchers.h"
#include "kernels/cuda/nn/fused_activation.h"
#include "kernels/cuda/nn/nn_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

// How cuDNN sees a convolution (Note [cuDNN pads symmetrically]).
struct CudnnConv {
  cuda::ConvKey key;
  bool padded = false;            // the kernel pads the input itself
  int64_t offset[3] = {0, 0, 0};  // where the image sits in the padded input, per spatial dim
};

bool SymmetricFits(const ConvGeometry& g, int d) {
  const WindowPadding p = g.pad[d];
  if (p.before == p.after) return true;
  const int64_t span = g.in[d] + 2 * p.before - ((g.window[d] - 1) * g.dilation[d] + 1);
  return span >= 0 && span / g.stride[d] + 1 == g.out[d];
}

CudnnConv MakeCudnnConv(const ConvGeometry& g, DType dtype, cuda::ConvDirection direction,
                        int device) {
  CudnnConv c;
  cuda::ConvKey& k = c.key;
  k.device = device;
  k.dtype = dtype;
  k.direction = direction;
  k.rank = g.rank;
  k.batch = g.batch;
  k.in_c = g.in_c;
  k.out_c = g.out_c;
  k.groups = g.groups;
  for (int d = 0; d < g.rank; ++d) {
    k.window[d] = g.window[d];
    k.out[d] = g.out[d];
    k.stride[d] = g.stride[d];
    k.dilation[d] = g.dilation[d];
    c.padded = c.padded || !SymmetricFits(g, d);
  }
  for (int d = 0; d < g.rank; ++d) {
    if (c.padded) {
      c.offset[d] = g.pad[d].before;
      k.in[d] = g.in[d] + g.pad[d].before + g.pad[d].after;
    } else {
      k.in[d] = g.in[d];
      k.pad[d] = g.pad[d].before;
    }
  }
  return c;
}

// What every convolution kernel needs on the device.
struct ConvRun {
  cuda::DeviceContext* device;
  cuda::DeviceContext::CudnnLease cudnn;  // held until the run's calls are queued
  const cuda::ConvPlan* plan;
  // 1 and 0 in the convolution's compute type (double for float64, float otherwise).
  double one_d = 1, zero_d = 0;
  float one_f = 1, zero_f = 0;
  const void* one(DType t) const { return t == kFloat64 ? (const void*)&one_d : &one_f; }
  const void* zero(DType t) const { return t == kFloat64 ? (const void*)&zero_d : &zero_f; }
};

absl::StatusOr<ConvRun> StartConv(const KernelContext& ctx, const CudnnConv& c) {
  ConvRun run;
  DUET_ASSIGN_OR_RETURN(run.device, cuda::CurrentContext(ctx.device()));
  DUET_ASSIGN_OR_RETURN(run.cudnn, run.device->cudnn());
  DUET_ASSIGN_OR_RETURN(run.plan, cuda::GetConvPlan(run.cudnn.handle, c.key));
  return run;
}

// Queues `call` of the run's plan with one of its algorithms and that one's workspace (Note [cuDNN
// algorithm fallback] in conv_cache.h); `what` names the call in errors.
template <typename Algorithm>
absl::Status CallCudnn(const KernelContext& ctx, const ConvRun& run,
                       absl::FunctionRef<cudnnStatus_t(Algorithm, void*, size_t)> call,
                       absl::string_view what) {
  const cuda::ConvPlan& plan = *run.plan;
  return plan.fallback.Run(static_cast<int>(plan.algorithms.size()), [&](int i) -> absl::Status {
    const cuda::ConvAlgorithm& a = plan.algorithms[i];
    Tensor workspace;  // freed once queued: the caching allocator orders reuse after the stream
    if (a.workspace_bytes > 0) {
      DUET_ASSIGN_OR_RETURN(workspace, cuda::DeviceScratch(ctx.device(), a.workspace_bytes));
    }
    absl::Status status = cuda::CudnnStatus(
        call(static_cast<Algorithm>(a.algorithm),
             workspace.defined() ? workspace.raw_data() : nullptr, a.workspace_bytes),
        what);
    if (!status.ok()) (void)cudaGetLastError();  // the next algorithm must not meet this error
    return status;
  });
}

absl::Status ZeroFill(Tensor& t, cudaStream_t stream) {
  return cuda::CudaStatus(cudaMemsetAsync(t.raw_data(), 0, t.nbytes(), stream), "cudaMemsetAsync");
}

// dst [cols, rows] = src [rows, cols] transposed, with the array family's tiled transpose.
absl::Status Transpose2D(const Tensor& src, void* dst, int64_t rows, int64_t cols,
                         cudaStream_t stream) {
  return cuda::CudaStatus(cuda::LaunchBatchTranspose(src.raw_data(), dst, 1, rows, cols,
                                                     DTypeSize(src.dtype()), stream),
                          "filter layout transpose");
}

// The window of the NHWC (NDHWC) image batch `big` (spatial sizes `big_size`, as c.key.in) at
// `offset` and the image batch `small`, copied either way (the array family's strided copy): into
// `big` pads, out of it crops.
absl::Status CopyWindow(const Tensor& small, void* big, const int64_t* big_size,
                        const int64_t* offset, bool into_big, cudaStream_t stream) {
  const Shape& s = small.shape();
  const int rank = s.rank() - 2;
  const int64_t c = s[rank + 1];
  const int elem = static_cast<int>(DTypeSize(small.dtype()));
  std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
  std::vector<int64_t> small_strides(rank + 2, 1), big_strides(rank + 2, 1);
  int64_t start = 0;
  for (int d = rank + 1; d > 0; --d) {  // row-major strides, channels innermost
    small_strides[d - 1] = small_strides[d] * s[d];
    big_strides[d - 1] = big_strides[d] * (d == rank + 1 ? c : big_size[d - 1]);
  }
  for (int d = 0; d < rank; ++d) start += offset[d] * big_strides[1 + d];
  char* window = static_cast<char*>(big) + start * elem;
  if (into_big) {
    return cuda::StridedCopy(dims, small.raw_data(), small_strides, window, big_strides, elem,
                             stream);
  }
  return cuda::StridedCopy(dims, window, big_strides, small.raw_data(), small_strides, elem,
                           stream);
}

// The NHWC (NDHWC) shape of `g`'s input as cuDNN sees it (c.key.in: padded by the kernel).
Shape CudnnInputShape(const ConvGeometry& g, const CudnnConv& c) {
  std::vector<int64_t> dims = {g.batch};
  dims.insert(dims.end(), c.key.in, c.key.in + g.rank);
  dims.push_back(g.in_c);
  return Shape(absl::MakeConstSpan(dims));
}

// The rows of `g`'s filter as a [rows, out_c] matrix: window cells * (in_c / groups).
int64_t FilterRows(const ConvGeometry& g) { return g.WindowCells() * (g.in_c / g.groups); }

// The HWIO (or grouped) `filter` of `g` as KRSC, in a new device tensor.
absl::StatusOr<Tensor> FilterToKrsc(const Tensor& filter, const ConvGeometry& g,
                                    cudaStream_t stream) {
  DUET_ASSIGN_OR_RETURN(Tensor krsc,
                        Tensor::TryEmpty(filter.dtype(), filter.shape(), filter.device()));
  DUET_RETURN_IF_ERROR(Transpose2D(filter, krsc.raw_data(), FilterRows(g), g.out_c, stream));
  return krsc;
}

// The NHWC (NDHWC) `input` as cuDNN reads it: itself, or its zero-padded copy.
absl::StatusOr<Tensor> InputForCudnn(const Tensor& input, const ConvGeometry& g, const CudnnConv& c,
                                     cudaStream_t stream) {
  if (!c.padded) return input;
  DUET_ASSIGN_OR_RETURN(Tensor padded,
                        Tensor::TryEmpty(input.dtype(), CudnnInputShape(g, c), input.device()));
  DUET_RETURN_IF_ERROR(ZeroFill(padded, stream));
  DUET_RETURN_IF_ERROR(
      CopyWindow(input, padded.raw_data(), c.key.in, c.offset, /*into_big=*/true, stream));
  return padded;
}

// Runs `cudnn`; for float64, when it fails, `which` of the direct convolution of `g` instead (Note
// [float64 convolutions without cuDNN]), from `a` and `b` into `result`.
absl::Status CudnnOrDirect(DType dtype, absl::FunctionRef<absl::Status()> cudnn,
                           cuda::DirectConvResult which, const ConvGeometry& g, const Tensor& a,
                           const Tensor& b, Tensor& result, cudaStream_t stream) {
  const absl::Status status = cudnn();
  if (status.ok() || dtype != kFloat64) return status;
  (void)cudaGetLastError();  // an error cuDNN left behind must not fail the direct launch
  const absl::Status direct = cuda::CudaStatus(
      cuda::LaunchDirectConvF64(which, g.AsDirect(), a.data<double>(), b.data<double>(),
                                result.mutable_data<double>(), stream),
      "direct float64 convolution");
  if (direct.ok()) return direct;
  return absl::Status(direct.code(), absl::StrCat(direct.message(),
                                                  " (after cuDNN failed: ", status.message(), ")"));
}

// Inputs: input, filter[, bias[, residual]]; the window attrs are read through `keys`. With an
// epilogue, runs it in place after the convolution.
absl::Status RunConv(KernelContext& ctx, ConvKind kind, const ConvWindowKeys& keys,
                     const FusedEpilogue* epilogue) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& input = ctx.input(0);
  const DType dtype = out.dtype();
  const ConvGeometry g =
      MakeConvGeometry(ctx, kind, keys, input.shape(), ctx.input(1).shape(), out.shape());
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  const cudaStream_t stream = device->stream();
  if (input.num_elements() == 0) {  // empty sums (no channels, or padding around no cells): zeros
    DUET_RETURN_IF_ERROR(ZeroFill(out, stream));
  } else {
    const auto cudnn = [&]() -> absl::Status {
      const CudnnConv c = MakeCudnnConv(g, dtype, cuda::ConvDirection::kForward, device->index());
      DUET_ASSIGN_OR_RETURN(ConvRun run, StartConv(ctx, c));
      DUET_ASSIGN_OR_RETURN(const Tensor x, InputForCudnn(input, g, c, stream));
      DUET_ASSIGN_OR_RETURN(const Tensor w, FilterToKrsc(ctx.input(1), g, stream));
      return CallCudnn<cudnnConvolutionFwdAlgo_t>(
          ctx, run,
          [&](cudnnConvolutionFwdAlgo_t algorithm, void* workspace, size_t bytes) {
            return cudnnConvolutionForward(run.cudnn.handle, run.one(dtype), run.plan->x,
                                           x.raw_data(), run.plan->w, w.raw_data(), run.plan->conv,
                                           algorithm, workspace, bytes, run.zero(dtype),
                                           run.plan->y, out.raw_data());
          },
          "cudnnConvolutionForward");
    };
    DUET_RETURN_IF_ERROR(CudnnOrDirect(dtype, cudnn, cuda::DirectConvResult::kOutput, g, input,
                                       ctx.input(1), out, stream));
  }
  if (epilogue == nullptr) return absl::OkStatus();
  return cuda::ApplyFusedEpilogue(ctx, *epilogue, out, stream, "fused convolution epilogue");
}

absl::Status Conv2DKernel(KernelContext& ctx) {
  return RunConv(ctx, ConvKind::kConv2D, ConvWindowKeysOf(ConvKind::kConv2D), nullptr);
}

absl::Status DepthwiseConv2dNativeKernel(KernelContext& ctx) {
  return RunConv(ctx, ConvKind::kDepthwise, ConvWindowKeysOf(ConvKind::kDepthwise), nullptr);
}

absl::Status Conv3DKernel(KernelContext& ctx) {
  return RunConv(ctx, ConvKind::kConv3D, ConvWindowKeysOf(ConvKind::kConv3D), nullptr);
}

absl::Status FusedConv2DKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FusedEpilogue epilogue,
                        ReadFusedEpilogue(ctx.attr(FusedConv2DAttrs::kFusedOps),
                                          ctx.attr(FusedConv2DAttrs::kLeakyReluAlpha)));
  return RunConv(ctx, ConvKind::kConv2D, ConvWindowKeysOf(ConvKind::kConv2D), &epilogue);
}

absl::Status FusedDepthwiseConv2dNativeKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FusedEpilogue epilogue,
                        ReadFusedEpilogue(ctx.attr(FusedDepthwiseConvAttrs::kFusedOps),
                                          ctx.attr(FusedDepthwiseConvAttrs::kLeakyReluAlpha)));
  return RunConv(ctx, ConvKind::kDepthwise, kFusedDepthwiseWindowKeys, &epilogue);
}

// Inputs: input_sizes (host), filter, out_backprop.
absl::Status BackpropInput(KernelContext& ctx, ConvKind kind) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  const cudaStream_t stream = device->stream();
  const Tensor& dy = ctx.input(2);
  if (dy.num_elements() == 0) return ZeroFill(out, stream);  // no output channels: empty sums
  const DType dtype = out.dtype();
  const ConvGeometry g = MakeConvGeometry(ctx, kind, out.shape(), ctx.input(1).shape(), dy.shape());
  const auto cudnn = [&]() -> absl::Status {
    const CudnnConv c =
        MakeCudnnConv(g, dtype, cuda::ConvDirection::kBackwardData, device->index());
    DUET_ASSIGN_OR_RETURN(ConvRun run, StartConv(ctx, c));
    DUET_ASSIGN_OR_RETURN(const Tensor w, FilterToKrsc(ctx.input(1), g, stream));
    Tensor dx = out;
    if (c.padded) {
      DUET_ASSIGN_OR_RETURN(dx, Tensor::TryEmpty(dtype, CudnnInputShape(g, c), out.device()));
    }
    DUET_RETURN_IF_ERROR(CallCudnn<cudnnConvolutionBwdDataAlgo_t>(
        ctx, run,
        [&](cudnnConvolutionBwdDataAlgo_t algorithm, void* workspace, size_t bytes) {
          return cudnnConvolutionBackwardData(run.cudnn.handle, run.one(dtype), run.plan->w,
                                              w.raw_data(), run.plan->y, dy.raw_data(),
                                              run.plan->conv, algorithm, workspace, bytes,
                                              run.zero(dtype), run.plan->x, dx.raw_data());
        },
        "cudnnConvolutionBackwardData"));
    if (!c.padded) return absl::OkStatus();
    return CopyWindow(out, dx.raw_data(), c.key.in, c.offset, /*into_big=*/false, stream);
  };
  return CudnnOrDirect(dtype, cudnn, cuda::DirectConvResult::kInputGrad, g, ctx.input(1), dy, out,
                       stream);
}

// Inputs: input, filter_sizes (host), out_backprop.
absl::Status BackpropFilter(KernelContext& ctx, ConvKind kind) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  const cudaStream_t stream = device->stream();
  const Tensor& dy = ctx.input(2);
  if (dy.num_elements() == 0 || ctx.input(0).num_elements() == 0) {
    return ZeroFill(out, stream);  // no batch, positions or input cells: empty sums
  }
  const DType dtype = out.dtype();
  const ConvGeometry g = MakeConvGeometry(ctx, kind, ctx.input(0).shape(), out.shape(), dy.shape());
  const auto cudnn = [&]() -> absl::Status {
    const CudnnConv c =
        MakeCudnnConv(g, dtype, cuda::ConvDirection::kBackwardFilter, device->index());
    DUET_ASSIGN_OR_RETURN(ConvRun run, StartConv(ctx, c));
    DUET_ASSIGN_OR_RETURN(const Tensor x, InputForCudnn(ctx.input(0), g, c, stream));
    DUET_ASSIGN_OR_RETURN(Tensor dw_krsc, Tensor::TryEmpty(dtype, out.shape(), out.device()));
    DUET_RETURN_IF_ERROR(CallCudnn<cudnnConvolutionBwdFilterAlgo_t>(
        ctx, run,
        [&](cudnnConvolutionBwdFilterAlgo_t algorithm, void* workspace, size_t bytes) {
          return cudnnConvolutionBackwardFilter(run.cudnn.handle, run.one(dtype), run.plan->x,
                                                x.raw_data(), run.plan->y, dy.raw_data(),
                                                run.plan->conv, algorithm, workspace, bytes,
                                                run.zero(dtype), run.plan->w, dw_krsc.raw_data());
        },
        "cudnnConvolutionBackwardFilter"));
    return Transpose2D(dw_krsc, out.raw_data(), g.out_c, FilterRows(g), stream);
  };
  return CudnnOrDirect(dtype, cudnn, cuda::DirectConvResult::kFilterGrad, g, ctx.input(0), dy, out,
                       stream);
}

absl::Status BackpropInputKernel(KernelContext& ctx) {
  return BackpropInput(ctx, ConvKind::kConv2D);
}
absl::Status BackpropFilterKernel(KernelContext& ctx) {
  return BackpropFilter(ctx, ConvKind::kConv2D);
}
absl::Status Conv3DBackpropInputKernel(KernelContext& ctx) {
  return BackpropInput(ctx, ConvKind::kConv3D);
}
absl::Status Conv3DBackpropFilterKernel(KernelContext& ctx) {
  return BackpropFilter(ctx, ConvKind::kConv3D);
}
absl::Status DepthwiseBackpropInputKernel(KernelContext& ctx) {
  return BackpropInput(ctx, ConvKind::kDepthwise);
}
absl::Status DepthwiseBackpropFilterKernel(KernelContext& ctx) {
  return BackpropFilter(ctx, ConvKind::kDepthwise);
}

const bool kRegistered = [] {
  // float64: cuDNN's double convolutions, else direct ones (Note [float64 convolutions without
  // cuDNN]); bfloat16: tensor cores, float32 accumulation.
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    RegisterKernel("Conv2D", DeviceType::kCuda, {dtype}, KernelDef{&ChannelsLast<Conv2DKernel>});
    RegisterKernel("_FusedConv2D", DeviceType::kCuda, {dtype}, KernelDef{&FusedConv2DKernel});
    RegisterKernel("Conv2DBackpropInput", DeviceType::kCuda, {dtype},
                   KernelDef{&ChannelsLast<BackpropInputKernel>});
    RegisterKernel("Conv2DBackpropFilter", DeviceType::kCuda, {dtype},
                   KernelDef{&ChannelsLast<BackpropFilterKernel>});
    RegisterKernel("DepthwiseConv2dNative", DeviceType::kCuda, {dtype},
                   KernelDef{&ChannelsLast<DepthwiseConv2dNativeKernel>});
    RegisterKernel("_FusedDepthwiseConv2dNative", DeviceType::kCuda, {dtype},
                   KernelDef{&FusedDepthwiseConv2dNativeKernel});
    RegisterKernel("DepthwiseConv2dNativeBackpropInput", DeviceType::kCuda, {dtype},
                   KernelDef{&ChannelsLast<DepthwiseBackpropInputKernel>});
    RegisterKernel("DepthwiseConv2dNativeBackpropFilter", DeviceType::kCuda, {dtype},
                   KernelDef{&ChannelsLast<DepthwiseBackpropFilterKernel>});
    RegisterKernel("Conv3D", DeviceType::kCuda, {dtype}, KernelDef{&Conv3DKernel});
    RegisterKernel("Conv3DBackpropInputV2", DeviceType::kCuda, {dtype},
                   KernelDef{&Conv3DBackpropInputKernel});
    RegisterKernel("Conv3DBackpropFilterV2", DeviceType::kCuda, {dtype},
                   KernelDef{&Conv3DBackpropFilterKernel});
  }
  return true;
}();

}  // namespace
}  // namespace duet
