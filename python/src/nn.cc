// duet.nn's classes: nn::Module as a class Python subclasses, the C++ layers under Keras' names
// and arguments, and the initializers (Note [Python modules]).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/trampoline.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "duet.h"
#include "python/src/callables.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

// Note [Python modules]
// ~~~~~~~~~~~~~~~~~~~~~
// Every Python model is an nn::Module, so that checkpoints, optimizers and fit see one object
// tree whether a model is written in C++, in Python or both, and each layer's math is the C++
// layer's. A Python subclass of duet.nn.Module is a PyModule (a nanobind trampoline); its
// __setattr__ (python/duet/nn/_module.py) adopts what it is given: a module through
// add_module, which holds it by a std::shared_ptr that keeps the Python object alive (nanobind
// makes such pointers from Python instances), a variable through add_variable(name, variable), a
// list or dict of them through a container module named by the attribute (its entries named
// "0", "1", ... or by key, as TensorFlow's object graph names a tracked list's). Reassigning or
// deleting an attribute removes the old entry. A module that outlives its parent becomes a root
// again (Module::~Module). add_module, add_variable and remove are protected in C++, where only a
// module itself should change its tree; ModuleAccess reaches them for the bindings through
// member pointers named in a subclass, which is legal: the using-declarations make them public
// there.
struct ModuleAccess : nn::Module {
  using nn::Module::add_module;
  using nn::Module::add_variable;
  using nn::Module::remove;

  static std::string AddModule(nn::Module& m, std::shared_ptr<nn::Module> child, std::string name) {
    return (m.*&ModuleAccess::add_module)(std::move(child), std::move(name));
  }
  // Whether it adopted `v`: a variable the module owns already (add_weight's, then assigned to
  // an attribute) is not listed twice.
  static bool AdoptVariable(nn::Module& m, const std::string& name, const Variable& v) {
    for (const auto& [own_name, own] : m.own_variables()) {
      if (own.handle().impl() == v.handle().impl()) return false;
    }
    auto adopt = static_cast<void (nn::Module::*)(const std::string&, const Variable&)>(
        &ModuleAccess::add_variable);
    (m.*adopt)(name, v);
    return true;
  }
  static Variable MakeVariable(nn::Module& m, const std::string& name, const Shape& shape,
                               DType dtype, const nn::Initializer& init, bool trainable) {
    auto make = static_cast<Variable (nn::Module::*)(const std::string&, const Shape&, DType,
                                                     const nn::Initializer&, bool)>(
        &ModuleAccess::add_variable);
    return (m.*make)(name, shape, dtype, init, trainable);
  }
  static bool Remove(nn::Module& m, const std::string& name) {
    return (m.*&ModuleAccess::remove)(name);
  }
};

// A Python subclass of duet.nn.Module. A subclass may name its children differently in
// checkpoints (duet.nn.Sequential's "layer-0", as Keras' Sequential) by defining
// _checkpoint_children(); checkpoints call it with the GIL released.
class PyModule : public nn::Module {
 public:
  NB_TRAMPOLINE(nn::Module);

  std::vector<std::pair<std::string, nn::Module*>> checkpoint_children() const override {
    nb::gil_scoped_acquire gil;
    NB_OVERRIDE_NAME("_checkpoint_children", checkpoint_children);
  }
};

Error InvalidArgument(const std::string& what) { return Error(absl::InvalidArgumentError(what)); }

std::string TypeName(nb::handle value) {
  return nb::cast<std::string>(nb::type_name(value.type()));
}

Shape ShapeArg(nb::handle value, const char* what) {
  if (value.is_none()) return Shape({});
  if (PyLong_Check(value.ptr())) return Shape({nb::cast<int64_t>(value)});
  if (!PySequence_Check(value.ptr())) {
    throw InvalidArgument(
        absl::StrCat(what, ": a shape (a sequence of ints), not a ", TypeName(value)));
  }
  std::vector<int64_t> dims;
  for (nb::handle d : value) {
    if (d.is_none()) {
      throw InvalidArgument(absl::StrCat(what, ": a variable's shape must be fully known"));
    }
    dims.push_back(nb::cast<int64_t>(d));
  }
  return Shape(dims);
}

