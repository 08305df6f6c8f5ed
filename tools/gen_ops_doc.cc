// Prints the Markdown op list generated from the registry (docs/ops.md).
#include <iostream>

#include "ops/op_docs.h"

int main() {
  std::cout << duet::RegisteredOpsMarkdown();
  return 0;
}
