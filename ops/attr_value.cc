#include "ops/attr_value.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace duet {

absl::string_view AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kBool:
      return "bool";
    case AttrType::kType:
      return "type";
    case AttrType::kString:
      return "string";
    case AttrType::kShape:
      return "shape";
    case AttrType::kTensor:
      return "tensor";
    case AttrType::kListInt:
      return "list(int)";
    case AttrType::kListFloat:
      return "list(float)";
    case AttrType::kListString:
      return "list(string)";
    case AttrType::kListType:
      return "list(type)";
    case AttrType::kListShape:
      return "list(shape)";
    case AttrType::kFunc:
      return "func";
  }
  return "?";
}

AttrType AttrTypeOf(const AttrValue& value) {
  // Indexed by the variant's alternative (see AttrValue); monostate reads as kInt.
  static constexpr AttrType kByIndex[] = {
      AttrType::kInt,       AttrType::kInt,       AttrType::kFloat,      AttrType::kBool,
      AttrType::kType,      AttrType::kString,    AttrType::kShape,      AttrType::kTensor,
      AttrType::kListInt,   AttrType::kListFloat, AttrType::kListString, AttrType::kListType,
      AttrType::kListShape, AttrType::kFunc};
  static_assert(std::size(kByIndex) == std::variant_size_v<AttrValue>);
  return kByIndex[value.index()];
}

std::string AttrValueString(const AttrValue& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "<unset>"; }
    std::string operator()(int64_t v) const { return absl::StrCat(v); }
    std::string operator()(float v) const { return absl::StrCat(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(DType v) const { return std::string(DTypeName(v)); }
    std::string operator()(const std::string& v) const { return absl::StrCat("\"", v, "\""); }
    std::string operator()(const Shape& v) const { return v.str(); }
    std::string operator()(const Tensor& v) const {
      return absl::StrCat("<tensor ", DTypeName(v.dtype()), " ", v.shape().str(), ">");
    }
    std::string operator()(const std::vector<int64_t>& v) const {
      return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
    }
    std::string operator()(const std::vector<float>& v) const {
      return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
    }
    std::string operator()(const std::vector<std::string>& v) const {
      return absl::StrCat("[",
                          absl::StrJoin(v, ", ",
                                        [](std::string* out, const std::string& s) {
                                          absl::StrAppend(out, "\"", s, "\"");
                                        }),
                          "]");
    }
    std::string operator()(const std::vector<DType>& v) const {
      return absl::StrCat(
          "[",
          absl::StrJoin(v, ", ",
                        [](std::string* out, DType d) { absl::StrAppend(out, DTypeName(d)); }),
          "]");
    }
    std::string operator()(const std::vector<Shape>& v) const {
      return absl::StrCat(
          "[",
          absl::StrJoin(v, ", ", [](std::string* out, const Shape& s) { out->append(s.str()); }),
          "]");
    }
    std::string operator()(const FuncAttr& v) const { return v.name; }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace duet