// Keras' initializer names (and the class names Keras also accepts as strings).
nn::Initializer NamedInitializer(std::string name) {
  name = absl::AsciiStrToLower(name);
  if (name == "zeros" || name == "zero") return initializers::zeros();
  if (name == "ones" || name == "one") return initializers::ones();
  if (name == "glorot_uniform" || name == "glorotuniform") return initializers::glorot_uniform();
  if (name == "glorot_normal" || name == "glorotnormal") return initializers::glorot_normal();
  if (name == "he_normal" || name == "henormal") return initializers::he_normal();
  if (name == "he_uniform" || name == "heuniform") return initializers::he_uniform();
  if (name == "random_normal" || name == "randomnormal") return initializers::random_normal();
  if (name == "random_uniform" || name == "randomuniform" || name == "uniform") {
    return initializers::random_uniform();
  }
  if (name == "truncated_normal" || name == "truncatednormal") {
    return initializers::truncated_normal();
  }
  if (name == "orthogonal") return initializers::orthogonal();
  throw InvalidArgument(absl::StrCat(
      "unknown initializer '", name,
      "': one of zeros, ones, glorot_uniform, glorot_normal, he_normal, he_uniform, "
      "random_normal, random_uniform, truncated_normal, orthogonal, a duet.nn.initializers "
      "object or a "
      "callable (shape, dtype) -> tensor"));
}

// An initializer argument: None (the layer's default), a name, a bound Initializer or a Python
// callable (shape, dtype) returning the value, called with the GIL (it may be called from C++
// code that released it).
nn::Initializer InitializerArg(nb::handle value) {
  if (value.is_none()) return {};
  if (nb::isinstance<nb::str>(value)) return NamedInitializer(nb::cast<std::string>(value));
  if (nb::isinstance<nn::Initializer>(value)) return nb::cast<nn::Initializer>(value);
  if (!PyCallable_Check(value.ptr())) {
    throw InvalidArgument(
        absl::StrCat("initializer: a name, a duet.nn.initializers object or a "
                     "callable (shape, dtype) -> tensor, not a ",
                     TypeName(value)));
  }
  std::shared_ptr<nb::object> fn = HoldCallable(nb::borrow<nb::callable>(value));
  return [fn](const Shape& shape, DType dtype) {
    nb::gil_scoped_acquire gil;
    nb::list dims;
    for (int64_t d : shape.dims()) dims.append(d);
    nb::object d = nb::module_::import_("duet.dtypes").attr("DType")(static_cast<int>(dtype));
    nb::object value = (*fn)(nb::tuple(dims), d);
    return ToConstant(value, "the initializer's value", dtype);
  };
}

// Keras' activation names; a callable is applied by the Python layer (python/duet/nn/layers.py).
Activation ActivationArg(const std::optional<std::string>& name) {
  if (!name || name->empty() || *name == "None") return Activation::kLinear;
  std::string lower = absl::AsciiStrToLower(*name);
  if (lower == "silu") lower = "swish";
  for (int a = static_cast<int>(Activation::kLinear); a <= static_cast<int>(Activation::kSoftmax);
       ++a) {
    if (ActivationName(static_cast<Activation>(a)) == lower) return static_cast<Activation>(a);
  }
  throw InvalidArgument(absl::StrCat("unknown activation '", *name,
                                     "': linear, relu, gelu, gelu_tanh, sigmoid, tanh, elu, "
                                     "softplus, swish (silu), softmax, or a callable"));
}

nn::Size2 Size2Arg(nb::handle value, const char* what) {
  if (PyLong_Check(value.ptr())) return nn::Size2(nb::cast<int64_t>(value));
  std::vector<int64_t> v;
  if (PySequence_Check(value.ptr())) {
    for (nb::handle d : value) v.push_back(nb::cast<int64_t>(d));
  }
  if (v.size() == 1) return nn::Size2(v[0]);
  if (v.size() != 2) {
    throw InvalidArgument(absl::StrCat(what, ": an int or a pair of ints"));
  }
  return nn::Size2(v[0], v[1]);
}

