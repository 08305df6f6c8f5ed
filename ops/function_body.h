// FunctionBody: what an op with a `func` attr (If, While) needs of the function it names: its
// signature and a way to call it. Graph mode implements it (graph/function.h) with a graph that
// runs through its own Plan; ops and kernels see only this interface, so they do not depend on
// the graph layer.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/tensor.h"

namespace duet {

class FunctionBody {
 public:
  virtual ~FunctionBody() = default;

  virtual const std::string& name() const = 0;
  // The argument and result signature; shapes are partial (-1 for unknown dims).
  virtual const std::vector<DType>& arg_dtypes() const = 0;
  virtual const std::vector<Shape>& arg_shapes() const = 0;
  virtual const std::vector<DType>& result_dtypes() const = 0;
  virtual const std::vector<Shape>& result_shapes() const = 0;
  // Runs the function. Checks the arguments against the signature; safe to call from several
  // threads at once, and from inside another function's call.
  virtual absl::StatusOr<std::vector<Tensor>> Call(absl::Span<const Tensor> args) const = 0;
  // The same, handed the arguments: a body that runs a plan moves them in, so that a kernel may
  // find itself the only holder of a value (Note [Inputs handed over] in graph/plan.cc).
  virtual absl::StatusOr<std::vector<Tensor>> CallOwned(std::vector<Tensor> args) const {
    return Call(args);
  }

  // A strong reference to the C++ closure the body calls, for a graph whose node holds the body
  // to own; from then on the body holds the closure weakly (Note [Closures in graphs] in
  // graph/graph.cc). Null for bodies that call no closure.
  virtual std::shared_ptr<const void> AdoptClosure() const { return nullptr; }
};

// A FunctionBody with a signature fixed when it is made, of dtypes and unknown-rank shapes, that
// calls a C++ closure of type Fn: the base of host_function's and custom_gradient's bodies.
template <typename Fn>
class CallableBody : public FunctionBody {
 public:
  CallableBody(std::string name, std::vector<DType> arg_dtypes, std::vector<DType> result_dtypes,
               Fn closure)
      : name_(std::move(name)),
        arg_dtypes_(std::move(arg_dtypes)),
        result_dtypes_(std::move(result_dtypes)),
        arg_shapes_(arg_dtypes_.size(), Shape::UnknownRank()),
        result_shapes_(result_dtypes_.size(), Shape::UnknownRank()),
        owned_(std::make_shared<const Fn>(std::move(closure))),
        closure_(owned_) {}

  const std::string& name() const override { return name_; }
  const std::vector<DType>& arg_dtypes() const override { return arg_dtypes_; }
  const std::vector<Shape>& arg_shapes() const override { return arg_shapes_; }
  const std::vector<DType>& result_dtypes() const override { return result_dtypes_; }
  const std::vector<Shape>& result_shapes() const override { return result_shapes_; }

  std::shared_ptr<const void> AdoptClosure() const override {
    std::shared_ptr<const void> closure = closure_.lock();  // before the body lets go
    absl::MutexLock lock(&mu_);
    owned_.reset();
    return closure;
  }

 protected:
  // The closure, or FailedPrecondition once every graph that held it is gone.
  absl::StatusOr<std::shared_ptr<const Fn>> closure() const {
    std::shared_ptr<const Fn> closure = closure_.lock();
    if (closure == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("'", name_, "' calls a C++ closure that was freed with its graph"));
    }
    return closure;
  }

 private:
  std::string name_;
  std::vector<DType> arg_dtypes_, result_dtypes_;
  std::vector<Shape> arg_shapes_, result_shapes_;
  mutable absl::Mutex mu_;
  mutable std::shared_ptr<const Fn> owned_ ABSL_GUARDED_BY(mu_);  // until a graph adopts it
  std::weak_ptr<const Fn> closure_;
};

}  // namespace duet
