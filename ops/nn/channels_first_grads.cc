#include "ops/nn/channels_first_grads.h"

#include <cstdint>
#include <vector>

#include "core/constant.h"
#include "ops/array/array_ops.h"

namespace duet {
namespace {

Tensor ToChannelsLast(const Tensor& t) {
  return t.defined() && t.rank() >= 3 ? transpose(t, ChannelsLastPerm(t.rank())) : t;
}

TensorMeta ChannelsLastMeta(TensorMeta meta) {
  meta.shape = ChannelsLastShape(meta.shape);
  return meta;
}

}  // namespace

TensorList ChannelsLastGradientOf(const GradientContext& ctx, GradientFn twin_gradient) {
  const OpDef& op = ctx.op();
  const ChannelsFirstArgs& args = op.channels_first;
  const AttrList attrs = ChannelsLastAttrs(op, ctx.attrs());
  std::vector<Tensor> inputs, outputs, grads;
  std::vector<TensorMeta> input_meta, output_meta;
  uint64_t needs_grad = 0;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    TensorMeta meta{ctx.input_dtype(i), ctx.input_shape(i), ctx.input_device(i)};
    Tensor input = ctx.kept_inputs()[i];
    if (ArgIn(args.image_inputs, i)) {
      meta = ChannelsLastMeta(meta);
      input = ToChannelsLast(input);
    } else if (ArgIn(args.image_shape_inputs, i) && input.defined()) {
      const int rank = static_cast<int>(input.num_elements());
      input = gather(input, from_vector(ChannelsLastPerm(rank)));
    }
    inputs.push_back(input);
    input_meta.push_back(meta);
    if (ctx.needs_grad(i)) needs_grad |= uint64_t{1} << i;
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    TensorMeta meta{ctx.output_dtype(i), ctx.output_shape(i), ctx.output_device(i)};
    const bool image = ArgIn(args.image_outputs, i);
    outputs.push_back(image ? ToChannelsLast(ctx.kept_outputs()[i]) : ctx.kept_outputs()[i]);
    output_meta.push_back(image ? ChannelsLastMeta(meta) : meta);
    grads.push_back(image ? ToChannelsLast(ctx.grad(i)) : ctx.grad(i));
  }
  const GradientContext twin(op, attrs, inputs, outputs, input_meta, output_meta, grads,
                             needs_grad);
  TensorList result = twin_gradient(twin);
  for (int i = 0; i < static_cast<int>(result.size()); ++i) {
    if (ArgIn(args.image_inputs, i) && result[i].defined() && result[i].rank() >= 3) {
      result[i] = transpose(result[i], ChannelsFirstPerm(result[i].rank()));
    }
  }
  return result;
}

}  // namespace duet
