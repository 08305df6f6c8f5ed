// duet.summary's C++ half: summary::FileWriter (io/summary/file_writer.h), TensorBoard's event
// files. duet/summary.py adds tf.summary's default writer and step.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "duet.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

// Calls write(step) with the step as the writer takes it: a Python int as an int64 (fixed when a
// function is traced), anything else as an integer scalar tensor.
template <typename Write>
void AtStep(nb::handle step, Write write) {
  if (PyLong_Check(step.ptr()) && !PyBool_Check(step.ptr())) {
    write(nb::cast<int64_t>(step));
  } else {
    write(ToTensor(step, "step"));
  }
}

}  // namespace

void init_summary(nb::module_& m) {
  nb::class_<summary::FileWriter>(m, "_FileWriter")
      .def(
          "__init__",
          [](summary::FileWriter* self, const std::string& logdir, int max_queue, double flush_secs,
             int64_t record_every_n_steps, const std::string& suffix) {
            summary::FileWriterOptions options;
            options.max_queue = max_queue;
            options.flush_secs = flush_secs;
            options.record_every_n_steps = record_every_n_steps;
            options.filename_suffix = suffix;
            new (self) summary::FileWriter(logdir, options);
          },
          nb::arg("logdir"), nb::arg("max_queue"), nb::arg("flush_secs"),
          nb::arg("record_every_n_steps"), nb::arg("filename_suffix"))
      .def(
          "scalar",
          [](summary::FileWriter& w, const std::string& tag, nb::handle value, nb::handle step) {
            const Tensor v = ToTensor(value, "data");
            AtStep(step, [&](const auto& at) { w.scalar(tag, v, at); });
          },
          nb::arg("tag"), nb::arg("data"), nb::arg("step"))
      .def(
          "histogram",
          [](summary::FileWriter& w, const std::string& tag, nb::handle values, nb::handle step) {
            const Tensor v = ToTensor(values, "data");
            AtStep(step, [&](const auto& at) { w.histogram(tag, v, at); });
          },
          nb::arg("tag"), nb::arg("data"), nb::arg("step"))
      .def(
          "image",
          [](summary::FileWriter& w, const std::string& tag, nb::handle images, nb::handle step,
             int max_outputs) {
            const Tensor v = ToTensor(images, "data");
            AtStep(step, [&](const auto& at) { w.image(tag, v, at, max_outputs); });
          },
          nb::arg("tag"), nb::arg("data"), nb::arg("step"), nb::arg("max_outputs"))
      .def(
          "text",
          [](summary::FileWriter& w, const std::string& tag, const std::string& text,
             nb::handle step) { AtStep(step, [&](const auto& at) { w.text(tag, text, at); }); },
          nb::arg("tag"), nb::arg("data"), nb::arg("step"))
      .def(
          "graph", [](summary::FileWriter& w, const Graph& graph) { w.graph(graph); },
          nb::arg("graph"))
      .def("flush", &summary::FileWriter::flush, nb::call_guard<nb::gil_scoped_release>())
      .def("close", &summary::FileWriter::close, nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("path", &summary::FileWriter::path);
}

}  // namespace duet::python
