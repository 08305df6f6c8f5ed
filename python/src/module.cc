// duet._core: the extension module (python/BUILD.bazel). Each area binds itself; the order
// matters only in that errors come first, so every later binding's errors translate.
#include <nanobind/nanobind.h>

#include <cstdlib>

#include "python/src/errors.h"

namespace duet::python {
void init_tensor(nanobind::module_& m);
void init_ops(nanobind::module_& m);
void init_autodiff(nanobind::module_& m);
void init_graph(nanobind::module_& m);
void init_function(nanobind::module_& m);
void init_control_flow(nanobind::module_& m);
void init_composite(nanobind::module_& m);
void init_io(nanobind::module_& m);
void init_nn(nanobind::module_& m);
void init_data(nanobind::module_& m);
void init_fit(nanobind::module_& m);
void init_distribute(nanobind::module_& m);
void init_optimizers(nanobind::module_& m);
void init_losses(nanobind::module_& m);
void init_metrics(nanobind::module_& m);
void init_summary(nanobind::module_& m);
}  // namespace duet::python

NB_MODULE(_core, m) {
  // Note [Leak warnings]: nanobind reports instances alive when the interpreter ends, which a
  // program's own reference cycles through duet objects cause too (module globals torn down
  // after the extension); the report is for developers: DUET_LEAK_WARNINGS=1 turns it on.
  nanobind::set_leak_warnings(std::getenv("DUET_LEAK_WARNINGS") != nullptr);
  duet::python::init_errors(m);
  duet::python::init_tensor(m);
  duet::python::init_ops(m);
  duet::python::init_autodiff(m);
  duet::python::init_graph(m);
  duet::python::init_function(m);
  duet::python::init_control_flow(m);
  duet::python::init_composite(m);
  duet::python::init_nn(m);
  duet::python::init_data(m);
  duet::python::init_io(m);
  duet::python::init_optimizers(m);
  duet::python::init_losses(m);
  duet::python::init_metrics(m);
  duet::python::init_summary(m);
  duet::python::init_fit(m);
  duet::python::init_distribute(m);
}
