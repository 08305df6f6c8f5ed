// AddN: the sum of N same-shape tensors, in one op (TensorFlow's gradient aggregation op).
#include "absl/strings/str_cat.h"
#include "ops/math/add_gradients.h"
#include "ops/math/elementwise_op_def.h"
#include "ops/math/math_attrs.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status AddNShape(ShapeContext& ctx) {
  Shape out = Shape::UnknownRank();
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.input_shape(i);
    if (!out.IsCompatibleWith(s)) {
      return absl::InvalidArgumentError(
          absl::StrCat("inputs[", i, "] has shape ", s.str(), " but inputs[0] has shape ",
                       ctx.input_shape(0).str(), "; all inputs must have the same shape"));
    }
    out = out.Merge(s);
  }
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

// Arithmetic types and kVariant: TensorLists (gradients of lists) add elementwise (Note
// [TensorList gradients] in ops/list/list_grads.cc).
const std::vector<DType> kAddNTypes = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                       kInt32,   kInt64,   kVariant};

const OpDef* const kAddN = OpDefBuilder("AddN")
                               .InputList("inputs", "T", "N")
                               .Output("sum", "T")
                               .IntAttr(AddNAttrs::kN, {}, 1)
                               .TypeAttr(AddNAttrs::kT, kAddNTypes)
                               .Commutative()
                               .Doc("The elementwise sum of N tensors of one shape.")
                               .SetShapeFn(AddNShape)
                               .Register();

}  // namespace

Tensor add_n(const std::vector<Tensor>& values, OpSite site) {
  OpCall call(kAddN, TensorList(values.begin(), values.end()), site);
  return RunSingleOutputOp(call);
}

Tensor add_gradients(const Tensor& a, const Tensor& b, OpSite site) {
  return a.dtype() == kVariant ? add_n({a, b}, site) : add(a, b, site);
}

}  // namespace duet
