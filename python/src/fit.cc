// duet.fit's C++ half: the C++ fit (train/fit.h) over a Python model, loss and callbacks, and
// the built-in callbacks under Keras' names. fit traces its step (a duet::function) on the
// first batch: the model and the loss run in Python then, and every later step runs the plan
// with the GIL released, so an epoch costs what it costs from C++ (docs/benchmarks.md).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "duet.h"
#include "python/src/callables.h"
#include "python/src/convert.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

MonitorMode ModeArg(const std::string& mode) {
  if (mode == "auto") return MonitorMode::kAuto;
  if (mode == "min") return MonitorMode::kMin;
  if (mode == "max") return MonitorMode::kMax;
  throw Error(
      absl::InvalidArgumentError(absl::StrCat("mode '", mode, "': one of 'auto', 'min', 'max'")));
}

nb::dict LogsDict(const Logs& logs) {
  nb::dict out;
  for (const auto& [name, value] : logs.items()) out[name.c_str()] = value;
  return out;
}

// A Python callback (duet.callbacks.Callback): each event it overrides calls its
// _duet_event(name, index, logs) with the GIL; a true result asks fit to stop after this epoch
// (Keras' model.stop_training). Events it does not override cost nothing (the per-step one
// would take the GIL at every step).
class PythonCallback : public Callback {
 public:
  explicit PythonCallback(nb::object callback)
      : callback_(HoldCallable(nb::borrow<nb::callable>(callback.attr("_duet_event")))),
        per_step_(nb::cast<bool>(callback.attr("_duet_overrides")("on_train_batch_end"))) {}

  void on_train_begin(TrainingState& state) override { Event("train_begin", -1, nullptr, state); }
  void on_epoch_begin(int epoch, TrainingState& state) override {
    Event("epoch_begin", epoch, nullptr, state);
  }
  void on_train_batch_end(int64_t step, const Logs& logs, TrainingState& state) override {
    if (per_step_) Event("train_batch_end", step, &logs, state);
  }
  void on_epoch_end(int epoch, const Logs& logs, TrainingState& state) override {
    Event("epoch_end", epoch, &logs, state);
  }
  void on_train_end(const Logs& logs, TrainingState& state) override {
    Event("train_end", -1, &logs, state);
  }

 private:
  void Event(const char* name, int64_t index, const Logs* logs, TrainingState& state) {
    nb::gil_scoped_acquire gil;
    nb::object params = nb::dict();
    params["epochs"] = state.epochs;
    params["steps"] = state.steps_per_epoch;
    nb::object stop =
        (*callback_)(name, index, logs ? nb::object(LogsDict(*logs)) : nb::none(), params);
    if (nb::cast<bool>(stop)) state.stop_training = true;
  }

  std::shared_ptr<nb::object> callback_;
  bool per_step_;
};

// A metric fit updates with (y_true, y_pred): the bound metrics that take labels.
template <typename M, typename... Rest>
FitMetric MetricArg(nb::handle metric) {
  if (nb::isinstance<M>(metric)) return FitMetric(nb::cast<std::shared_ptr<M>>(metric));
  if constexpr (sizeof...(Rest) > 0) {
    return MetricArg<Rest...>(metric);
  } else {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("fit: metrics: a metric of labels and predictions (Accuracy, "
                     "SparseCategoricalAccuracy, CategoricalAccuracy, Precision, Recall, AUC), "
                     "not a ",
                     nb::cast<std::string>(nb::type_name(metric.type())))));
  }
}

History Fit(nb::object model, nb::callable forward, nb::callable loss,
            optimizers::Optimizer& optimizer, const data::Dataset& train,
            std::optional<data::Dataset> validation, std::vector<nb::object> metrics,
            std::vector<nb::object> callbacks, int epochs, int initial_epoch,
            int64_t steps_per_epoch, int64_t validation_steps, bool run_eagerly,
            const distribute::Communicator* distribute) {
  FitOptions options{.epochs = epochs,
                     .initial_epoch = initial_epoch,
                     .validation = std::move(validation),
                     .steps_per_epoch = steps_per_epoch,
                     .validation_steps = validation_steps,
                     .run_eagerly = run_eagerly,
                     .distribute = distribute};
  for (const nb::object& metric : metrics) {
    options.metrics.push_back(
        MetricArg<metrics::SparseCategoricalAccuracy, metrics::CategoricalAccuracy,
                  metrics::Accuracy, metrics::Precision, metrics::Recall, metrics::AUC>(metric));
  }
  for (const nb::object& callback : callbacks) {
    if (nb::isinstance<Callback>(callback)) {
      options.callbacks.emplace_back(nb::cast<std::shared_ptr<Callback>>(callback));
    } else {
      options.callbacks.emplace_back(std::make_shared<PythonCallback>(callback));
    }
  }
  auto held_forward = HoldCallable(std::move(forward));
  auto held_loss = HoldCallable(std::move(loss));
  ForwardFn forward_fn = [held_forward](const Tensor& x, bool training) {
    nb::gil_scoped_acquire gil;
    return ToTensor((*held_forward)(x, training), "the model's output");
  };
  LossFn loss_fn = [held_loss](const Tensor& y_true, const Tensor& y_pred) {
    nb::gil_scoped_acquire gil;
    return ToTensor((*held_loss)(y_true, y_pred), "the loss");
  };
  nn::Module& module = *nb::inst_ptr<nn::Module>(model);
  nb::gil_scoped_release release;
  return fit(module, std::move(forward_fn), std::move(loss_fn), optimizer, train,
             std::move(options));
}

}  // namespace

