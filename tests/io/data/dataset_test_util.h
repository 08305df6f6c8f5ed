// Helpers for the data::Dataset tests: reading whole datasets into plain values.
#pragma once

#include <cstdint>
#include <vector>

#include "io/data/dataset.h"

namespace duet::data::testing {

// Every element of one iteration of `ds`, in order.
std::vector<Element> Collect(const Dataset& ds);
// The values of component `component` (int64) of every element, one vector per element.
std::vector<std::vector<int64_t>> Int64Values(const Dataset& ds, size_t component = 0);
// The values of scalar int64 elements (component 0).
std::vector<int64_t> Scalars(const Dataset& ds);
// An int64 tensor of `shape` holding `values`.
Tensor Int64s(const std::vector<int64_t>& values, const Shape& shape);

}  // namespace duet::data::testing
