// Control-flow op functions: NoOp (a node that only orders others through control edges),
// host_function (a C++ callable as an op), custom_gradient_op and call_function (a function call).
// cond and while_loop, which need graph building, are in graph/control_flow.h.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "ops/function_body.h"
#include "ops/op_site.h"

namespace duet {

// Does nothing (op NoOp). In a graph, inside ControlDependencies, it gathers control inputs into
// one node that a Session::run target can name (TensorFlow's tf.group).
void no_op(OpSite site = {});

// A C++ callable run as an op (DuetHostFunction, TensorFlow's py_func for C++): eagerly it runs
// at once; in a graph it runs each time the node runs, with the inputs' values, which makes it
// the place for debugging prints and glue code. `fn` must return tensors of `output_dtypes`
// (any shapes). An Error or std::exception it throws fails the op (or the Session::run) with
// its message. Not differentiable. Exported graphs keep the node, but only the process that
// made it can run it: the callable is not serializable.
using HostFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
std::vector<Tensor> host_function(HostFn fn, const std::vector<Tensor>& inputs,
                                  const std::vector<DType>& output_dtypes, OpSite site = {});

// `value` itself (op DuetCustomGradient), whose gradient with respect to `inputs` is
// `backward(upstream gradient)`, one gradient per input: custom_gradient
// (eager/gradients_function.h) uses it in graphs. The backward function runs when gradients()
// builds the backward graph. Not exportable (the callable is not serializable); the simplify pass
// replaces the node by `value`.
using CustomBackwardFn = std::function<std::vector<Tensor>(const Tensor& upstream)>;
Tensor custom_gradient_op(const Tensor& value, const std::vector<Tensor>& inputs,
                          CustomBackwardFn backward, OpSite site = {});

// Calls `f` with `args` (op StatefulPartitionedCall, or PartitionedCall when `stateful` is false,
// a promise that f has no side effects): eagerly it runs f at once and a GradientTape records one
// call; in a graph it adds the call node. duet::function calls its traced functions this way.
std::vector<Tensor> call_function(std::shared_ptr<const FunctionBody> f,
                                  const std::vector<Tensor>& args, bool stateful = true,
                                  OpSite site = {});

}  // namespace duet