void init_fit(nb::module_& m) {
  nb::class_<History>(m, "History")
      .def_ro("epoch", &History::epoch)
      .def_prop_ro("history", [](const History& h) {
        nb::dict out;
        for (const auto& [name, values] : h.history) {
          nb::list list;
          for (double v : values) list.append(v);
          out[name.c_str()] = list;
        }
        return out;
      });

  m.def("_fit", &Fit, nb::arg("model"), nb::arg("forward"), nb::arg("loss"), nb::arg("optimizer"),
        nb::arg("train"), nb::arg("validation").none(), nb::arg("metrics"), nb::arg("callbacks"),
        nb::arg("epochs"), nb::arg("initial_epoch"), nb::arg("steps_per_epoch"),
        nb::arg("validation_steps"), nb::arg("run_eagerly"), nb::arg("distribute").none());

  nb::class_<Callback>(m, "_CxxCallback");
  nb::class_<ProgressBar, Callback>(m, "ProgressBar",
                                    "Keras' progress bar: a line per epoch with its loss and "
                                    "metrics (one updating line on a terminal).")
      .def(
          "__init__",
          [](ProgressBar* self, std::optional<bool> terminal) {
            new (self) ProgressBar(ProgressBarOptions{.terminal = terminal});
          },
          nb::arg("terminal").none() = nb::none());
  nb::class_<TensorBoard, Callback>(m, "TensorBoard",
                                    "Keras' TensorBoard callback: epoch_loss, epoch_<metric> "
                                    "(and per-batch values every update_freq batches) under "
                                    "log_dir/train and log_dir/validation.")
      .def(nb::init<std::string, int64_t>(), nb::arg("log_dir") = "logs",
           nb::arg("update_freq") = 0);
  nb::class_<ModelCheckpoint, Callback>(m, "_ModelCheckpoint")
      .def(
          "__init__",
          [](ModelCheckpoint* self, CheckpointManager& manager, bool save_best_only,
             const std::string& monitor, const std::string& mode) {
            new (self)
                ModelCheckpoint(manager, ModelCheckpointOptions{.save_best_only = save_best_only,
                                                                .monitor = monitor,
                                                                .mode = ModeArg(mode)});
          },
          nb::arg("manager"), nb::arg("save_best_only"), nb::arg("monitor"), nb::arg("mode"),
          nb::keep_alive<1, 2>())
      .def_prop_ro("last_saved", &ModelCheckpoint::last_saved);
  nb::class_<EarlyStopping, Callback>(m, "EarlyStopping",
                                      "Keras' EarlyStopping: ends fit after `patience` epochs "
                                      "without improvement of `monitor`.")
      .def(
          "__init__",
          [](EarlyStopping* self, const std::string& monitor, double min_delta, int patience,
             const std::string& mode, bool restore_best_weights) {
            new (self)
                EarlyStopping(EarlyStoppingOptions{.monitor = monitor,
                                                   .min_delta = min_delta,
                                                   .patience = patience,
                                                   .mode = ModeArg(mode),
                                                   .restore_best_weights = restore_best_weights});
          },
          nb::arg("monitor") = "val_loss", nb::arg("min_delta") = 0.0, nb::arg("patience") = 0,
          nb::arg("mode") = "auto", nb::arg("restore_best_weights") = false)
      .def_prop_ro("stopped_epoch", &EarlyStopping::stopped_epoch)
      .def_prop_ro("best_epoch", &EarlyStopping::best_epoch);
}

}  // namespace duet::python
