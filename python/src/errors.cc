#include "python/src/errors.h"

#include <frameobject.h>
#include <nanobind/stl/string.h>

#include <string>

#include "absl/container/node_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "duet.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

// The duet package's directory (duet/__init__.py sets it): frames there, and in the code it
// generates ("<duet ...>"), are not the user's line.
std::string& PackageDir() {
  static std::string dir;
  return dir;
}

bool IsDuetFile(absl::string_view file) {
  return absl::StartsWith(file, "<duet") ||
         (!PackageDir().empty() && absl::StartsWith(file, PackageDir()));
}

}  // namespace

// The innermost Python frame outside the duet package: its file (interned: graph nodes keep the
// pointer) and line, or line 0 when there is none.
SourceLine UserFrame() {
  static auto* interned = new absl::node_hash_set<std::string>();  // under the GIL
  PyFrameObject* frame = PyEval_GetFrame();                        // borrowed
  if (frame != nullptr) Py_INCREF(frame);
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    SourceLine line;
    if (file != nullptr && !IsDuetFile(file)) {
      line = SourceLine(interned->insert(file).first->c_str(),
                        static_cast<uint32_t>(PyFrame_GetLineNumber(frame)));
    }
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    if (line.line() != 0) {
      Py_XDECREF(back);
      return line;
    }
    frame = back;
  }
  PyErr_Clear();
  return SourceLine();
}

std::string PythonSite() {
  const SourceLine line = UserFrame();
  return line.line() == 0 ? "" : absl::StrCat(" (at ", line.file_name(), ":", line.line(), ")");
}

void RethrowAsError(const nb::python_error& e, const std::string& what) {
  absl::StatusCode code = absl::StatusCode::kUnknown;
  nb::module_ errors = nb::module_::import_("duet.errors");
  if (e.matches(errors.attr("OpError"))) {
    code = static_cast<absl::StatusCode>(nb::cast<int>(e.value().attr("error_code")));
  } else if (e.matches(PyExc_StopIteration)) {
    code = absl::StatusCode::kOutOfRange;
  } else if (e.matches(PyExc_ValueError) || e.matches(PyExc_TypeError)) {
    code = absl::StatusCode::kInvalidArgument;
  }
  nb::object lines = nb::module_::import_("traceback")
                         .attr("format_exception")(e.type(), e.value(), e.traceback());
  const std::string text = nb::cast<std::string>(nb::str("").attr("join")(lines));
  throw Error(absl::Status(code, absl::StrCat("the Python ", what, " raised:\n", text)));
}

void init_errors(nb::module_& m) {
  m.def("_set_package_dir", [](const std::string& dir) { PackageDir() = dir + "/"; });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      nb::object errors = nb::module_::import_("duet.errors");
      nb::object cls = errors.attr("_error_class")(static_cast<int>(e.code()));
      // A message naming a line already (an op built in a graph from Python, a node failing in
      // Session.run) keeps it; an eager op's names the Python line that called it.
      const bool has_line =
          absl::StrContains(e.what(), " (at ") || absl::StrContains(e.what(), ", at ");
      const std::string message = absl::StrCat(e.what(), has_line ? "" : PythonSite());
      PyErr_SetObject(cls.ptr(), nb::make_tuple(nb::none(), nb::none(), message).ptr());
    }
  });
}

}  // namespace duet::python
