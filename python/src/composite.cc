// C++ functions written over other ops (no op of their own, so no generated binding) that the
// Python API calls: sort, argsort, boolean_mask and the seedless random ops of the global
// generator (Note [Global random state] in eager/global_random.h).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "duet.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {

void init_composite(nb::module_& m) {
  m.def("_sort", [](nb::handle values, int64_t axis, bool descending) {
    return sort(ToTensor(values, "values"), axis, descending, PythonCallSite());
  });
  m.def("_argsort", [](nb::handle values, int64_t axis, bool descending) {
    return argsort(ToTensor(values, "values"), axis, descending, PythonCallSite());
  });
  m.def("_boolean_mask", [](nb::handle tensor, nb::handle mask, int64_t axis) {
    return boolean_mask(ToTensor(tensor, "tensor"), ToTensor(mask, "mask"), axis, PythonCallSite());
  });
  // Without a seed, the global generator; with one, the stateless op on [seed, 0].
  m.def("_random_normal", [](std::vector<int64_t> shape, nb::handle dtype, double mean,
                             double stddev, std::optional<int64_t> seed) {
    const DType d = DTypeArg(dtype).value_or(kFloat32);
    return seed ? random_normal(Shape(shape), *seed, d, mean, stddev, PythonCallSite())
                : random_normal(Shape(shape), d, mean, stddev, PythonCallSite());
  });
  m.def("_random_uniform", [](std::vector<int64_t> shape, nb::handle dtype, double minval,
                              double maxval, std::optional<int64_t> seed) {
    const DType d = DTypeArg(dtype).value_or(kFloat32);
    return seed ? random_uniform(Shape(shape), *seed, d, minval, maxval, PythonCallSite())
                : random_uniform(Shape(shape), d, minval, maxval, PythonCallSite());
  });
}

}  // namespace duet::python
