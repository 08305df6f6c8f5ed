// OpSite: where an op call came from (the user's source line) and the node name it asked for.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>

#include "absl/strings/string_view.h"

namespace duet {

// A file and line: a C++ caller's (from std::source_location), or a front end's, such as the
// Python line that called an op (Note [Front-end lines]). Line 0 means none.
class SourceLine {
 public:
  constexpr SourceLine() = default;
  // `file` must outlive every graph node made with it: a string literal, or an interned string.
  constexpr SourceLine(const char* file, uint32_t line) : file_(file), line_(line) {}
  SourceLine(const std::source_location& loc)  // NOLINT(google-explicit-constructor): OpSite's
      : file_(loc.file_name()), line_(loc.line()) {}

  const char* file_name() const { return file_; }
  uint32_t line() const { return line_; }

 private:
  const char* file_ = "";
  uint32_t line_ = 0;
};

// Note [Front-end lines]: graph nodes and errors name the line that made an op. For C++ callers
// std::source_location gives it at no cost (the default argument below). A front end calling op
// functions for its own users (the Python bindings, python/src/errors.h) passes its user's file
// and line instead, so that a node traced from Python names the Python line that made it.

// The last parameter of every op function: `relu(x)` records the caller's file and line, and
// `relu(x, "act")` also names the graph node. Because the default argument is evaluated at the
// call site, the location is the user's line, not a line inside duet.
struct OpSite {
  OpSite(SourceLine loc = std::source_location::current()) : location(loc) {}
  OpSite(const char* name, SourceLine loc = std::source_location::current())
      : name(name), location(loc) {}
  OpSite(const std::string& name, SourceLine loc = std::source_location::current())
      : name(name), location(loc) {}

  // "file.cc:12".
  std::string str() const;

  absl::string_view name;  // empty: named after the op
  SourceLine location;
};

}  // namespace duet
