// One translation point for errors (STYLE.md): a duet::Error becomes the duet.errors exception of
// its status code, its message followed by the user's Python line.
#pragma once

#include <nanobind/nanobind.h>

namespace duet::python {

// Registers the translator; duet.errors (Python) holds the exception classes by code.
void init_errors(nanobind::module_& m);

// "(at file.py:12)" for the innermost Python frame outside the duet package, or "" when none.
std::string PythonSite();

}  // namespace duet::python
