#include "ops/shape_context.h"

#include "absl/strings/str_cat.h"

namespace duet {
namespace {
ShapeContext::ConstantValueFn constant_value_fn = nullptr;
}  // namespace

void ShapeContext::SetConstantValueFn(ConstantValueFn fn) { constant_value_fn = fn; }

ShapeContext::ShapeContext(const OpCall& call) : call_(call) {
  int n = 0;
  for (const ArgDef& arg : call.op->outputs) {
    n += arg.number_attr_index < 0
             ? 1
             : static_cast<int>(std::get<int64_t>(call.attrs[arg.number_attr_index]));
  }
  outputs_.resize(n);
  // Default output dtypes from the signature; shape functions override as needed.
  int i = 0;
  for (const ArgDef& arg : call.op->outputs) {
    const int count = arg.number_attr_index < 0
                          ? 1
                          : static_cast<int>(std::get<int64_t>(call.attrs[arg.number_attr_index]));
    const DType dtype =
        arg.type_attr_index < 0 ? arg.fixed_type : std::get<DType>(call.attrs[arg.type_attr_index]);
    for (int k = 0; k < count; ++k) outputs_[i++].dtype = dtype;
  }
}

const Tensor* ShapeContext::input_value(int i) const {
  const Tensor& t = call_.inputs[i];
  if (t.has_value()) return &t;
  return constant_value_fn ? constant_value_fn(t) : nullptr;
}

std::optional<std::vector<int64_t>> ShapeContext::input_ints(int i) const {
  const Tensor* t = input_value(i);
  if (t == nullptr || !t->device().is_cpu()) return std::nullopt;
  if (t->dtype() == kInt32) {
    const int32_t* p = t->data<int32_t>();
    return std::vector<int64_t>(p, p + t->num_elements());
  }
  if (t->dtype() == kInt64) return t->to_vector<int64_t>();
  return std::nullopt;
}

absl::Status InferShapes(ShapeContext& ctx) { return ctx.op().shape_fn(ctx); }

}  // namespace duet
