// One translation point for errors (STYLE.md): a duet::Error becomes the duet.errors exception of
// its status code, its message followed by the user's Python line.
#pragma once

#include <nanobind/nanobind.h>

#include <source_location>
#include <string>

#include "ops/op_site.h"

namespace duet::python {

// Registers the translator; duet.errors (Python) holds the exception classes by code.
void init_errors(nanobind::module_& m);

// The OpSite of an op called from Python: no C++ line (AnnotateOpError then names none), since
// the translator adds the user's Python line to the message.
inline OpSite PythonCallSite() { return OpSite(std::source_location{}); }

// "(at file.py:12)" for the innermost Python frame outside the duet package, or "" when none.
std::string PythonSite();

}  // namespace duet::python
