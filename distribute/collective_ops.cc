#include "distribute/collective_ops.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "distribute/collective_attrs.h"
#include "distribute/collective_groups.h"
#include "ops/array/array_ops.h"
#include "ops/gradient.h"
#include "ops/op_call.h"
#include "ops/op_def.h"
#include "ops/shape_context.h"

namespace duet::distribute {
namespace {

// The dtypes TensorFlow declares; the kernels take float32, float64, int32 and int64 (the
// backends' dtypes), and the dispatcher names them for any other.
const std::vector<DType> kReduceTypes = {kBFloat16, kFloat32, kFloat16, kFloat64, kInt32, kInt64};
const std::vector<DType> kGatherTypes = {kFloat32, kFloat16, kFloat64, kInt32, kInt64};
const std::vector<DType> kBcastTypes = {kBool, kFloat32, kFloat16, kFloat64, kInt32, kInt64};

// OK when inputs first .. first + 2 (group_size, group_key, instance_key) are scalars.
absl::Status CheckKeys(const ShapeContext& ctx, int first) {
  for (int i = first; i < first + 3; ++i) {
    const Shape& s = ctx.input_shape(i);
    if (!s.unknown_rank() && s.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.op().inputs[i].name, " must be a scalar, got shape ", s.str()));
    }
  }
  return absl::OkStatus();
}

absl::Status SameAsInputShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckKeys(ctx, 1));
  ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
  return absl::OkStatus();
}

// (group_size * d0, d1, ...): the ranks' inputs concatenated along axis 0.
absl::Status GatherShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckKeys(ctx, 1));
  const Shape& in = ctx.input_shape(0);
  if (in.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return absl::OkStatus();
  }
  if (in.rank() == 0) {
    return absl::InvalidArgumentError(
        "input must have at least one dimension (the ranks' inputs are concatenated along it), "
        "got a scalar");
  }
  std::vector<int64_t> dims(in.dims().begin(), in.dims().end());
  const std::optional<std::vector<int64_t>> size = ctx.input_ints(1);
  dims[0] = size && dims[0] != Shape::kUnknownDim ? dims[0] * (*size)[0] : Shape::kUnknownDim;
  ctx.set_output(0, ctx.input_dtype(0), Shape(absl::MakeConstSpan(dims)));
  return absl::OkStatus();
}

absl::Status BcastRecvShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckKeys(ctx, 0));
  const DType dtype = ctx.attr(CollectiveBcastRecvAttrs::kT);
  const Shape& s = ctx.input_shape(3);
  if (!s.unknown_rank() && s.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector of dimension sizes, got shape ", s.str()));
  }
  const std::optional<std::vector<int64_t>> dims = ctx.input_ints(3);
  if (!dims) {
    ctx.set_output(0, dtype, s.unknown_rank() ? Shape::UnknownRank() : Shape::Unknown(s.dim(0)));
    return absl::OkStatus();
  }
  for (int64_t d : *dims) {
    if (d < 0) return absl::InvalidArgumentError("shape has a negative dimension");
  }
  ctx.set_output(0, dtype, Shape(absl::MakeConstSpan(*dims)));
  return absl::OkStatus();
}

// CollectiveReduceV2's and CollectiveGatherV2's flattened inputs: input, group_size, group_key,
// instance_key, then the ordering tokens.
constexpr int kFirstToken = 4;

OpDefBuilder& KeyInputs(OpDefBuilder& b) {
  return b.Input("group_size", kInt32).Input("group_key", kInt32).Input("instance_key", kInt32);
}

const OpDef* const kCollectiveReduceV2 = [] {
  using A = CollectiveReduceAttrs;
  OpDefBuilder b("CollectiveReduceV2");
  b.Input("input", "T");
  KeyInputs(b)
      .InputList("ordering_token", kResource, "Nordering_token")
      .HostInputs({"group_size", "group_key", "instance_key", "ordering_token"})
      .Output("data", "T")
      .TypeAttr(A::kT, kReduceTypes)
      .StringAttr(A::kMergeOp, {}, {"Min", "Max", "Mul", "Add"})
      .StringAttr(A::kFinalOp, {}, {"Id", "Div"})
      .StringAttr(A::kCommunicationHint, "auto")
      .FloatAttr(A::kTimeoutSeconds, 0.f)
      .BoolAttr(A::kIsStateless, false)
      .IntAttr(A::kNorderingToken, 0, 0)
      .IntAttr(A::kMaxSubdivsPerDevice, -1)
      .Stateful()
      .Doc(
          "The elementwise reduction (merge_op) of input over the group's ranks, divided by "
          "group_size when final_op is Div.")
      .SetShapeFn(SameAsInputShape);
  return b.Register();
}();