// Keras' data_format argument.
DataFormat DataFormatArg(const std::string& data_format) {
  if (data_format == "channels_last") return DataFormat::kChannelsLast;
  if (data_format == "channels_first") return DataFormat::kChannelsFirst;
  throw InvalidArgument(absl::StrCat("data_format '", data_format,
                                     "': 'channels_last' (NHWC) or 'channels_first' (NCHW)"));
}

nn::ConvOptions ConvArgs(nb::handle strides, const std::string& padding, nb::handle dilation_rate,
                         int64_t groups, const std::optional<std::string>& activation,
                         bool use_bias, nb::handle kernel_initializer, nb::handle bias_initializer,
                         const std::string& data_format) {
  return {.strides = Size2Arg(strides, "strides"),
          .padding = padding,
          .dilation_rate = Size2Arg(dilation_rate, "dilation_rate"),
          .groups = groups,
          .activation = ActivationArg(activation),
          .use_bias = use_bias,
          .kernel_initializer = InitializerArg(kernel_initializer),
          .bias_initializer = InitializerArg(bias_initializer),
          .data_format = DataFormatArg(data_format)};
}

// The arguments every conv layer ends with, in Keras' names.
#define DUET_CONV_TAIL_ARGS                                                                  \
  nb::arg("activation").none() = nb::none(), nb::arg("use_bias") = true,                     \
  nb::arg("kernel_initializer").none() = nb::none(),                                         \
  nb::arg("bias_initializer").none() = nb::none(), nb::arg("data_format") = "channels_last", \
  nb::arg("name").none() = nb::none()

// (name, module) pairs as a list of tuples of the modules' Python objects.
nb::list NamedModules(const std::vector<std::pair<std::string, nn::Module*>>& modules) {
  nb::list out;
  for (const auto& [name, child] : modules) {
    out.append(nb::make_tuple(name, nb::cast(child, nb::rv_policy::reference)));
  }
  return out;
}

nb::list Weights(const nn::Module& m) {
  nb::list out;
  for (const Variable& v : m.variables()) {
    out.append(ToNumPy(OnHost(v.value())).attr("copy")());
  }
  return out;
}

void SetWeights(const nn::Module& m, nb::sequence values) {
  const std::vector<Variable> variables = m.variables();
  if (nb::len(values) != variables.size()) {
    throw InvalidArgument(absl::StrCat("set_weights: module '", m.path(), "' has ",
                                       variables.size(), " variables, got ", nb::len(values),
                                       " values"));
  }
  size_t i = 0;
  for (nb::handle value : values) {
    const Variable& v = variables[i++];
    const Tensor t = ToConstant(value, "weight", v.dtype());
    if (t.shape() != v.shape()) {
      throw InvalidArgument(absl::StrCat("set_weights: '", v.name(), "' has shape ",
                                         v.shape().str(), ", got a value of shape ",
                                         t.shape().str()));
    }
    v.assign(t, PythonCallSite());
  }
}

// Layers take a name or their default; a parent renames them when it adopts them.
template <typename L, typename... Args>
void Construct(L* self, const std::optional<std::string>& name, const char* default_name,
               Args&&... args) {
  new (self) L(nullptr, name.value_or(default_name), std::forward<Args>(args)...);
}

// MaxPool2D and AvgPool2D: Keras' pooling arguments.
template <typename Pool>
void DefPool(nb::module_& m, const char* cls, const char* doc, const char* default_name) {
  nb::class_<Pool, nn::Layer>(m, cls, doc)
      .def(
          "__init__",
          [default_name](Pool* self, nb::handle pool_size, nb::handle strides,
                         const std::string& padding, const std::string& data_format,
                         const std::optional<std::string>& name) {
            nn::PoolOptions options{.padding = padding, .data_format = DataFormatArg(data_format)};
            if (!strides.is_none()) options.strides = Size2Arg(strides, "strides");
            Construct(self, name, default_name, Size2Arg(pool_size, "pool_size"), options);
          },
          nb::arg("pool_size") = 2, nb::arg("strides").none() = nb::none(),
          nb::arg("padding") = "valid", nb::arg("data_format") = "channels_last",
          nb::arg("name").none() = nb::none());
}

