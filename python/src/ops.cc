// Every op of the registry, callable from Python: `execute` runs one op call (eagerly, or adds a
// node while a graph or a trace is being built), and `op_defs` describes the ops so that
// duet/_ops.py generates a Python function per op (one source of truth: the registry).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "duet.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

[[noreturn]] void Fail(const OpDef& op, const std::string& message) {
  throw Error(absl::InvalidArgumentError(absl::StrCat(op.name, ": ", message)));
}

std::vector<int64_t> Ints(const OpDef& op, const AttrDef& attr, nb::handle value) {
  std::vector<int64_t> out;
  if (!PySequence_Check(value.ptr())) Fail(op, absl::StrCat("attr ", attr.name, " is a list"));
  for (nb::handle v : value) out.push_back(nb::cast<int64_t>(v));
  return out;
}

DType TypeOf(nb::handle value) {
  if (nb::hasattr(value, "_enum")) return static_cast<DType>(nb::cast<int>(value.attr("_enum")));
  if (PyLong_Check(value.ptr())) return static_cast<DType>(nb::cast<int>(value));
  return ValueOrThrow(ParseDType(nb::cast<std::string>(nb::str(value))));
}

Shape ShapeOf(nb::handle value) {
  if (value.is_none()) return Shape::UnknownRank();
  std::vector<int64_t> dims;
  for (nb::handle d : value) dims.push_back(d.is_none() ? -1 : nb::cast<int64_t>(d));
  return Shape(dims);
}

// A Python value as the attr's kind.
AttrValue ToAttr(const OpDef& op, const AttrDef& attr, nb::handle value) {
  try {
    switch (attr.type) {
      case AttrType::kInt:
        return nb::cast<int64_t>(value);
      case AttrType::kFloat:
        return nb::cast<float>(value);
      case AttrType::kBool:
        return nb::cast<bool>(value);
      case AttrType::kType:
        return TypeOf(value);
      case AttrType::kString:
        return nb::cast<std::string>(value);
      case AttrType::kShape:
        return ShapeOf(value);
      case AttrType::kTensor:
        return ToTensor(value, attr.name.c_str());
      case AttrType::kListInt:
        return Ints(op, attr, value);
      case AttrType::kListFloat: {
        std::vector<float> out;
        for (nb::handle v : value) out.push_back(nb::cast<float>(v));
        return out;
      }
      case AttrType::kListString: {
        std::vector<std::string> out;
        for (nb::handle v : value) out.push_back(nb::cast<std::string>(v));
        return out;
      }
      case AttrType::kListType: {
        std::vector<DType> out;
        for (nb::handle v : value) out.push_back(TypeOf(v));
        return out;
      }
      case AttrType::kListShape: {
        std::vector<Shape> out;
        for (nb::handle v : value) out.push_back(ShapeOf(v));
        return out;
      }
      case AttrType::kFunc:
        break;
    }
  } catch (const Error& e) {
    Fail(op, absl::StrCat("attr ", attr.name, ": ", e.what()));
  } catch (const nb::cast_error&) {
  } catch (const nb::python_error&) {
  }
  Fail(op, absl::StrCat("attr ", attr.name, " must be a ", AttrTypeName(attr.type), ", not ",
                        nb::str(value).c_str()));
}

nb::object DefaultOf(const AttrDef& attr) {
  if (!attr.default_value) return nb::none();
  return nb::str(AttrValueString(*attr.default_value).c_str());
}

}  // namespace

// Note [Fast paths]
// ~~~~~~~~~~~~~~~~~~
// A generated op function (duet/_ops.py) calls `execute` with the op's OpDef, looked up once at
// import, its inputs and a dict of the attrs given: no name lookup per call, but a dict, a list
// and a conversion per input. The hot binary ops (the arithmetic and comparison operators,
// duet.add, subtract, multiply, divide) skip even that: they are C++ functions taking two Python
// values and calling the C++ op function (python/src/tensor.cc).

void init_ops(nb::module_& m) {
  nb::class_<OpDef>(m, "OpDef").def_ro("name", &OpDef::name).def_ro("doc", &OpDef::doc);
  m.def(
      "op_def", [](const std::string& name) { return ValueOrThrow(LookUpOp(name)); },
      nb::rv_policy::reference);

  // execute(op, inputs, attrs, name): inputs in the OpDef's order, a list for a list argument.
  m.def(
      "execute",
      [](const OpDef* op, nb::sequence inputs, nb::dict attrs,
         std::optional<std::string> name) -> nb::object {
        TensorList flat;
        size_t i = 0;
        for (nb::handle input : inputs) {
          if (i >= op->inputs.size()) Fail(*op, "too many inputs");
          const ArgDef& arg = op->inputs[i++];
          try {
            if (!arg.is_list()) {
              flat.push_back(ToTensor(input, arg.name.c_str()));
            } else if (PySequence_Check(input.ptr()) && !nb::isinstance<Tensor>(input)) {
              for (nb::handle x : input) flat.push_back(ToTensor(x, arg.name.c_str()));
            } else {
              Fail(*op, absl::StrCat("input ", arg.name, " is a list of tensors"));
            }
          } catch (const Error& e) {
            if (absl::StartsWith(e.status().message(), op->name + ":")) throw;
            throw Error(absl::Status(e.code(), absl::StrCat(op->name, ": ", e.status().message())));
          }
        }
        OpSite site = PythonCallSite();
        if (name) site.name = *name;
        OpCall call(op, std::move(flat), site);
        for (auto [key, value] : attrs) {
          const std::string attr_name = nb::cast<std::string>(key);
          const int index = op->attr_index(attr_name);
          if (index < 0) Fail(*op, absl::StrCat("no attr ", attr_name));
          if (value.is_none()) continue;
          call.attrs[index] = ToAttr(*op, op->attrs[index], value);
        }
        OutputList outputs;
        if (WorthReleasingGil(call.inputs)) {
          nb::gil_scoped_release release;
          outputs = RunOp(call);
        } else {
          outputs = RunOp(call);
        }
        if (op->outputs.size() == 1 && !op->outputs[0].is_list()) return nb::cast(outputs[0]);
        nb::list out;
        for (Tensor& t : outputs) out.append(nb::cast(std::move(t)));
        return nb::tuple(out);
      },
      nb::arg("op"), nb::arg("inputs"), nb::arg("attrs"), nb::arg("name") = nb::none());

  // [(name, doc, [(input, is_list)], [output], [(attr, kind, default or None)], stateful)].
  m.def("op_defs", [] {
    nb::list ops;
    for (const OpDef* op : OpRegistry::Global().All()) {
      nb::list inputs, outputs, attrs;
      for (const ArgDef& a : op->inputs) inputs.append(nb::make_tuple(a.name, a.is_list()));
      for (const ArgDef& a : op->outputs) outputs.append(nb::str(a.name.c_str()));
      for (const AttrDef& a : op->attrs) {
        attrs.append(nb::make_tuple(a.name, std::string(AttrTypeName(a.type)), DefaultOf(a)));
      }
      ops.append(nb::make_tuple(op->name, op->doc, inputs, outputs, attrs, op->stateful));
    }
    return ops;
  });
}

}  // namespace duet::python
