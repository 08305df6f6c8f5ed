// Python callables kept by C++ code (graph nodes, tapes, traced functions) that may run or drop
// them on threads without the GIL.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>

namespace duet::python {

// Holds `fn`; the holder takes the GIL to drop it. Calls through it must take the GIL
// (nanobind::gil_scoped_acquire) unless the caller is known to hold it.
inline std::shared_ptr<nanobind::object> HoldCallable(nanobind::callable fn) {
  return std::shared_ptr<nanobind::object>(new nanobind::object(std::move(fn)),
                                           [](nanobind::object* o) {
                                             nanobind::gil_scoped_acquire gil;
                                             delete o;
                                           });
}

}  // namespace duet::python
