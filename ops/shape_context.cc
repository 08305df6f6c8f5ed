#include "ops/shape_context.h"

#include "absl/strings/str_cat.h"
#include "ops/channels_first.h"

namespace duet {
ShapeContext::ShapeContext(const OpCall& call, const InputView* view) : call_(call), view_(view) {
  // Default output dtypes from the signature (BindAttrs has set every attr); shape functions
  // override as needed.
  for (const ArgDef& arg : call.op->outputs) {
    const int64_t count = ArgLength(arg, call.attrs);
    for (int64_t k = 0; k < count; ++k) outputs_.push_back({ArgDType(arg, call.attrs, k), Shape()});
  }
}

const Tensor* ShapeContext::input_value(int i) const {
  const Tensor& t = call_.inputs[i];
  if (t.has_value()) return &t;
  const SymbolicValue* symbolic = t.defined() ? t.impl()->symbolic.get() : nullptr;
  return symbolic == nullptr ? nullptr : symbolic->constant_value();
}

std::optional<std::vector<int64_t>> ShapeContext::input_ints(int i) const {
  if (view_ != nullptr && view_->ints[i].has_value()) return view_->ints[i];
  const Tensor* t = input_value(i);
  if (t == nullptr || !t->device().is_host()) return std::nullopt;
  if (t->dtype() == kInt32) {
    const int32_t* p = t->data<int32_t>();
    return std::vector<int64_t>(p, p + t->num_elements());
  }
  if (t->dtype() == kInt64) return t->to_vector<int64_t>();
  return std::nullopt;
}

absl::Status InferShapes(ShapeContext& ctx) {
  if (ctx.op().channels_first.format_attr >= 0 && IsChannelsFirst(ctx.call())) {
    return InferChannelsFirstShapes(ctx);
  }
  return ctx.op().shape_fn(ctx);
}

}  // namespace duet
