// FunctionBody: what an op with a `func` attr (If, While) needs of the function it names: its
// signature and a way to call it. Graph mode implements it (graph/function.h) with a graph that
// runs through its own Plan; ops and kernels see only this interface, so they do not depend on
// the graph layer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
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
};

// A FunctionBody with a signature fixed when it is made, of dtypes and unknown-rank shapes: the
// base of C++ callables wrapped as bodies (host_function, custom_gradient's backward).
class CallableBody : public FunctionBody {
 public:
  CallableBody(std::string name, std::vector<DType> arg_dtypes, std::vector<DType> result_dtypes)
      : name_(std::move(name)),
        arg_dtypes_(std::move(arg_dtypes)),
        result_dtypes_(std::move(result_dtypes)),
        arg_shapes_(arg_dtypes_.size(), Shape::UnknownRank()),
        result_shapes_(result_dtypes_.size(), Shape::UnknownRank()) {}

  const std::string& name() const override { return name_; }
  const std::vector<DType>& arg_dtypes() const override { return arg_dtypes_; }
  const std::vector<Shape>& arg_shapes() const override { return arg_shapes_; }
  const std::vector<DType>& result_dtypes() const override { return result_dtypes_; }
  const std::vector<Shape>& result_shapes() const override { return result_shapes_; }

 private:
  std::string name_;
  std::vector<DType> arg_dtypes_, result_dtypes_;
  std::vector<Shape> arg_shapes_, result_shapes_;
};

}  // namespace duet
