#include "python/src/errors.h"

#include <frameobject.h>
#include <nanobind/stl/string.h>

#include <string>

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

std::string PythonSite() {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  if (frame != nullptr) Py_INCREF(frame);
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    std::string site;
    if (file != nullptr && !IsDuetFile(file)) {
      site = absl::StrCat(" (at ", file, ":", PyFrame_GetLineNumber(frame), ")");
    }
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    if (!site.empty()) {
      Py_XDECREF(back);
      return site;
    }
    frame = back;
  }
  PyErr_Clear();
  return "";
}

void init_errors(nb::module_& m) {
  m.def("_set_package_dir", [](const std::string& dir) { PackageDir() = dir + "/"; });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      nb::object errors = nb::module_::import_("duet.errors");
      nb::object cls = errors.attr("_error_class")(static_cast<int>(e.code()));
      const std::string message = absl::StrCat(e.what(), PythonSite());
      PyErr_SetObject(cls.ptr(), nb::make_tuple(nb::none(), nb::none(), message).ptr());
    }
  });
}

}  // namespace duet::python
