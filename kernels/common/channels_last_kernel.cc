#include "kernels/common/channels_last_kernel.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "core/constant.h"
#include "ops/op_ref.h"

namespace duet {
namespace {

const OpRef kTransposeOp("Transpose");

// x transposed by `perm` into `out` (allocated here when undefined), by the Transpose kernel.
absl::StatusOr<Tensor> Transposed(const Tensor& x, const std::vector<int64_t>& perm, Tensor out,
                                  Device device) {
  OpCall call(&kTransposeOp.def(), {x, from_vector(perm)}, OpSite());
  DUET_RETURN_IF_ERROR(BindAttrs(call));
  if (!out.defined()) {
    Shape shape;
    for (int64_t p : perm) shape.push_back(x.shape().dim(static_cast<int>(p)));
    DUET_ASSIGN_OR_RETURN(out, Tensor::TryEmpty(x.dtype(), shape, device));
  }
  OutputList outputs{out};
  DUET_RETURN_IF_ERROR(RunKernel(call, device, outputs));
  return outputs[0];
}

// An image-shape input (int32 or int64 on the host) with its entries permuted channels-last.
Tensor PermutedSizes(const Tensor& sizes) {
  std::vector<int64_t> values =
      sizes.dtype() == kInt64 ? sizes.to_vector<int64_t>()
                              : std::vector<int64_t>(sizes.data<int32_t>(),
                                                     sizes.data<int32_t>() + sizes.num_elements());
  values = ChannelsLastDims(values);
  if (sizes.dtype() == kInt64) return from_vector(values);
  return from_vector(std::vector<int32_t>(values.begin(), values.end()));
}

}  // namespace

absl::Status RunChannelsLastKernel(KernelContext& ctx, KernelFn kernel) {
  const OpCall& call = ctx.call();
  const ChannelsFirstArgs& args = call.op->channels_first;
  const Device device = ctx.device();
  OpCall twin(call.op, call.inputs, call.site);
  twin.attrs = ChannelsLastAttrs(*call.op, call.attrs);
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Tensor& input = call.inputs[i];
    if (ArgIn(args.image_inputs, i) && input.rank() >= 3) {
      DUET_ASSIGN_OR_RETURN(twin.inputs[i],
                            Transposed(input, ChannelsLastPerm(input.rank()), Tensor(), device));
    } else if (ArgIn(args.image_shape_inputs, i)) {
      twin.inputs[i] = PermutedSizes(input);
    }
  }
  // Image outputs get channels-last buffers; the others are the kernel's to write directly.
  OutputList outputs(ctx.num_outputs());
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const Tensor& out = ctx.output(i);
    if (ArgIn(args.image_outputs, i) && out.rank() >= 3) {
      DUET_ASSIGN_OR_RETURN(outputs[i],
                            Tensor::TryEmpty(out.dtype(), ChannelsLastShape(out.shape()), device));
    } else {
      outputs[i] = out;
    }
  }
  KernelContext twin_ctx(twin, outputs, device);
  DUET_RETURN_IF_ERROR(kernel(twin_ctx));
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (outputs[i].impl() == ctx.output(i).impl()) continue;
    DUET_ASSIGN_OR_RETURN(
        ctx.output(i),
        Transposed(outputs[i], ChannelsFirstPerm(outputs[i].rank()), ctx.output(i), device));
  }
  return absl::OkStatus();
}

}  // namespace duet
