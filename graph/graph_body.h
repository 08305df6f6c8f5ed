// GraphBody: a FunctionBody that is a graph with arguments and results (Function, graph/function.h,
// implements it). Declared with the IR so that the passes that look into called functions
// (inline_functions) depend on the IR alone, not on how functions are traced and compiled.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "ops/function_body.h"

namespace duet {

class GraphBody : public FunctionBody {
 public:
  // The body as traced (Note [Functions] in graph/function.h): arguments are Placeholder nodes.
  virtual const Graph& body() const = 0;
  virtual const std::vector<const Node*>& args() const = 0;
  virtual const std::vector<NodeOutput>& results() const = 0;
};

}  // namespace duet
