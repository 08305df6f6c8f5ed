// Control-flow op functions: NoOp (a node that only orders others through control edges).
#pragma once

#include "ops/op_site.h"

namespace duet {

// Does nothing (op NoOp). In a graph, inside ControlDependencies, it gathers control inputs into
// one node that a Session::run target can name (TensorFlow's tf.group).
void no_op(OpSite site = {});

}  // namespace duet
