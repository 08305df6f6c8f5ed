// duet.optimizers: the C++ optimizers (optimizers/) and learning-rate schedules under Keras'
// names and arguments. The updates are the C++ ones (TensorFlow's fused resource ops), so the same
// optimizer runs eagerly, inside duet.function and in a graph.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "duet.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;
namespace opt = duet::optimizers;

namespace duet::python {
namespace {

// A learning rate: a number or one of the bound schedules.
opt::LearningRate LearningRateArg(nb::handle value) {
  if (nb::isinstance<opt::ExponentialDecay>(value)) {
    return nb::cast<opt::ExponentialDecay>(value);
  }
  if (nb::isinstance<opt::PiecewiseConstantDecay>(value)) {
    return nb::cast<opt::PiecewiseConstantDecay>(value);
  }
  if (nb::isinstance<opt::CosineDecay>(value)) return nb::cast<opt::CosineDecay>(value);
  if (!PyFloat_Check(value.ptr()) && !PyLong_Check(value.ptr())) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("learning_rate: a number or a duet.optimizers.schedules schedule, not a ",
                     nb::cast<std::string>(nb::type_name(value.type())))));
  }
  return nb::cast<double>(value);
}

opt::ClipOptions ClipArg(std::optional<double> clipnorm, std::optional<double> global_clipnorm) {
  return {.clipnorm = clipnorm, .global_clipnorm = global_clipnorm};
}

// The keyword arguments every optimizer ends with (Keras' names).
#define DUET_CLIP_ARGS \
  nb::arg("clipnorm").none() = nb::none(), nb::arg("global_clipnorm").none() = nb::none()

template <typename Schedule>
void DefScheduleCall(nb::class_<Schedule>& cls) {
  cls.def(
      "__call__",
      [](const Schedule& s, nb::handle step) { return s(ToTensor(step, "step", kFloat32)); },
      nb::arg("step"), "The learning rate at `step` (float32).");
}

}  // namespace

