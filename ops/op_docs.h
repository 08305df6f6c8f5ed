// docs/ops.md, generated from the op registry (the single source of truth).
#pragma once

#include <string>

namespace duet {

// A Markdown page listing every registered op: signature, attrs with defaults, flags, doc line.
std::string RegisteredOpsMarkdown();

}  // namespace duet