const OpDef* const kCollectiveGatherV2 = [] {
  using A = CollectiveGatherAttrs;
  OpDefBuilder b("CollectiveGatherV2");
  b.Input("input", "T");
  KeyInputs(b)
      .InputList("ordering_token", kResource, "Nordering_token")
      .HostInputs({"group_size", "group_key", "instance_key", "ordering_token"})
      .Output("data", "T")
      .TypeAttr(A::kT, kGatherTypes)
      .StringAttr(A::kCommunicationHint, "auto")
      .FloatAttr(A::kTimeoutSeconds, 0.f)
      .BoolAttr(A::kIsStateless, false)
      .IntAttr(A::kNorderingToken, 0, 0)
      .Stateful()
      .Doc("The group's inputs concatenated along axis 0, in rank order.")
      .SetShapeFn(GatherShape);
  return b.Register();
}();

const OpDef* const kCollectiveBcastSendV2 = [] {
  using A = CollectiveBcastSendAttrs;
  OpDefBuilder b("CollectiveBcastSendV2");
  b.Input("input", "T");
  KeyInputs(b)
      .HostInputs({"group_size", "group_key", "instance_key"})
      .Output("data", "T")
      .TypeAttr(A::kT, kBcastTypes)
      .StringAttr(A::kCommunicationHint, "auto")
      .FloatAttr(A::kTimeoutSeconds, 0.f)
      .Stateful()
      .Doc("Sends input to the group's other ranks (CollectiveBcastRecvV2); returns it.")
      .SetShapeFn(SameAsInputShape);
  return b.Register();
}();

const OpDef* const kCollectiveBcastRecvV2 = [] {
  using A = CollectiveBcastRecvAttrs;
  OpDefBuilder b("CollectiveBcastRecvV2");
  KeyInputs(b)
      .Input("shape", "Tshape")
      .HostInputs({"group_size", "group_key", "instance_key", "shape"})
      .Output("data", "T")
      .TypeAttr(A::kT, kBcastTypes)
      .TypeAttr(A::kTshape, kIndexTypes, kInt32)
      .StringAttr(A::kCommunicationHint, "auto")
      .FloatAttr(A::kTimeoutSeconds, 0.f)
      .Stateful()
      .Doc("The tensor the group's sending rank broadcasts (CollectiveBcastSendV2).")
      .SetShapeFn(BcastRecvShape);
  return b.Register();
}();

// A CollectiveReduceV2 of `value` (merge_op Add, `final_op`) among the forward's group: the
// forward's group_size, group_key and ordering tokens (so it runs after it, on every rank alike)
// and a new instance key.
Tensor SumLikeForward(const GradientContext& ctx, const Tensor& value,
                      const std::string& final_op) {
  using A = CollectiveReduceAttrs;
  const int num_tokens = ctx.num_inputs() - kFirstToken;
  TensorList inputs = {value, ctx.input(1), ctx.input(2), constant(NextInstanceKey())};
  for (int i = 0; i < num_tokens; ++i) inputs.push_back(ctx.input(kFirstToken + i));
  OpCall call(kCollectiveReduceV2, std::move(inputs), OpSite());
  call.set(A::kMergeOp, std::string("Add"));
  call.set(A::kFinalOp, final_op);
  call.set(A::kNorderingToken, static_cast<int64_t>(num_tokens));
  return RunSingleOutputOp(call);
}

// The gradient of a sum (mean) all-reduce is the sum (mean) all-reduce of the output's gradient:
// each rank's input reaches every rank's output with weight 1 (1 / group_size), as Horovod and
// PyTorch's differentiable all-reduce define it. Min, Max and Mul have no gradient here
// (TensorFlow declares none for any): an error when a gradient reaches one.
TensorList CollectiveReduceGrad(const GradientContext& ctx) {
  const std::string& merge_op = ctx.attr(CollectiveReduceAttrs::kMergeOp);
  if (merge_op != "Add") {
    throw Error(absl::UnimplementedError(absl::StrCat(
        "CollectiveReduceV2 with merge_op ", merge_op,
        " has no gradient (merge_op Add has: the all-reduce of the output's gradient)")));
  }
  TensorList grads(ctx.num_inputs());
  grads[0] = SumLikeForward(ctx, ctx.grad(0), ctx.attr(CollectiveReduceAttrs::kFinalOp));
  return grads;
}

