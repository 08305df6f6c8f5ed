// distribute::ConnectMpi in a job of one (no mpirun: MPI's singleton mode): each collective
// returns its input, bad dtypes and roots are errors. tests/distribute/mpirun_test.sh runs
// collective_worker under mpirun with 2 and 4 processes, and a stalled rank.
#include "distribute/mpi_backend.h"

#include <catch2/catch.hpp>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet::distribute {
namespace {

using testing::ExpectError;

TEST_CASE("A job of one under MPI") {
  auto comm = ConnectMpi({.timeout = std::chrono::seconds(10)});
  CHECK(comm->rank() == 0);
  CHECK(comm->size() == 1);
  CHECK(comm->name() == "mpi");
  const Tensor x = constant({{1.0, 2.0}});
  for (ReduceOp op :
       {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kProduct}) {
    CHECK(comm->all_reduce(x, op).to_vector<double>() == std::vector<double>{1, 2});
  }
  CHECK(comm->all_reduce(constant(std::vector<int64_t>{7}, Shape({1})), ReduceOp::kMean)
            .to_vector<int64_t>() == std::vector<int64_t>{7});
  CHECK(comm->broadcast(x, 0).to_vector<double>() == std::vector<double>{1, 2});
  const Tensor gathered = comm->all_gather(x);
  CHECK(gathered.shape() == Shape({1, 1, 2}));
  comm->barrier();
  ExpectError([&] { comm->all_reduce(constant(std::vector<uint8_t>{1}, Shape({1}))); },
              {"uint8 tensors are not supported"});
  ExpectError([&] { comm->broadcast(x, 1); }, {"root is not a rank"});
}

}  // namespace
}  // namespace duet::distribute
