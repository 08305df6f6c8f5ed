#include "ops/channels_first.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "ops/shape_context.h"

namespace duet {

// Note [Channels-first]
// TensorFlow's GPU graphs and PyTorch-style code keep images channels-first (N, C, H, W); oneDNN
// and duet's kernels, like TensorFlow's CPU kernels, are channels-last (N, H, W, C). An op that
// takes both declares which of its arguments are images (OpDefBuilder::ChannelsFirst), and a
// channels-first call then means exactly its channels-last twin run between transposes: the image
// inputs transposed by ChannelsLastPerm (dim 1 moved last), image-shape inputs (input_sizes,
// orig_input_shape) and per-dim attrs (strides, ksize, dilations, explicit_paddings) permuted
// alike, data_format "NHWC", and the image outputs transposed back. Everything generic follows
// from that one identity, so no shape function, kernel or gradient is written twice:
//   - shape inference (InferShapes) runs the twin's shape function on permuted shapes;
//   - kernels registered as ChannelsLast<Kernel> (kernels/common/channels_last_kernel.h) run the
//     twin's kernel between Transpose kernels, for eager calls and unoptimized plans;
//   - gradients registered as ChannelsLastGradient<Fn> (ops/nn/channels_last_gradient.h) are the
//     twin's gradient between transpose ops, so they differentiate again;
//   - the optimizer's layout pass (graph/passes/convert_layout.cc) rewrites each channels-first
//     node as Transpose -> twin -> Transpose, and simplify cancels the transposes between
//     consecutive image ops, so a channels-first network pays one transpose at each end, as
//     TensorFlow's layout optimizer converts NCHW graphs for CPUs.
// Rank comes from each tensor (BiasAdd takes any rank >= 2; its channels are dim 1), the per-dim
// attrs' length from the format string.

bool IsChannelsFirst(const OpDef& op, const AttrList& attrs) {
  const int i = op.channels_first.format_attr;
  if (i < 0) return false;
  const auto* format = std::get_if<std::string>(&attrs[i]);
  return format != nullptr && format->size() >= 3 && (*format)[1] == 'C';
}

std::vector<int64_t> ChannelsLastPerm(int rank) {
  std::vector<int64_t> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i == 0 ? 0 : i == rank - 1 ? 1 : i + 1);
  return perm;
}

std::vector<int64_t> ChannelsFirstPerm(int rank) {
  std::vector<int64_t> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i == 0 ? 0 : i == 1 ? rank - 1 : i - 1);
  return perm;
}

namespace {

std::vector<int64_t> Permuted(const std::vector<int64_t>& values,
                              const std::vector<int64_t>& perm) {
  std::vector<int64_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[perm[i]];
  return out;
}

Shape PermutedShape(const Shape& shape, bool to_last) {
  if (shape.unknown_rank() || shape.rank() < 2) return shape;
  const std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
  const std::vector<int64_t> perm =
      to_last ? ChannelsLastPerm(shape.rank()) : ChannelsFirstPerm(shape.rank());
  return Shape(absl::MakeConstSpan(Permuted(dims, perm)));
}

}  // namespace

std::vector<int64_t> ChannelsLastDims(const std::vector<int64_t>& values) {
  if (values.size() < 2) return values;
  return Permuted(values, ChannelsLastPerm(static_cast<int>(values.size())));
}

Shape ChannelsLastShape(const Shape& shape) { return PermutedShape(shape, true); }
Shape ChannelsFirstShape(const Shape& shape) { return PermutedShape(shape, false); }

namespace {

// `attrs` with data_format's channel letter and the per-dim attrs moved to the other layout.
AttrList MovedChannels(const OpDef& op, const AttrList& attrs, bool to_last) {
  const ChannelsFirstArgs& args = op.channels_first;
  AttrList twin = attrs;
  std::string format = std::get<std::string>(attrs[args.format_attr]);
  const int rank = static_cast<int>(format.size());
  if (to_last) {
    format.push_back(format[1]);
    format.erase(1, 1);
  } else {
    format.insert(format.begin() + 1, format.back());
    format.pop_back();
  }
  twin[args.format_attr] = std::move(format);
  const std::vector<int64_t> perm = to_last ? ChannelsLastPerm(rank) : ChannelsFirstPerm(rank);
  for (int i : args.dim_attrs) {
    auto* values = std::get_if<std::vector<int64_t>>(&twin[i]);
    if (values != nullptr && static_cast<int>(values->size()) == rank) {
      *values = Permuted(*values, perm);
    }
  }
  if (args.explicit_paddings_attr >= 0) {
    auto* pads = std::get_if<std::vector<int64_t>>(&twin[args.explicit_paddings_attr]);
    if (pads != nullptr && static_cast<int>(pads->size()) == 2 * rank) {
      std::vector<int64_t> permuted(pads->size());
      for (int d = 0; d < rank; ++d) {
        permuted[2 * d] = (*pads)[2 * perm[d]];
        permuted[2 * d + 1] = (*pads)[2 * perm[d] + 1];
      }
      *pads = std::move(permuted);
    }
  }
  return twin;
}

}  // namespace

AttrList ChannelsLastAttrs(const OpDef& op, const AttrList& attrs) {
  return MovedChannels(op, attrs, true);
}

AttrList ChannelsFirstAttrs(const OpDef& op, const AttrList& attrs) {
  return MovedChannels(op, attrs, false);
}

absl::Status InferChannelsFirstShapes(ShapeContext& ctx) {
  const OpCall& call = ctx.call();
  const ChannelsFirstArgs& args = call.op->channels_first;
  OpCall twin(call.op, call.inputs, call.site);
  twin.attrs = ChannelsLastAttrs(*call.op, call.attrs);
  ShapeContext::InputView view;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const bool image = ArgIn(args.image_inputs, i);
    view.shapes.push_back(image ? ChannelsLastShape(ctx.input_shape(i)) : ctx.input_shape(i));
    std::optional<std::vector<int64_t>> ints;
    if (ArgIn(args.image_shape_inputs, i)) {
      ints = ctx.input_ints(i);
      if (ints.has_value()) ints = ChannelsLastDims(*ints);
    }
    view.ints.push_back(std::move(ints));
  }
  ShapeContext twin_shapes(twin, &view);
  if (absl::Status status = call.op->shape_fn(twin_shapes); !status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat(status.message(), " [data_format ",
                                     std::get<std::string>(call.attrs[args.format_attr]),
                                     ": checked as its channels-last twin, dims permuted to ",
                                     std::get<std::string>(twin.attrs[args.format_attr]), "]"));
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const ShapeContext::Output& out = twin_shapes.output(i);
    const bool image = ArgIn(args.image_outputs, i);
    ctx.set_output(i, out.dtype, image ? ChannelsFirstShape(out.shape) : out.shape);
  }
  return absl::OkStatus();
}

}  // namespace duet
