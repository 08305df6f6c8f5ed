// docs/ops.md, generated from the op registry (the single source of truth).
#pragma once

#include <string>

namespace duet {

// A Markdown page listing every registered op: signature, attrs with defaults, flags, doc line;
// then the ops that differ from TensorFlow on purpose, with how (OpDef::tf_difference).
std::string RegisteredOpsMarkdown();

}  // namespace duet