// SimpleRNN, LSTM and GRU: Keras' constructor arguments (those duet has).
template <typename Cell>
void DefRecurrent(nb::module_& m, const char* cls, const char* default_name, const char* doc) {
  nb::class_<Cell, nn::RNN>(m, cls, doc)
      .def(
          "__init__",
          [default_name](Cell* self, int64_t units, const std::optional<std::string>& activation,
                         const std::optional<std::string>& recurrent_activation, bool use_bias,
                         nb::handle kernel_initializer, nb::handle recurrent_initializer,
                         nb::handle bias_initializer, bool unit_forget_bias, bool return_sequences,
                         bool go_backwards, bool reset_after,
                         const std::optional<std::string>& name) {
            Construct(self, name, default_name, units,
                      nn::RNNOptions{.return_sequences = return_sequences,
                                     .go_backwards = go_backwards,
                                     .use_bias = use_bias,
                                     .activation = ActivationArg(activation),
                                     .recurrent_activation = ActivationArg(recurrent_activation),
                                     .kernel_initializer = InitializerArg(kernel_initializer),
                                     .recurrent_initializer = InitializerArg(recurrent_initializer),
                                     .bias_initializer = InitializerArg(bias_initializer),
                                     .unit_forget_bias = unit_forget_bias,
                                     .reset_after = reset_after});
          },
          nb::arg("units"), nb::arg("activation").none() = "tanh",
          nb::arg("recurrent_activation").none() = "sigmoid", nb::arg("use_bias") = true,
          nb::arg("kernel_initializer").none() = nb::none(),
          nb::arg("recurrent_initializer").none() = nb::none(),
          nb::arg("bias_initializer").none() = nb::none(), nb::arg("unit_forget_bias") = true,
          nb::arg("return_sequences") = false, nb::arg("go_backwards") = false,
          nb::arg("reset_after") = true, nb::arg("name").none() = nb::none());
}

// A recurrent layer's call_with_state: (output, [final states]) from tensor-likes.
template <typename Recurrent>
std::pair<Tensor, std::vector<Tensor>> CallWithState(Recurrent& layer, nb::handle inputs,
                                                     const nb::list& initial_state,
                                                     std::optional<bool> training) {
  std::vector<Tensor> states;
  for (nb::handle state : initial_state) states.push_back(ToTensor(state, "initial_state"));
  nn::RNNOutput out = layer.call_with_state(ToTensor(inputs, "inputs"), states,
                                            training.value_or(false), OpSite{UserFrame()});
  return {std::move(out.output), std::move(out.states)};
}

nn::MergeMode MergeModeArg(const std::string& mode) {
  if (mode == "concat") return nn::MergeMode::kConcat;
  if (mode == "sum") return nn::MergeMode::kSum;
  if (mode == "mul") return nn::MergeMode::kMul;
  if (mode == "ave") return nn::MergeMode::kAve;
  throw InvalidArgument(
      absl::StrCat("Bidirectional: merge_mode '", mode, "' is not one of concat, sum, mul, ave"));
}

}  // namespace

