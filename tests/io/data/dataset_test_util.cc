#include "tests/io/data/dataset_test_util.h"

#include "core/constant.h"

namespace duet::data::testing {

std::vector<Element> Collect(const Dataset& ds) {
  std::vector<Element> out;
  for (auto& e : ds) out.push_back(e);
  return out;
}

std::vector<std::vector<int64_t>> Int64Values(const Dataset& ds, size_t component) {
  std::vector<std::vector<int64_t>> out;
  for (auto& e : ds) out.push_back(e.at(component).to_vector<int64_t>());
  return out;
}

std::vector<int64_t> Scalars(const Dataset& ds) {
  std::vector<int64_t> out;
  for (auto& e : ds) out.push_back(e.at(0).item<int64_t>());
  return out;
}

Tensor Int64s(const std::vector<int64_t>& values, const Shape& shape) {
  return constant(values, shape);
}

}  // namespace duet::data::testing
