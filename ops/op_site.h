// OpSite: where an op call came from (the user's source line) and the node name it asked for.
#pragma once

#include <source_location>
#include <string>

#include "absl/strings/string_view.h"

namespace duet {

// The last parameter of every op function: `relu(x)` records the caller's file and line, and
// `relu(x, "act")` also names the graph node. Because the default argument is evaluated at the
// call site, the location is the user's line, not a line inside duet.
struct OpSite {
  OpSite(std::source_location loc = std::source_location::current()) : location(loc) {}
  OpSite(const char* name, std::source_location loc = std::source_location::current())
      : name(name), location(loc) {}
  OpSite(const std::string& name, std::source_location loc = std::source_location::current())
      : name(name), location(loc) {}

  // "file.cc:12".
  std::string str() const;

  absl::string_view name;  // empty: named after the op
  std::source_location location;
};

}  // namespace duet
