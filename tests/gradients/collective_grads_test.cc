// The gradients of the collective ops in a job of one (a Gloo group of this process): the
// checker's float64 finite differences, graph and Session agreement, and the same on cpu:1 and a
// GPU. With one rank an all-reduce or a gather passes its input on, so these check the
// gradients' plumbing (groups, instance keys, ordering tokens, devices); the values among
// several ranks are checked against finite differences taken across ranks by
// tests/distribute/collective_ops_test.cc.
#include <unistd.h>

#include <filesystem>
#include <string>

#include "distribute/gloo_backend.h"
#include "tests/gradients/gradient_checker.h"

namespace duet::testing {
namespace {

// This process's job of one, made once.
const distribute::Communicator& JobOfOne() {
  static const distribute::Communicator* comm = [] {
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("duet_grads_" + std::to_string(::getpid())))
            .string();
    auto* c = new distribute::Communicator(distribute::ConnectGloo(0, 1, {.rendezvous_dir = dir}));
    std::filesystem::remove_all(dir);
    return c;
  }();
  return *comm;
}

DUET_GRADIENT_TEST("CollectiveReduceV2", "sum and mean all-reduces") {
  const distribute::Communicator& comm = JobOfOne();
  for (distribute::ReduceOp op : {distribute::ReduceOp::kSum, distribute::ReduceOp::kMean}) {
    CheckGradients("CollectiveReduceV2",
                   [&](const std::vector<Tensor>& x) {
                     return std::vector<Tensor>{comm.all_reduce(x[0] * x[0], op)};
                   },
                   {RandomInput({2, 3}, 11)});
  }
}

DUET_GRADIENT_TEST("CollectiveGatherV2", "a gather's rows back to their rank") {
  const distribute::Communicator& comm = JobOfOne();
  CheckGradients(
      "CollectiveGatherV2",
      [&](const std::vector<Tensor>& x) { return std::vector<Tensor>{comm.all_gather(sin(x[0]))}; },
      {RandomInput({3, 2}, 12)});
}

}  // namespace
}  // namespace duet::testing