void init_optimizers(nb::module_& m) {
  nb::class_<opt::ExponentialDecay> exponential(m, "ExponentialDecay");
  exponential.def(nb::init<double, double, double, bool>(), nb::arg("initial_learning_rate"),
                  nb::arg("decay_steps"), nb::arg("decay_rate"), nb::arg("staircase") = false);
  DefScheduleCall(exponential);
  nb::class_<opt::PiecewiseConstantDecay> piecewise(m, "PiecewiseConstantDecay");
  piecewise.def(nb::init<std::vector<double>, std::vector<double>>(), nb::arg("boundaries"),
                nb::arg("values"));
  DefScheduleCall(piecewise);
  nb::class_<opt::CosineDecay> cosine(m, "CosineDecay");
  cosine.def(nb::init<double, double, double, std::optional<double>, double>(),
             nb::arg("initial_learning_rate"), nb::arg("decay_steps"), nb::arg("alpha") = 0.0,
             nb::arg("warmup_target").none() = nb::none(), nb::arg("warmup_steps") = 0.0);
  DefScheduleCall(cosine);

  nb::class_<opt::Optimizer>(m, "Optimizer")
      // apply_gradients(grads_and_vars): pairs (gradient, variable) as Keras takes them; a None
      // gradient skips its variable with one warning. Returns the new step count.
      .def(
          "apply_gradients",
          [](opt::Optimizer& o, nb::iterable grads_and_vars) {
            std::vector<Tensor> grads;
            std::vector<Variable> variables;
            for (nb::handle pair : grads_and_vars) {
              nb::sequence items = nb::borrow<nb::sequence>(pair);
              if (nb::len(items) != 2 || !nb::isinstance<Variable>(items[1])) {
                throw Error(absl::InvalidArgumentError(
                    "apply_gradients: each item is a (gradient, duet.Variable) pair"));
              }
              nb::object grad = items[0];
              grads.push_back(grad.is_none() ? Tensor() : ToTensor(grad, "gradient"));
              variables.push_back(nb::cast<Variable>(items[1]));
            }
            return o.apply_gradients(grads, variables, PythonCallSite());
          },
          nb::arg("grads_and_vars"))
      // minimize(loss, var_list): loss() under a GradientTape, then its gradients applied.
      .def(
          "minimize",
          [](opt::Optimizer& o, nb::callable loss, std::vector<Variable> var_list) {
            return o.minimize([&] { return ToTensor(loss(), "loss"); }, var_list, PythonCallSite());
          },
          nb::arg("loss"), nb::arg("var_list"))
      .def_prop_ro("iterations", [](opt::Optimizer& o) { return o.iterations(); })
      .def_prop_ro("name", &opt::Optimizer::name)
      .def_prop_ro("learning_rate",
                   [](const opt::Optimizer& o) { return o.learning_rate(kFloat32); })
      .def_prop_ro("variables", &opt::Optimizer::variables,
                   "The step count, then each updated variable's slots (as checkpoints list them).")
      .def("slot", &opt::Optimizer::slot, nb::arg("variable"), nb::arg("slot_name"));

  nb::class_<opt::SGD, opt::Optimizer>(m, "SGD").def(
      "__init__",
      [](opt::SGD* self, nb::handle learning_rate, double momentum, bool nesterov,
         std::optional<double> clipnorm, std::optional<double> global_clipnorm) {
        new (self) opt::SGD(LearningRateArg(learning_rate), momentum, nesterov,
                            ClipArg(clipnorm, global_clipnorm));
      },
      nb::arg("learning_rate") = 0.01, nb::arg("momentum") = 0.0, nb::arg("nesterov") = false,
      DUET_CLIP_ARGS);

  auto adam_options = [](double beta_1, double beta_2, double epsilon, bool amsgrad,
                         std::optional<double> clipnorm, std::optional<double> global_clipnorm) {
    return opt::AdamOptions{.beta_1 = beta_1,
                            .beta_2 = beta_2,
                            .epsilon = epsilon,
                            .amsgrad = amsgrad,
                            .clip = ClipArg(clipnorm, global_clipnorm)};
  };
  nb::class_<opt::Adam, opt::Optimizer>(m, "Adam").def(
      "__init__",
      [adam_options](opt::Adam* self, nb::handle learning_rate, double beta_1, double beta_2,
                     double epsilon, bool amsgrad, std::optional<double> clipnorm,
                     std::optional<double> global_clipnorm) {
        new (self)
            opt::Adam(LearningRateArg(learning_rate),
                      adam_options(beta_1, beta_2, epsilon, amsgrad, clipnorm, global_clipnorm));
      },
      nb::arg("learning_rate") = 0.001, nb::arg("beta_1") = 0.9, nb::arg("beta_2") = 0.999,
      nb::arg("epsilon") = 1e-7, nb::arg("amsgrad") = false, DUET_CLIP_ARGS);
  nb::class_<opt::AdamW, opt::Adam>(m, "AdamW")
      .def(
          "__init__",
          [adam_options](opt::AdamW* self, nb::handle learning_rate, double weight_decay,
                         double beta_1, double beta_2, double epsilon, bool amsgrad,
                         std::optional<double> clipnorm, std::optional<double> global_clipnorm) {
            new (self) opt::AdamW(
                LearningRateArg(learning_rate), weight_decay,
                adam_options(beta_1, beta_2, epsilon, amsgrad, clipnorm, global_clipnorm));
          },
          nb::arg("learning_rate") = 0.001, nb::arg("weight_decay") = 0.004,
          nb::arg("beta_1") = 0.9, nb::arg("beta_2") = 0.999, nb::arg("epsilon") = 1e-7,
          nb::arg("amsgrad") = false, DUET_CLIP_ARGS);
  nb::class_<opt::RMSProp, opt::Optimizer>(m, "RMSprop")
      .def(
          "__init__",
          [](opt::RMSProp* self, nb::handle learning_rate, double rho, double momentum,
             double epsilon, bool centered, std::optional<double> clipnorm,
             std::optional<double> global_clipnorm) {
            new (self) opt::RMSProp(LearningRateArg(learning_rate),
                                    {.rho = rho,
                                     .momentum = momentum,
                                     .epsilon = epsilon,
                                     .centered = centered,
                                     .clip = ClipArg(clipnorm, global_clipnorm)});
          },
          nb::arg("learning_rate") = 0.001, nb::arg("rho") = 0.9, nb::arg("momentum") = 0.0,
          nb::arg("epsilon") = 1e-7, nb::arg("centered") = false, DUET_CLIP_ARGS);
  nb::class_<opt::Adagrad, opt::Optimizer>(m, "Adagrad")
      .def(
          "__init__",
          [](opt::Adagrad* self, nb::handle learning_rate, double initial_accumulator_value,
             double epsilon, std::optional<double> clipnorm,
             std::optional<double> global_clipnorm) {
            new (self) opt::Adagrad(LearningRateArg(learning_rate),
                                    {.initial_accumulator_value = initial_accumulator_value,
                                     .epsilon = epsilon,
                                     .clip = ClipArg(clipnorm, global_clipnorm)});
          },
          nb::arg("learning_rate") = 0.001, nb::arg("initial_accumulator_value") = 0.1,
          nb::arg("epsilon") = 1e-7, DUET_CLIP_ARGS);
}

#undef DUET_CLIP_ARGS

}  // namespace duet::python
