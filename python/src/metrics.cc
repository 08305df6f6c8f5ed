// duet.metrics: the C++ streaming metrics (nn/metrics/) under Keras' names: update_state,
// result, reset_state, and calling a metric (update_state, then result). Their state is C++
// variables, so a metric accumulates eagerly, inside duet.function and in a graph alike.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>

#include "duet.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

Tensor WeightArg(nb::handle sample_weight) {
  return sample_weight.is_none() ? Tensor() : ToTensor(sample_weight, "sample_weight");
}

// Mean and Sum: update_state(values, sample_weight=None).
template <typename M>
void DefValueMetric(nb::class_<M, metrics::Metric>& cls, const char* default_name) {
  cls.def(nb::init<std::string>(), nb::arg("name") = default_name)
      .def(
          "update_state",
          [](M& metric, nb::handle values, nb::handle sample_weight) {
            metric.update_state(ToTensor(values, "values"), WeightArg(sample_weight),
                                PythonCallSite());
          },
          nb::arg("values"), nb::arg("sample_weight").none() = nb::none())
      .def(
          "__call__",
          [](M& metric, nb::handle values, nb::handle sample_weight) {
            return metric(ToTensor(values, "values"), WeightArg(sample_weight), PythonCallSite());
          },
          nb::arg("values"), nb::arg("sample_weight").none() = nb::none());
}

// The metrics of labels and predictions: update_state(y_true, y_pred, sample_weight=None).
template <typename M>
void DefLabelMetric(nb::class_<M, metrics::Metric>& cls) {
  cls.def(
         "update_state",
         [](M& metric, nb::handle y_true, nb::handle y_pred, nb::handle sample_weight) {
           metric.update_state(ToTensor(y_true, "y_true"), ToTensor(y_pred, "y_pred"),
                               WeightArg(sample_weight), PythonCallSite());
         },
         nb::arg("y_true"), nb::arg("y_pred"), nb::arg("sample_weight").none() = nb::none())
      .def(
          "__call__",
          [](M& metric, nb::handle y_true, nb::handle y_pred, nb::handle sample_weight) {
            return metric(ToTensor(y_true, "y_true"), ToTensor(y_pred, "y_pred"),
                          WeightArg(sample_weight), PythonCallSite());
          },
          nb::arg("y_true"), nb::arg("y_pred"), nb::arg("sample_weight").none() = nb::none());
}

template <typename M>
void DefNamedLabelMetric(nb::module_& m, const char* cls_name, const char* default_name) {
  nb::class_<M, metrics::Metric> cls(m, cls_name);
  cls.def(nb::init<std::string>(), nb::arg("name") = default_name);
  DefLabelMetric(cls);
}

template <typename M>
void DefThresholdMetric(nb::module_& m, const char* cls_name, const char* default_name) {
  nb::class_<M, metrics::Metric> cls(m, cls_name);
  cls.def(nb::init<double, std::string>(), nb::arg("thresholds") = 0.5,
          nb::arg("name") = default_name);
  DefLabelMetric(cls);
}

}  // namespace

void init_metrics(nb::module_& m) {
  nb::class_<metrics::Metric, nn::Module>(m, "Metric")
      .def("result", &metrics::Metric::result)
      .def("reset_state", &metrics::Metric::reset_state);

  nb::class_<metrics::Mean, metrics::Metric> mean(m, "Mean");
  DefValueMetric(mean, "mean");
  nb::class_<metrics::Sum, metrics::Metric> sum(m, "Sum");
  DefValueMetric(sum, "sum");
  DefNamedLabelMetric<metrics::Accuracy>(m, "Accuracy", "accuracy");
  DefNamedLabelMetric<metrics::SparseCategoricalAccuracy>(m, "SparseCategoricalAccuracy",
                                                          "sparse_categorical_accuracy");
  DefNamedLabelMetric<metrics::CategoricalAccuracy>(m, "CategoricalAccuracy",
                                                    "categorical_accuracy");
  DefThresholdMetric<metrics::Precision>(m, "Precision", "precision");
  DefThresholdMetric<metrics::Recall>(m, "Recall", "recall");
  nb::class_<metrics::AUC, metrics::Metric> auc(m, "AUC");
  auc.def(nb::init<int64_t, std::string>(), nb::arg("num_thresholds") = 200,
          nb::arg("name") = "auc");
  DefLabelMetric(auc);
}

}  // namespace duet::python