// The value of an int32 key input: eager, or a constant of the graph (as the op functions make
// them).
int32_t KnownKey(const GradientContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  const Tensor* value = t.has_value() ? &t
                        : t.defined() && t.impl()->symbolic != nullptr
                            ? t.impl()->symbolic->constant_value()
                            : nullptr;
  if (value == nullptr) {
    throw Error(absl::UnimplementedError(absl::StrCat("the gradient of ", ctx.op().name,
                                                      " needs its ", ctx.op().inputs[i].name,
                                                      " as a constant, to find this rank")));
  }
  return value->item<int32_t>();
}

// Rank r's input is rows [r * d0, (r + 1) * d0) of every rank's output, so its gradient is those
// rows of the sum all-reduce of the output's gradient (a reduce-scatter).
TensorList CollectiveGatherGrad(const GradientContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  if (in.unknown_rank() || in.dim(0) == Shape::kUnknownDim) {
    throw Error(absl::UnimplementedError(absl::StrCat(
        "the gradient of CollectiveGatherV2 needs the input's first dimension, got shape ",
        in.str())));
  }
  const std::shared_ptr<Backend> backend =
      ValueOrThrow(FindGroup(KnownKey(ctx, 2), KnownKey(ctx, 1)));
  const Tensor summed = SumLikeForward(ctx, ctx.grad(0), "Id");
  std::vector<int64_t> begin(in.rank(), 0), size(in.dims().begin(), in.dims().end());
  begin[0] = backend->rank() * in.dim(0);
  TensorList grads(ctx.num_inputs());
  grads[0] = slice(summed, begin, size);
  return grads;
}

const GradientRegistrar kCollectiveReduceGrad("CollectiveReduceV2", CollectiveReduceGrad,
                                              /*keep_inputs=*/{1, 2, 4});
const GradientRegistrar kCollectiveGatherGrad("CollectiveGatherV2", CollectiveGatherGrad,
                                              /*keep_inputs=*/{1, 2, 4});
// Broadcasts carry state (variables, ids), which takes no gradient; a gradient of the sender's
// input would need every receiver's output gradient, which CollectiveBcastRecvV2 (no inputs)
// never sees. So neither passes one on, as in TensorFlow.
const NotDifferentiable kCollectiveBcastSendV2Grad("CollectiveBcastSendV2");
const NotDifferentiable kCollectiveBcastRecvV2Grad("CollectiveBcastRecvV2");

TensorList KeyTensors(const CollectiveKeys& keys) {
  return {constant(keys.group_size), constant(keys.group_key), constant(keys.instance_key)};
}

// `input`, the keys, then the ordering tokens: a reduce's, gather's or send's inputs.
TensorList KeyedInputs(const Tensor& input, const CollectiveKeys& keys,
                       const std::vector<Tensor>& ordering_token = {}) {
  TensorList inputs = {input};
  for (const Tensor& t : KeyTensors(keys)) inputs.push_back(t);
  inputs.insert(inputs.end(), ordering_token.begin(), ordering_token.end());
  return inputs;
}

}  // namespace

Tensor collective_reduce_v2(const Tensor& input, const CollectiveKeys& keys,
                            const std::vector<Tensor>& ordering_token, const std::string& merge_op,
                            const std::string& final_op, OpSite site) {
  OpCall call(kCollectiveReduceV2, KeyedInputs(input, keys, ordering_token), site);
  call.set(CollectiveReduceAttrs::kMergeOp, merge_op);
  call.set(CollectiveReduceAttrs::kFinalOp, final_op);
  call.set(CollectiveReduceAttrs::kNorderingToken, static_cast<int64_t>(ordering_token.size()));
  return RunSingleOutputOp(call);
}

Tensor collective_gather_v2(const Tensor& input, const CollectiveKeys& keys,
                            const std::vector<Tensor>& ordering_token, OpSite site) {
  OpCall call(kCollectiveGatherV2, KeyedInputs(input, keys, ordering_token), site);
  call.set(CollectiveGatherAttrs::kNorderingToken, static_cast<int64_t>(ordering_token.size()));
  return RunSingleOutputOp(call);
}

Tensor collective_bcast_send_v2(const Tensor& input, const CollectiveKeys& keys, OpSite site) {
  OpCall call(kCollectiveBcastSendV2, KeyedInputs(input, keys), site);
  return RunSingleOutputOp(call);
}

Tensor collective_bcast_recv_v2(DType dtype, const Shape& shape, const CollectiveKeys& keys,
                                OpSite site) {
  TensorList inputs = KeyTensors(keys);
  inputs.push_back(from_vector(std::vector<int64_t>(shape.dims().begin(), shape.dims().end())));
  OpCall call(kCollectiveBcastRecvV2, std::move(inputs), site);
  call.set(CollectiveBcastRecvAttrs::kT, dtype);
  return RunSingleOutputOp(call);
}

}  // namespace duet::distribute
