// TensorFlow's formats from Python: duet.train.Checkpoint over variables, modules (Python models,
// C++ layers, metrics) and optimizers (io/checkpoint/checkpoint.h), and SavedModels loaded
// (io/saved_model/loader.h; saving is duet.function's, in function.cc).
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "duet.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

// The C++ Checkpoint and the Python objects its roots point into, which it keeps alive.
struct PyCheckpoint {
  std::vector<nb::object> keep;
  std::unique_ptr<Checkpoint> checkpoint;
};

}  // namespace

void init_io(nb::module_& m) {
  nb::class_<CheckpointLoadStatus>(m, "CheckpointLoadStatus")
      .def("assert_consumed", &CheckpointLoadStatus::assert_consumed, nb::rv_policy::reference)
      .def("assert_existing_objects_matched",
           &CheckpointLoadStatus::assert_existing_objects_matched, nb::rv_policy::reference)
      .def("expect_partial", &CheckpointLoadStatus::expect_partial, nb::rv_policy::reference)
      .def("unused_values", &CheckpointLoadStatus::unused_values)
      .def("unrestored_variables", &CheckpointLoadStatus::unrestored_variables);

  nb::class_<PyCheckpoint>(m, "_Checkpoint")
      // roots: (name, object) pairs: Variables, optimizers and modules.
      .def("__init__",
           [](PyCheckpoint* self, std::vector<std::pair<std::string, nb::object>> roots) {
             new (self) PyCheckpoint();
             std::vector<std::pair<std::string, Trackable>> objects;
             for (auto& [name, object] : roots) {
               if (nb::isinstance<Variable>(object)) {
                 objects.emplace_back(name, Trackable(nb::inst_ptr<Variable>(object)));
               } else if (nb::isinstance<optimizers::Optimizer>(object)) {
                 objects.emplace_back(name, Trackable(nb::inst_ptr<optimizers::Optimizer>(object)));
               } else if (nb::isinstance<nn::Module>(object)) {
                 objects.emplace_back(name, Trackable(nb::inst_ptr<nn::Module>(object)));
               } else {
                 throw Error(absl::InvalidArgumentError(absl::StrCat(
                     "Checkpoint: '", name, "' is a ",
                     nb::cast<std::string>(nb::type_name(object.type())),
                     "; duet.train.Checkpoint takes duet.Variables, optimizers and duet.nn.Modules "
                     "(models, layers, metrics)")));
               }
               self->keep.push_back(object);
             }
             self->checkpoint = std::make_unique<Checkpoint>(std::move(objects));
           })
      .def("save",
           [](PyCheckpoint& c, const std::string& prefix) {
             nb::gil_scoped_release release;
             return c.checkpoint->save(prefix);
           })
      .def("write",
           [](PyCheckpoint& c, const std::string& path) {
             nb::gil_scoped_release release;
             return c.checkpoint->write(path);
           })
      // The status refers to the checkpoint's state (deferred restores, what matched), so it
      // keeps the checkpoint alive: `Checkpoint(...).restore(p).assert_consumed()` is common.
      .def(
          "restore",
          [](PyCheckpoint& c, const std::string& path) {
            nb::gil_scoped_release release;
            return c.checkpoint->restore(path);
          },
          nb::keep_alive<0, 1>())
      .def_prop_ro("save_counter", [](PyCheckpoint& c) { return c.checkpoint->save_counter(); });

  nb::class_<CheckpointManager>(m, "_CheckpointManager")
      .def(
          "__init__",
          [](CheckpointManager* self, PyCheckpoint& checkpoint, const std::string& directory,
             int max_to_keep, const std::string& checkpoint_name) {
            new (self)
                CheckpointManager(*checkpoint.checkpoint, directory, max_to_keep, checkpoint_name);
          },
          nb::arg("checkpoint"), nb::arg("directory"), nb::arg("max_to_keep"),
          nb::arg("checkpoint_name"), nb::keep_alive<1, 2>())
      .def("save",
           [](CheckpointManager& manager) {
             nb::gil_scoped_release release;
             return manager.save();
           })
      .def_prop_ro("latest_checkpoint",
                   [](const CheckpointManager& manager) -> std::optional<std::string> {
                     std::string latest = manager.latest_checkpoint();
                     if (latest.empty()) return std::nullopt;
                     return latest;
                   })
      .def_prop_ro("checkpoints", &CheckpointManager::checkpoints)
      .def_prop_ro("directory", &CheckpointManager::directory);
  m.def("latest_checkpoint", &latest_checkpoint, nb::arg("directory"));

  // A SavedModel (TensorFlow's, Keras' export or duet's) and its signatures.
  nb::class_<saved_model::LoadedModel>(m, "_LoadedModel")
      .def_prop_ro("signature_keys", &saved_model::LoadedModel::signatures)
      .def("input_names",
           [](const saved_model::LoadedModel& model, const std::string& key) {
             std::vector<std::string> names;
             for (const auto& [name, info] : model.signature_def(key).inputs()) {
               names.push_back(name);
             }
             return names;
           })
      .def("call", [](const saved_model::LoadedModel& model, const std::string& key,
                      std::map<std::string, Tensor> inputs) {
        nb::gil_scoped_release release;
        return model.call(key, inputs);
      });
  m.def(
      "_load_saved_model",
      [](const std::string& dir, const std::string& tag) {
        nb::gil_scoped_release release;
        return saved_model::load(dir, tag);
      },
      nb::arg("dir"), nb::arg("tag") = "serve");
}

}  // namespace duet::python
