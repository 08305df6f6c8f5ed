// duet.distribute's C++ half: the communicators of distribute/ (docs/distributed.md), whose
// collectives are ops (they trace in duet.function), and init() from the environment `duet
// launch` or mpirun gives.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "distribute/gradient_tape.h"
#include "distribute/init.h"
#include "distribute/variables.h"
#include "duet.h"
#include "python/src/convert.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

distribute::ReduceOp ReduceOpArg(const std::string& op) {
  for (auto candidate :
       {distribute::ReduceOp::kSum, distribute::ReduceOp::kMean, distribute::ReduceOp::kMin,
        distribute::ReduceOp::kMax, distribute::ReduceOp::kProduct}) {
    if (distribute::ReduceOpName(candidate) == op) return candidate;
  }
  throw Error(absl::InvalidArgumentError(
      absl::StrCat("op '", op, "': one of sum, mean, min, max, product")));
}

}  // namespace

void init_distribute(nb::module_& m) {
  // Collectives wait for the other ranks with the GIL released.
  nb::class_<distribute::Communicator>(m, "Communicator")
      .def_prop_ro("rank", &distribute::Communicator::rank)
      .def_prop_ro("size", &distribute::Communicator::size)
      .def_prop_ro("backend", &distribute::Communicator::backend)
      .def(
          "all_reduce",
          [](const distribute::Communicator& c, nb::handle tensor, const std::string& op) {
            const Tensor t = ToTensor(tensor, "tensor");
            nb::gil_scoped_release release;
            return c.all_reduce(t, ReduceOpArg(op));
          },
          nb::arg("tensor"), nb::arg("op") = "sum")
      .def(
          "broadcast",
          [](const distribute::Communicator& c, nb::handle tensor, int root) {
            const Tensor t = ToTensor(tensor, "tensor");
            nb::gil_scoped_release release;
            return c.broadcast(t, root);
          },
          nb::arg("tensor"), nb::arg("root") = 0)
      .def(
          "all_gather",
          [](const distribute::Communicator& c, nb::handle tensor) {
            const Tensor t = ToTensor(tensor, "tensor");
            nb::gil_scoped_release release;
            return c.all_gather(t);
          },
          nb::arg("tensor"))
      .def("barrier",
           [](const distribute::Communicator& c) {
             nb::gil_scoped_release release;
             c.barrier();
           })
      .def_prop_ro("group_key", &distribute::Communicator::group_key)
      .def(
          "all_reduce_async",
          [](const distribute::Communicator& c, nb::handle tensor, const std::string& op) {
            return c.all_reduce_async(ToTensor(tensor, "tensor"), ReduceOpArg(op));
          },
          nb::arg("tensor"), nb::arg("op") = "sum")
      .def(
          "broadcast_async",
          [](const distribute::Communicator& c, nb::handle tensor, int root) {
            return c.broadcast_async(ToTensor(tensor, "tensor"), root);
          },
          nb::arg("tensor"), nb::arg("root") = 0)
      .def("all_gather_async", [](const distribute::Communicator& c, nb::handle tensor) {
        return c.all_gather_async(ToTensor(tensor, "tensor"));
      });
  // An asynchronous collective's result (Note [Asynchronous collectives]).
  nb::class_<distribute::Work>(m, "Work")
      .def("wait",
           [](const distribute::Work& w) {
             nb::gil_scoped_release release;
             return w.wait();
           })
      .def("done", &distribute::Work::done);
  m.def("_default_communicator", [] { return distribute::default_communicator(); });
  m.def(
      "_broadcast_variables",
      [](const distribute::Communicator& c, const std::vector<Variable>& variables, int root) {
        nb::gil_scoped_release release;
        distribute::broadcast_variables(c, variables, root);
      },
      nb::arg("comm"), nb::arg("variables"), nb::arg("root"));
  m.def(
      "_check_same_variables",
      [](const distribute::Communicator& c, const std::vector<Variable>& variables) {
        nb::gil_scoped_release release;
        distribute::check_same_variables(c, variables);
      },
      nb::arg("comm"), nb::arg("variables"));
  // Gradients (None for a source the target does not depend on) averaged over the ranks.
  m.def(
      "_average_gradients",
      [](const distribute::Communicator& c, std::vector<std::optional<Tensor>> gradients,
         int64_t bucket_bytes) {
        std::vector<Tensor> in;
        for (auto& g : gradients) in.push_back(g ? *g : Tensor());
        std::vector<Tensor> out;
        {
          nb::gil_scoped_release release;
          out = distribute::average_gradients(c, in, bucket_bytes);
        }
        nb::list result;
        for (const Tensor& g : out) result.append(g.defined() ? nb::cast(g) : nb::none());
        return result;
      },
      nb::arg("comm"), nb::arg("gradients"), nb::arg("bucket_bytes"));
  m.def(
      "_distribute_init",
      [](std::optional<double> timeout_seconds, std::optional<std::string> backend) {
        distribute::InitOptions options;
        options.backend = std::move(backend);
        if (timeout_seconds) {
          options.timeout =
              std::chrono::milliseconds(static_cast<int64_t>(*timeout_seconds * 1000));
        }
        nb::gil_scoped_release release;
        return distribute::init(options);
      },
      nb::arg("timeout").none() = nb::none(), nb::arg("backend").none() = nb::none());
}

}  // namespace duet::python
