// duet.losses' C++ half: Keras' losses (nn/losses/) with the reduction by Keras' name.
// duet/losses.py holds the Keras-style classes and functions over these.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "duet.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

// Keras' reduction names: "sum_over_batch_size" (the mean over every element), "sum", "none".
losses::Reduction ReductionArg(const std::string& reduction) {
  if (reduction == "sum_over_batch_size") return losses::Reduction::kMean;
  if (reduction == "sum") return losses::Reduction::kSum;
  if (reduction == "none") return losses::Reduction::kNone;
  throw Error(absl::InvalidArgumentError(absl::StrCat(
      "reduction: \"sum_over_batch_size\", \"sum\" or \"none\", not \"", reduction, "\"")));
}

}  // namespace

void init_losses(nb::module_& m) {
  // Each: (y_true, y_pred, options..., reduction); Keras' argument names.
  m.def(
      "_sparse_categorical_crossentropy",
      [](nb::handle y_true, nb::handle y_pred, bool from_logits, const std::string& reduction) {
        return losses::sparse_categorical_crossentropy(ToTensor(y_true, "y_true"),
                                                       ToTensor(y_pred, "y_pred"), from_logits,
                                                       ReductionArg(reduction), PythonCallSite());
      },
      nb::arg("y_true"), nb::arg("y_pred"), nb::arg("from_logits"), nb::arg("reduction"));
  m.def(
      "_categorical_crossentropy",
      [](nb::handle y_true, nb::handle y_pred, bool from_logits, double label_smoothing,
         const std::string& reduction) {
        return losses::categorical_crossentropy(
            ToTensor(y_true, "y_true"), ToTensor(y_pred, "y_pred"), from_logits, label_smoothing,
            ReductionArg(reduction), PythonCallSite());
      },
      nb::arg("y_true"), nb::arg("y_pred"), nb::arg("from_logits"), nb::arg("label_smoothing"),
      nb::arg("reduction"));
  m.def(
      "_binary_crossentropy",
      [](nb::handle y_true, nb::handle y_pred, bool from_logits, double label_smoothing,
         const std::string& reduction) {
        return losses::binary_crossentropy(ToTensor(y_true, "y_true"), ToTensor(y_pred, "y_pred"),
                                           from_logits, label_smoothing, ReductionArg(reduction),
                                           PythonCallSite());
      },
      nb::arg("y_true"), nb::arg("y_pred"), nb::arg("from_logits"), nb::arg("label_smoothing"),
      nb::arg("reduction"));
  m.def(
      "_mean_squared_error",
      [](nb::handle y_true, nb::handle y_pred, const std::string& reduction) {
        return losses::mean_squared_error(ToTensor(y_true, "y_true"), ToTensor(y_pred, "y_pred"),
                                          ReductionArg(reduction), PythonCallSite());
      },
      nb::arg("y_true"), nb::arg("y_pred"), nb::arg("reduction"));
  m.def(
      "_mean_absolute_error",
      [](nb::handle y_true, nb::handle y_pred, const std::string& reduction) {
        return losses::mean_absolute_error(ToTensor(y_true, "y_true"), ToTensor(y_pred, "y_pred"),
                                           ReductionArg(reduction), PythonCallSite());
      },
      nb::arg("y_true"), nb::arg("y_pred"), nb::arg("reduction"));
  m.def(
      "_huber",
      [](nb::handle y_true, nb::handle y_pred, double delta, const std::string& reduction) {
        return losses::huber(ToTensor(y_true, "y_true"), ToTensor(y_pred, "y_pred"), delta,
                             ReductionArg(reduction), PythonCallSite());
      },
      nb::arg("y_true"), nb::arg("y_pred"), nb::arg("delta"), nb::arg("reduction"));
}

}  // namespace duet::python
