// DuetHostFunction: an op whose `f` attr is a C++ callable wrapped as a FunctionBody. The "Duet"
// prefix keeps duet's own ops clear of TensorFlow's op names.
#include <atomic>
#include <exception>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/control_flow/control_flow_ops.h"
#include "ops/function_body.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// A host callable with a fixed signature; results are checked against it.
class HostFunctionBody final : public CallableBody<HostFn> {
 public:
  using CallableBody::CallableBody;

  absl::StatusOr<std::vector<Tensor>> Call(absl::Span<const Tensor> args) const override {
    DUET_ASSIGN_OR_RETURN(std::shared_ptr<const HostFn> fn, closure());
    std::vector<Tensor> results;
    try {
      results = (*fn)(std::vector<Tensor>(args.begin(), args.end()));
    } catch (const Error& e) {
      return absl::Status(e.code(),
                          absl::StrCat("the host function threw: ", e.status().message()));
    } catch (const std::exception& e) {
      return absl::UnknownError(absl::StrCat("the host function threw: ", e.what()));
    }
    if (results.size() != result_dtypes().size()) {
      return absl::InvalidArgumentError(absl::StrCat("the host function returned ", results.size(),
                                                     " tensors; output_dtypes has ",
                                                     result_dtypes().size()));
    }
    for (size_t k = 0; k < results.size(); ++k) {
      if (!results[k].defined() || !results[k].has_value() ||
          results[k].dtype() != result_dtypes()[k]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the host function's result ", k, " must be a ", DTypeName(result_dtypes()[k]),
            " tensor with a value, got ",
            results[k].defined() ? DTypeName(results[k].dtype()) : "an undefined tensor"));
      }
    }
    return results;
  }
};

absl::Status HostFunctionShape(ShapeContext& ctx) {
  const FuncAttr& f = ctx.attr(CallAttrs::kF);
  if (f.body == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host function '", f.name,
        "' is not known to this process (a host_function's callable is not serializable)"));
  }
  if (f.body->arg_dtypes() != ctx.attr(CallAttrs::kTin) ||
      f.body->result_dtypes() != ctx.attr(CallAttrs::kTout)) {
    return absl::InvalidArgumentError(
        absl::StrCat("host function '", f.name, "' has another signature than Tin/Tout"));
  }
  for (int k = 0; k < ctx.num_outputs(); ++k) {
    ctx.set_output(k, ctx.output(k).dtype, f.body->result_shapes()[k]);
  }
  return absl::OkStatus();
}

const OpDef* const kHostFunction =
    OpDefBuilder("DuetHostFunction")
        .InputTypeList("input", "Tin")
        .OutputTypeList("output", "Tout")
        .TypeListAttr(CallAttrs::kTin)
        .TypeListAttr(CallAttrs::kTout)
        .RunsOnHost()
        .FuncAttr(CallAttrs::kF)
        .Stateful()
        .Doc(
            "duet's own: calls a C++ callable of this process (host_function); not exportable "
            "to other processes.")
        .SetShapeFn(HostFunctionShape)
        .Register();

}  // namespace

std::vector<Tensor> host_function(HostFn fn, const std::vector<Tensor>& inputs,
                                  const std::vector<DType>& output_dtypes, OpSite site) {
  std::vector<DType> input_dtypes;
  for (const Tensor& t : inputs) input_dtypes.push_back(t.defined() ? t.dtype() : kFloat32);
  std::string name = [] {
    static std::atomic<int64_t> counter{0};
    return absl::StrCat("host_function_", counter.fetch_add(1, std::memory_order_relaxed));
  }();
  auto body =
      std::make_shared<const HostFunctionBody>(name, input_dtypes, output_dtypes, std::move(fn));
  OpCall call(kHostFunction, TensorList(inputs.begin(), inputs.end()), site);
  call.set(CallAttrs::kTin, std::move(input_dtypes));
  call.set(CallAttrs::kTout, output_dtypes);
  call.set(CallAttrs::kF, FuncAttr{std::move(name), std::move(body)});
  OutputList outputs = RunOp(call);
  return std::vector<Tensor>(outputs.begin(), outputs.end());
}

}  // namespace duet
