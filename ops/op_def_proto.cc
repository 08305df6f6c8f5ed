#include "ops/op_def_proto.h"

#include "absl/strings/str_cat.h"
#include "core/tensor_proto.h"

namespace duet {
namespace {

tensorflow::DataType ProtoType(DType dtype) {
  return static_cast<tensorflow::DataType>(ToProtoDataType(dtype));
}

void ArgToProto(const ArgDef& arg, tensorflow::OpDef::ArgDef* proto) {
  proto->set_name(arg.name);
  if (!arg.type_attr.empty()) {
    proto->set_type_attr(arg.type_attr);
  } else if (!arg.type_list_attr.empty()) {
    proto->set_type_list_attr(arg.type_list_attr);
  } else {
    proto->set_type(ProtoType(arg.fixed_type));
  }
  if (!arg.number_attr.empty()) proto->set_number_attr(arg.number_attr);
}

void AttrDefToProto(const AttrDef& attr, tensorflow::OpDef::AttrDef* proto) {
  proto->set_name(attr.name);
  proto->set_type(std::string(AttrTypeName(attr.type)));
  if (attr.default_value) {
    auto value = AttrValueToProto(*attr.default_value);
    if (value.ok()) *proto->mutable_default_value() = *value;
  }
  if (!attr.allowed_types.empty()) {
    auto* list = proto->mutable_allowed_values()->mutable_list();
    for (DType d : attr.allowed_types) list->add_type(ProtoType(d));
  }
  if (!attr.allowed_values.empty()) {
    auto* list = proto->mutable_allowed_values()->mutable_list();
    for (const std::string& s : attr.allowed_values) list->add_s(s);
  }
  if (attr.minimum) {
    proto->set_has_minimum(true);
    proto->set_minimum(*attr.minimum);
  }
}

absl::Status KindMismatch(const tensorflow::AttrValue& proto, AttrType type) {
  return absl::InvalidArgumentError(absl::StrCat("attr value ", proto.ShortDebugString(),
                                                 " is not of the declared type ",
                                                 AttrTypeName(type)));
}

}  // namespace

tensorflow::OpDef OpDefToProto(const OpDef& op) {
  tensorflow::OpDef proto;
  proto.set_name(op.name);
  for (const ArgDef& arg : op.inputs) ArgToProto(arg, proto.add_input_arg());
  for (const ArgDef& arg : op.outputs) ArgToProto(arg, proto.add_output_arg());
  for (const AttrDef& attr : op.attrs) AttrDefToProto(attr, proto.add_attr());
  proto.set_summary(op.doc);
  proto.set_is_stateful(op.stateful);
  proto.set_is_commutative(op.commutative);
  return proto;
}

absl::StatusOr<tensorflow::AttrValue> AttrValueToProto(const AttrValue& value) {
  tensorflow::AttrValue proto;
  struct Visitor {
    tensorflow::AttrValue& p;
    absl::Status operator()(std::monostate) {
      return absl::InvalidArgumentError("cannot serialize an unset attr");
    }
    absl::Status operator()(int64_t v) { return p.set_i(v), absl::OkStatus(); }
    absl::Status operator()(float v) { return p.set_f(v), absl::OkStatus(); }
    absl::Status operator()(bool v) { return p.set_b(v), absl::OkStatus(); }
    absl::Status operator()(DType v) { return p.set_type(ProtoType(v)), absl::OkStatus(); }
    absl::Status operator()(const std::string& v) { return p.set_s(v), absl::OkStatus(); }
    absl::Status operator()(const Shape& v) {
      ShapeToProto(v, p.mutable_shape());
      return absl::OkStatus();
    }
    absl::Status operator()(const Tensor& v) { return TensorToProto(v, p.mutable_tensor()); }
    absl::Status operator()(const std::vector<int64_t>& v) {
      auto* list = p.mutable_list();
      for (int64_t x : v) list->add_i(x);
      return absl::OkStatus();
    }
    absl::Status operator()(const std::vector<float>& v) {
      auto* list = p.mutable_list();
      for (float x : v) list->add_f(x);
      return absl::OkStatus();
    }
    absl::Status operator()(const std::vector<std::string>& v) {
      auto* list = p.mutable_list();
      for (const std::string& x : v) list->add_s(x);
      return absl::OkStatus();
    }
    absl::Status operator()(const std::vector<DType>& v) {
      auto* list = p.mutable_list();
      for (DType d : v) list->add_type(ProtoType(d));
      return absl::OkStatus();
    }
    absl::Status operator()(const std::vector<Shape>& v) {
      auto* list = p.mutable_list();
      for (const Shape& s : v) ShapeToProto(s, list->add_shape());
      return absl::OkStatus();
    }
    absl::Status operator()(const FuncAttr& v) {
      p.mutable_func()->set_name(v.name);
      return absl::OkStatus();
    }
  };
  DUET_RETURN_IF_ERROR(std::visit(Visitor{proto}, value));
  return proto;
}

absl::StatusOr<AttrValue> AttrValueFromProto(const tensorflow::AttrValue& proto, AttrType type) {
  using P = tensorflow::AttrValue;
  const bool is_list = proto.value_case() == P::kList;
  switch (type) {
    case AttrType::kInt:
      if (proto.value_case() != P::kI) return KindMismatch(proto, type);
      return AttrValue(proto.i());
    case AttrType::kFloat:
      if (proto.value_case() != P::kF) return KindMismatch(proto, type);
      return AttrValue(proto.f());
    case AttrType::kBool:
      if (proto.value_case() != P::kB) return KindMismatch(proto, type);
      return AttrValue(proto.b());
    case AttrType::kType: {
      if (proto.value_case() != P::kType) return KindMismatch(proto, type);
      DUET_ASSIGN_OR_RETURN(DType d, FromProtoDataType(proto.type()));
      return AttrValue(d);
    }
    case AttrType::kString:
      if (proto.value_case() != P::kS) return KindMismatch(proto, type);
      return AttrValue(proto.s());
    case AttrType::kShape: {
      if (proto.value_case() != P::kShape) return KindMismatch(proto, type);
      DUET_ASSIGN_OR_RETURN(Shape s, ShapeFromProto(proto.shape()));
      return AttrValue(std::move(s));
    }
    case AttrType::kTensor: {
      if (proto.value_case() != P::kTensor) return KindMismatch(proto, type);
      DUET_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(proto.tensor()));
      return AttrValue(std::move(t));
    }
    case AttrType::kListInt:
      if (!is_list) return KindMismatch(proto, type);
      return AttrValue(std::vector<int64_t>(proto.list().i().begin(), proto.list().i().end()));
    case AttrType::kListFloat:
      if (!is_list) return KindMismatch(proto, type);
      return AttrValue(std::vector<float>(proto.list().f().begin(), proto.list().f().end()));
    case AttrType::kListString:
      if (!is_list) return KindMismatch(proto, type);
      return AttrValue(std::vector<std::string>(proto.list().s().begin(), proto.list().s().end()));
    case AttrType::kListType: {
      if (!is_list) return KindMismatch(proto, type);
      std::vector<DType> types;
      for (int t : proto.list().type()) {
        DUET_ASSIGN_OR_RETURN(DType d, FromProtoDataType(t));
        types.push_back(d);
      }
      return AttrValue(std::move(types));
    }
    case AttrType::kListShape: {
      if (!is_list) return KindMismatch(proto, type);
      std::vector<Shape> shapes;
      for (const auto& s : proto.list().shape()) {
        DUET_ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(s));
        shapes.push_back(std::move(shape));
      }
      return AttrValue(std::move(shapes));
    }
    case AttrType::kFunc:
      // The caller resolves the name against the function library (FuncAttr::body).
      if (proto.value_case() != P::kFunc) return KindMismatch(proto, type);
      if (!proto.func().attr().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("function '", proto.func().name(),
                         "' is called with attrs; duet's functions take none"));
      }
      return AttrValue(FuncAttr{proto.func().name(), nullptr});
  }
  return KindMismatch(proto, type);
}

}  // namespace duet
