// Loop twins: the accumulating copy of a forward While that a While gradient runs (Note [While
// gradients] in graph/control_flow_grads.cc), recorded so that the merge_loop_twins pass can run
// one loop instead of two.
#pragma once

#include <memory>

#include "ops/attr_value.h"

namespace duet {

// Records that a loop whose body is `twin` computes, in its first loop variables, exactly what a
// loop of body `forward` computes from the same inputs (the rest are accumulators).
void RecordLoopTwin(const std::shared_ptr<const FunctionBody>& twin,
                    const std::shared_ptr<const FunctionBody>& forward);

// The forward body `twin` was recorded for, or nullptr (also once either body is gone).
const FunctionBody* ForwardOfLoopTwin(const FunctionBody* twin);

}  // namespace duet