void init_nn(nb::module_& m) {
  nb::class_<nn::Initializer>(m, "Initializer",
                              "Makes a variable's initial value: init(shape, dtype).")
      .def(
          "__call__",
          [](const nn::Initializer& init, nb::handle shape, nb::handle dtype) {
            return init(ShapeArg(shape, "shape"), DTypeArg(dtype).value_or(kFloat32));
          },
          nb::arg("shape"), nb::arg("dtype").none() = nb::none());
  m.def("_initializer", &NamedInitializer, nb::arg("name"));
  m.def("_initializer_zeros", &initializers::zeros);
  m.def("_initializer_ones", &initializers::ones);
  m.def("_initializer_constant", &initializers::constant, nb::arg("value"));
  m.def("_initializer_random_normal", &initializers::random_normal, nb::arg("mean"),
        nb::arg("stddev"), nb::arg("seed").none());
  m.def("_initializer_truncated_normal", &initializers::truncated_normal, nb::arg("mean"),
        nb::arg("stddev"), nb::arg("seed").none());
  m.def("_initializer_random_uniform", &initializers::random_uniform, nb::arg("minval"),
        nb::arg("maxval"), nb::arg("seed").none());
  m.def("_initializer_glorot_uniform", &initializers::glorot_uniform, nb::arg("seed").none());
  m.def("_initializer_glorot_normal", &initializers::glorot_normal, nb::arg("seed").none());
  m.def("_initializer_he_normal", &initializers::he_normal, nb::arg("seed").none());
  m.def("_initializer_he_uniform", &initializers::he_uniform, nb::arg("seed").none());
  m.def("_initializer_orthogonal", &initializers::orthogonal, nb::arg("gain"),
        nb::arg("seed").none());
  m.def(
      "set_random_seed",
      [](int64_t seed) {
        initializers::set_random_seed(seed);
        duet::set_random_seed(seed);
      },
      nb::arg("seed"),
      "Seeds the initializers and layers given no seed and the global generator of the seedless "
      "random ops (Note [Global random state]), as tf.random.set_seed.");

  nb::class_<nn::Module, PyModule>(m, "Module",
                                   "A node of the object tree (nn::Module): named variables and "
                                   "named child modules. duet.nn.Module is its Python face.")
      .def(nb::init<std::string>(), nb::arg("name") = "")
      .def_prop_ro("name", &nn::Module::name)
      .def_prop_ro("path", &nn::Module::path,
                   "The names from the root down, joined by '/': the prefix of its variables.")
      .def_prop_ro("parent", &nn::Module::parent, nb::rv_policy::reference)
      .def_prop_ro("variables", &nn::Module::variables)
      .def_prop_ro("trainable_variables", &nn::Module::trainable_variables)
      .def_prop_ro("non_trainable_variables", &nn::Module::non_trainable_variables)
      .def_prop_rw("trainable", &nn::Module::trainable, &nn::Module::set_trainable)
      .def("get_weights", &Weights, "The variables' values as NumPy arrays (copies), in order.")
      .def("set_weights", &SetWeights, nb::arg("weights"),
           "Assigns NumPy arrays (or tensors) to the variables, in the order of `variables`.")
      .def("_children", [](const nn::Module& self) { return NamedModules(self.children()); })
      // What PyModule::checkpoint_children calls unless a subclass defines its own.
      .def("_checkpoint_children",
           [](const nn::Module& self) {
             return NamedModules(self.nn::Module::checkpoint_children());
           })
      .def("_add_module", &ModuleAccess::AddModule, nb::arg("child"), nb::arg("name"))
      .def("_add_variable", &ModuleAccess::AdoptVariable, nb::arg("name"), nb::arg("variable"))
      .def(
          "_make_variable",
          [](nn::Module& self, const std::string& name, nb::handle shape, nb::handle dtype,
             nb::handle initializer, bool trainable) {
            const DType d = DTypeArg(dtype).value_or(kFloat32);
            nn::Initializer init = InitializerArg(initializer);
            if (!init) {
              init = IsFloating(d) ? initializers::glorot_uniform() : initializers::zeros();
            }
            return ModuleAccess::MakeVariable(self, name, ShapeArg(shape, "shape"), d, init,
                                              trainable);
          },
          nb::arg("name"), nb::arg("shape").none(), nb::arg("dtype").none(),
          nb::arg("initializer").none(), nb::arg("trainable"))
      .def("_remove", &ModuleAccess::Remove, nb::arg("name"));

  nb::class_<nn::Layer, nn::Module>(m, "_Layer",
                                    "A C++ layer: builds on its first call from the input's "
                                    "shape, then checks every input against it.")
      .def(
          "__call__",
          [](nn::Layer& layer, nb::handle inputs, std::optional<bool> training) {
            const Tensor x = ToTensor(inputs, "inputs");
            const OpSite site{UserFrame()};
            if (WorthReleasingGil(std::vector<Tensor>{x})) {
              nb::gil_scoped_release release;
              return layer(x, training.value_or(false), site);
            }
            return layer(x, training.value_or(false), site);
          },
          nb::arg("inputs"), nb::arg("training").none() = nb::none())
      .def_prop_ro("built", &nn::Layer::built)
      .def_prop_ro("dtype", [](const nn::Layer& l) { return static_cast<int>(l.dtype()); });

  nb::class_<nn::Dense, nn::Layer>(m, "Dense", "Keras' Dense: activation(inputs @ kernel + bias).")
      .def(
          "__init__",
          [](nn::Dense* self, int64_t units, const std::optional<std::string>& activation,
             bool use_bias, nb::handle kernel_initializer, nb::handle bias_initializer,
             const std::optional<std::string>& name) {
            Construct(self, name, "dense", units, ActivationArg(activation),
                      nn::DenseOptions{.use_bias = use_bias,
                                       .kernel_initializer = InitializerArg(kernel_initializer),
                                       .bias_initializer = InitializerArg(bias_initializer)});
          },
          nb::arg("units"), nb::arg("activation").none() = nb::none(), nb::arg("use_bias") = true,
          nb::arg("kernel_initializer").none() = nb::none(),
          nb::arg("bias_initializer").none() = nb::none(), nb::arg("name").none() = nb::none())
      .def_prop_ro("units", &nn::Dense::units)
      .def_prop_ro("kernel", &nn::Dense::kernel)
      .def_prop_ro("bias", &nn::Dense::bias);

  nb::class_<nn::ConvLayer, nn::Layer>(m, "_ConvLayer")
      .def_prop_ro("kernel", &nn::ConvLayer::kernel)
      .def_prop_ro("bias", &nn::ConvLayer::bias);
  nb::class_<nn::Conv2D, nn::ConvLayer>(
      m, "Conv2D", "Keras' Conv2D (NHWC, or NCHW with data_format='channels_first').")
      .def(
          "__init__",
          [](nn::Conv2D* self, int64_t filters, nb::handle kernel_size, nb::handle strides,
             const std::string& padding, nb::handle dilation_rate, int64_t groups,
             const std::optional<std::string>& activation, bool use_bias,
             nb::handle kernel_initializer, nb::handle bias_initializer,
             const std::string& data_format, const std::optional<std::string>& name) {
            Construct(self, name, "conv2d", filters, Size2Arg(kernel_size, "kernel_size"),
                      ConvArgs(strides, padding, dilation_rate, groups, activation, use_bias,
                               kernel_initializer, bias_initializer, data_format));
          },
          nb::arg("filters"), nb::arg("kernel_size"), nb::arg("strides") = 1,
          nb::arg("padding") = "valid", nb::arg("dilation_rate") = 1, nb::arg("groups") = 1,
          DUET_CONV_TAIL_ARGS);
  nb::class_<nn::DepthwiseConv2D, nn::ConvLayer>(m, "DepthwiseConv2D",
                                                 "Keras' DepthwiseConv2D (NHWC or NCHW).")
      .def(
          "__init__",
          [](nn::DepthwiseConv2D* self, nb::handle kernel_size, nb::handle strides,
             const std::string& padding, int64_t depth_multiplier, nb::handle dilation_rate,
             const std::optional<std::string>& activation, bool use_bias,
             nb::handle depthwise_initializer, nb::handle bias_initializer,
             const std::string& data_format, const std::optional<std::string>& name) {
            Construct(self, name, "depthwise_conv2d", Size2Arg(kernel_size, "kernel_size"),
                      depth_multiplier,
                      ConvArgs(strides, padding, dilation_rate, 1, activation, use_bias,
                               depthwise_initializer, bias_initializer, data_format));
          },
          nb::arg("kernel_size"), nb::arg("strides") = 1, nb::arg("padding") = "valid",
          nb::arg("depth_multiplier") = 1, nb::arg("dilation_rate") = 1,
          nb::arg("activation").none() = nb::none(), nb::arg("use_bias") = true,
          nb::arg("depthwise_initializer").none() = nb::none(),
          nb::arg("bias_initializer").none() = nb::none(), nb::arg("data_format") = "channels_last",
          nb::arg("name").none() = nb::none());
  nb::class_<nn::Conv2DTranspose, nn::ConvLayer>(m, "Conv2DTranspose",
                                                 "Keras' Conv2DTranspose (NHWC).")
      .def(
          "__init__",
          [](nn::Conv2DTranspose* self, int64_t filters, nb::handle kernel_size, nb::handle strides,
             const std::string& padding, nb::handle dilation_rate,
             const std::optional<std::string>& activation, bool use_bias,
             nb::handle kernel_initializer, nb::handle bias_initializer,
             const std::string& data_format, const std::optional<std::string>& name) {
            Construct(self, name, "conv2d_transpose", filters, Size2Arg(kernel_size, "kernel_size"),
                      ConvArgs(strides, padding, dilation_rate, 1, activation, use_bias,
                               kernel_initializer, bias_initializer, data_format));
          },
          nb::arg("filters"), nb::arg("kernel_size"), nb::arg("strides") = 1,
          nb::arg("padding") = "valid", nb::arg("dilation_rate") = 1, DUET_CONV_TAIL_ARGS);

  DefPool<nn::MaxPool2D>(m, "MaxPool2D", "Keras' MaxPooling2D (NHWC or NCHW).", "max_pooling2d");
  DefPool<nn::AvgPool2D>(m, "AvgPool2D", "Keras' AveragePooling2D (NHWC or NCHW).",
                         "average_pooling2d");
  nb::class_<nn::GlobalAveragePooling2D, nn::Layer>(m, "GlobalAveragePooling2D",
                                                    "Keras' GlobalAveragePooling2D (NHWC or NCHW).")
      .def(
          "__init__",
          [](nn::GlobalAveragePooling2D* self, bool keepdims, const std::string& data_format,
             const std::optional<std::string>& name) {
            Construct(self, name, "global_average_pooling2d", keepdims, DataFormatArg(data_format));
          },
          nb::arg("keepdims") = false, nb::arg("data_format") = "channels_last",
          nb::arg("name").none() = nb::none());

  nb::class_<nn::BatchNorm, nn::Layer>(
      m, "BatchNormalization",
      "Keras' BatchNormalization over the last axis (or axis=1); training=True normalizes by the "
      "batch and "
      "updates the moving statistics (eagerly, traced and in graphs).")
      .def(
          "__init__",
          [](nn::BatchNorm* self, int axis, double momentum, double epsilon, bool center,
             bool scale, const std::optional<std::string>& name) {
            if (axis != -1 && axis != 1) {
              throw InvalidArgument(absl::StrCat("BatchNormalization: axis ", axis,
                                                 ": duet normalizes axis -1 (the last) or 1 "
                                                 "(channels-first)"));
            }
            Construct(self, name, "batch_normalization", momentum,
                      nn::NormOptions{
                          .epsilon = epsilon, .center = center, .scale = scale, .axis = axis});
          },
          nb::arg("axis") = -1, nb::arg("momentum") = 0.99, nb::arg("epsilon") = 1e-3,
          nb::arg("center") = true, nb::arg("scale") = true, nb::arg("name").none() = nb::none())
      .def_prop_ro("gamma", &nn::BatchNorm::gamma)
      .def_prop_ro("beta", &nn::BatchNorm::beta)
      .def_prop_ro("moving_mean", &nn::BatchNorm::moving_mean)
      .def_prop_ro("moving_variance", &nn::BatchNorm::moving_variance);
  nb::class_<nn::LayerNorm, nn::Layer>(m, "LayerNormalization",
                                       "Keras' LayerNormalization over the last axis.")
      .def(
          "__init__",
          [](nn::LayerNorm* self, int axis, double epsilon, bool center, bool scale,
             const std::optional<std::string>& name) {
            if (axis != -1) {
              throw InvalidArgument(absl::StrCat("LayerNormalization: axis ", axis,
                                                 ": duet normalizes the last axis (axis=-1)"));
            }
            Construct(self, name, "layer_normalization",
                      nn::NormOptions{.epsilon = epsilon, .center = center, .scale = scale});
          },
          nb::arg("axis") = -1, nb::arg("epsilon") = 1e-3, nb::arg("center") = true,
          nb::arg("scale") = true, nb::arg("name").none() = nb::none())
      .def_prop_ro("gamma", &nn::LayerNorm::gamma)
      .def_prop_ro("beta", &nn::LayerNorm::beta);

  nb::class_<nn::Dropout, nn::Layer>(m, "Dropout", "Keras' Dropout: active when training=True.")
      .def(
          "__init__",
          [](nn::Dropout* self, double rate, std::optional<int64_t> seed,
             const std::optional<std::string>& name) {
            if (rate < 0 || rate >= 1) {
              throw InvalidArgument(absl::StrCat("Dropout: rate ", rate, " is not in [0, 1)"));
            }
            Construct(self, name, "dropout", rate, seed);
          },
          nb::arg("rate"), nb::arg("seed").none() = nb::none(), nb::arg("name").none() = nb::none())
      .def_prop_ro("rate", &nn::Dropout::rate);
  nb::class_<nn::Embedding, nn::Layer>(m, "Embedding", "Keras' Embedding: rows of a table by id.")
      .def(
          "__init__",
          [](nn::Embedding* self, int64_t input_dim, int64_t output_dim,
             nb::handle embeddings_initializer, const std::optional<std::string>& name) {
            Construct(self, name, "embedding", input_dim, output_dim,
                      InitializerArg(embeddings_initializer));
          },
          nb::arg("input_dim"), nb::arg("output_dim"),
          nb::arg("embeddings_initializer").none() = nb::none(),
          nb::arg("name").none() = nb::none())
      .def_prop_ro("embeddings", &nn::Embedding::embeddings);
  // Recurrent layers: Keras' arguments; return_state is the Python class's (duet/nn/layers.py),
  // which calls _call_with_state.
  nb::class_<nn::RNN, nn::Layer>(m, "_RNN")
      .def("_call_with_state", &CallWithState<nn::RNN>, nb::arg("inputs"), nb::arg("initial_state"),
           nb::arg("training").none() = nb::none())
      .def_prop_ro("units", &nn::RNN::units)
      .def_prop_ro("return_sequences",
                   [](const nn::RNN& l) { return l.options().return_sequences; })
      .def_prop_ro("go_backwards", [](const nn::RNN& l) { return l.options().go_backwards; })
      .def_prop_ro("kernel", &nn::RNN::kernel)
      .def_prop_ro("recurrent_kernel", &nn::RNN::recurrent_kernel)
      .def_prop_ro("bias", &nn::RNN::bias);
  DefRecurrent<nn::SimpleRNN>(m, "SimpleRNN", "simple_rnn",
                              "Keras' SimpleRNN: h = activation(x @ kernel + h @ recurrent_kernel "
                              "+ bias); traced as one While.");
  DefRecurrent<nn::LSTM>(m, "LSTM", "lstm", "Keras' LSTM (gates i, f, c, o); traced as one While.");
  DefRecurrent<nn::GRU>(m, "GRU", "gru",
                        "Keras' GRU (gates z, r, h; reset_after as Keras 2's default); traced as "
                        "one While.");
  nb::class_<nn::Bidirectional, nn::Layer>(
      m, "Bidirectional",
      "Keras' Bidirectional: the layer and a copy reading backwards, merged by merge_mode.")
      .def(
          "__init__",
          [](nn::Bidirectional* self, std::shared_ptr<nn::RNN> layer, const std::string& merge_mode,
             const std::optional<std::string>& name) {
            Construct(self, name, "bidirectional", std::move(layer), MergeModeArg(merge_mode));
          },
          nb::arg("layer"), nb::arg("merge_mode") = "concat", nb::arg("name").none() = nb::none())
      .def("_call_with_state", &CallWithState<nn::Bidirectional>, nb::arg("inputs"),
           nb::arg("initial_state"), nb::arg("training").none() = nb::none())
      .def_prop_ro("forward_layer", &nn::Bidirectional::forward_layer, nb::rv_policy::reference)
      .def_prop_ro("backward_layer", &nn::Bidirectional::backward_layer, nb::rv_policy::reference);
  nb::class_<nn::Flatten, nn::Layer>(m, "Flatten", "Keras' Flatten: [batch, everything else].")
      .def(
          "__init__",
          [](nn::Flatten* self, const std::optional<std::string>& name) {
            new (self) nn::Flatten(nullptr, name.value_or("flatten"));
          },
          nb::arg("name").none() = nb::none());
  nb::class_<nn::Reshape, nn::Layer>(m, "Reshape", "Keras' Reshape: the batch dim, then target.")
      .def(
          "__init__",
          [](nn::Reshape* self, std::vector<int64_t> target_shape,
             const std::optional<std::string>& name) {
            Construct(self, name, "reshape", std::move(target_shape));
          },
          nb::arg("target_shape"), nb::arg("name").none() = nb::none());
}

}  // namespace duet::python
