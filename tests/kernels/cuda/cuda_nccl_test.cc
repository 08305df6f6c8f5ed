// distribute's NCCL backend in a job of one on cuda:0 (bootstrapped over Gloo): each collective
// on GPU tensors leaves its result on the GPU with the input's values, a Communicator's ops hand
// it GPU tensors as they are, and dtypes it does not take are errors. In the GPU bundle; skips
// without a GPU (and without --config=cuda, which builds NCCL in).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "duet.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"
#if DUET_CUDA
#include "distribute/gloo_backend.h"
#include "distribute/nccl_backend.h"
#endif

namespace duet::distribute {
namespace {

TEST_CASE("A job of one over NCCL keeps its tensors on the GPU") {
  if (duet::testing::SkipWithoutGpu()) return;
#if DUET_CUDA
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("duet_nccl_" + std::to_string(::getpid())))
          .string();
  std::shared_ptr<Backend> bootstrap = ConnectGloo(0, 1, {.rendezvous_dir = dir});
  std::shared_ptr<Backend> nccl =
      ConnectNccl(*bootstrap, {.device = 0, .timeout = std::chrono::seconds(30)});
  std::filesystem::remove_all(dir);
  CHECK(nccl->name() == "nccl");
  CHECK(nccl->works_on(Device::cuda(0)));
  CHECK_FALSE(nccl->works_on(Device::cpu()));
  const Communicator comm(nccl);
  const Tensor x = constant({1.f, -2.f, 3.5f}).gpu();
  for (ReduceOp op :
       {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kProduct}) {
    const Tensor y = comm.all_reduce(x, op);
    CHECK(y.device() == Device::cuda(0));
    CHECK(y.to_vector<float>() == std::vector<float>{1.f, -2.f, 3.5f});
  }
  const Tensor i = constant(std::vector<int64_t>{7, -3}, Shape({2})).gpu();
  CHECK(comm.all_reduce(i, ReduceOp::kMean).to_vector<int64_t>() == std::vector<int64_t>{7, -3});
  const Tensor b = comm.broadcast(x, 0);
  CHECK(b.device() == Device::cuda(0));
  CHECK(b.to_vector<float>() == std::vector<float>{1.f, -2.f, 3.5f});
  const Tensor g = comm.all_gather(x);
  CHECK(g.shape() == Shape({1, 3}));
  CHECK(g.device() == Device::cuda(0));
  comm.barrier();
  // A CPU tensor goes through the host path of the op's CPU kernel: the backend copies it.
  CHECK(comm.all_reduce(constant({2.0}), ReduceOp::kSum).to_vector<double>() ==
        std::vector<double>{2.0});
  duet::testing::ExpectError(
      [&] { comm.all_reduce(constant(std::vector<uint8_t>{1}, Shape({1})).gpu()); },
      {"CollectiveReduceV2", "uint8"});
#endif
}

}  // namespace
}  // namespace duet::distribute
