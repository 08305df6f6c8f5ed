// One translation point for errors (STYLE.md): a duet::Error becomes the duet.errors exception of
// its status code, its message followed by the user's Python line.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "ops/execution_context.h"
#include "ops/op_site.h"

namespace duet::python {

// Registers the translator; duet.errors (Python) holds the exception classes by code.
void init_errors(nanobind::module_& m);

// The OpSite of an op called from Python (Note [Front-end lines] in ops/op_site.h). Eagerly it
// names no line (the translator adds the user's Python line to an error's message: cheaper than
// finding the frame for every op); while a graph or a trace is built it names the user's Python
// file and line, which the node keeps for errors at run time. Inline: every eager op pays it.
SourceLine UserFrame();
inline OpSite PythonCallSite() {
  return executing_eagerly() ? OpSite(SourceLine()) : OpSite(UserFrame());
}

// "(at file.py:12)" for the innermost Python frame outside the duet package, or "" when none.
std::string PythonSite();

// A Python exception raised by user code that C++ called (a dataset function, a py_function) as
// a duet::Error that crosses C++ threads and statuses: "the Python <what> raised:" and the
// traceback. The code: a duet.errors exception's own, OutOfRange for StopIteration (as
// TensorFlow's py_func), InvalidArgument for ValueError and TypeError, else Unknown. Call with
// the GIL held.
[[noreturn]] void RethrowAsError(const nanobind::python_error& e, const std::string& what);

}  // namespace duet::python
