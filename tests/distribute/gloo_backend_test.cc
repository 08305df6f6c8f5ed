// distribute::ConnectGloo: every collective and dtype among 2 and 4 ranks (threads of this
// process, each with its own Gloo context, meeting through a rendezvous directory) against the
// values computed here, and the errors: a bad rank, a rank that never joins, a rank that never
// enters a collective (the others fail within the timeout, naming the collective).
#include "distribute/gloo_backend.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/constant.h"
#include "tests/distribute/ranks.h"
#include "tests/test_util.h"

namespace duet::distribute {
namespace {

using ::duet::testing::ExpectError;
using testing::FreshDir;
using testing::OnBackendRanks;

void ExpectNoErrors(const std::vector<std::string>& errors) {
  for (size_t rank = 0; rank < errors.size(); ++rank) {
    INFO("rank " << rank);
    CHECK(errors[rank].empty());
    if (!errors[rank].empty()) WARN(errors[rank]);
  }
}

template <typename T>
void CheckAllReduce(int size, DType dtype) {
  // Rank r holds {r + 1, -(r + 1), 2}: sums, products, extremes and means are known in closed
  // form.
  std::vector<std::vector<std::vector<double>>> got(size);
  const std::vector<ReduceOp> ops = {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMin,
                                     ReduceOp::kMax, ReduceOp::kProduct};
  ExpectNoErrors(OnBackendRanks(size, [&](std::shared_ptr<Backend> backend) {
    Backend& comm = *backend;
    const T r = static_cast<T>(comm.rank() + 1);
    const Tensor mine = constant(std::vector<T>{r, static_cast<T>(-r), T(2)}, Shape({3}));
    REQUIRE(mine.dtype() == dtype);
    for (ReduceOp op : ops) {
      const Tensor out = comm.all_reduce(mine, op);
      REQUIRE(out.dtype() == dtype);
      std::vector<double> values;
      for (T v : out.to_vector<T>()) values.push_back(static_cast<double>(v));
      got[comm.rank()].push_back(values);
    }
  }));
  double sum = 0, product = 1, sign = 1;
  for (int r = 1; r <= size; ++r) {
    sum += r;
    product *= r;
    sign = -sign;
  }
  const double mean = std::is_integral_v<T> ? std::trunc(sum / size) : sum / size;
  const std::vector<std::vector<double>> expected = {
      {sum, -sum, 2.0 * size},
      {mean, -mean, 2},
      {1, -static_cast<double>(size), 2},
      {static_cast<double>(size), -1, 2},
      {product, product * (size % 2 == 0 ? 1 : -1), std::pow(2.0, size)}};
  for (int rank = 0; rank < size; ++rank) {
    INFO("rank " << rank << " dtype " << DTypeName(dtype));
    REQUIRE(got[rank].size() == ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      INFO(ReduceOpName(ops[i]));
      CHECK(got[rank][i] == expected[i]);
    }
  }
}

TEST_CASE("all_reduce gives every rank the reduction, for every op and dtype") {
  for (int size : {2, 4}) {
    CheckAllReduce<float>(size, kFloat32);
    CheckAllReduce<double>(size, kFloat64);
    CheckAllReduce<int32_t>(size, kInt32);
    CheckAllReduce<int64_t>(size, kInt64);
  }
}

TEST_CASE("broadcast, all_gather and barrier") {
  const int size = 3;
  std::vector<std::vector<float>> broadcasts(size), gathers(size);
  std::vector<Shape> gather_shapes(size);
  ExpectNoErrors(OnBackendRanks(size, [&](std::shared_ptr<Backend> backend) {
    Backend& comm = *backend;
    CHECK(comm.size() == size);
    CHECK(comm.name() == "gloo");
    const float r = static_cast<float>(comm.rank());
    const Tensor mine = constant({{r, r + 10}});  // (1, 2)
    broadcasts[comm.rank()] = comm.broadcast(mine, /*root=*/1).to_vector<float>();
    const Tensor gathered = comm.all_gather(mine);
    gather_shapes[comm.rank()] = gathered.shape();
    gathers[comm.rank()] = gathered.to_vector<float>();
    comm.barrier();
  }));
  for (int rank = 0; rank < size; ++rank) {
    CHECK(broadcasts[rank] == std::vector<float>{1, 11});
    CHECK(gather_shapes[rank] == Shape({3, 1, 2}));
    CHECK(gathers[rank] == std::vector<float>{0, 10, 1, 11, 2, 12});
  }
}

TEST_CASE("A rank that never enters a collective fails the others within the timeout") {
  const auto timeout = std::chrono::milliseconds(1500);
  std::atomic<bool> failed{false};
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::string> errors = OnBackendRanks(
      2,
      [&](std::shared_ptr<Backend> backend) {
        Backend& comm = *backend;
        if (comm.rank() == 1) {
          while (!failed) std::this_thread::sleep_for(std::chrono::milliseconds(10));
          return;  // stalled: it never joins the all_reduce
        }
        try {
          comm.all_reduce(constant({1.f, 1.f, 1.f, 1.f}));
        } catch (...) {
          failed = true;
          throw;
        }
      },
      timeout);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 1.5 + 5);
  REQUIRE(!errors[0].empty());
  CHECK_THAT(errors[0], Catch::Contains("rank 0 of 2") && Catch::Contains("all_reduce (sum)") &&
                            Catch::Contains("float32 (4,)") && Catch::Contains("timeout 1.5 s"));
  CHECK(errors[1].empty());
}

TEST_CASE("Bad ranks and a rank that never joins are errors") {
  ExpectError([] { ConnectGloo(2, 2, {.rendezvous_dir = FreshDir()}); },
              {"rank 2 is not a rank of a job of 2"});
  ExpectError([] { ConnectGloo(0, 1, {}); }, {"neither a rendezvous_dir nor a master_addr"});
  const std::string dir = FreshDir();
  const auto start = std::chrono::steady_clock::now();
  ExpectError(
      [&] {
        ConnectGloo(0, 2, {.rendezvous_dir = dir, .timeout = std::chrono::milliseconds(1000)});
      },
      {"rank 0 of 2", "rendezvous", "are all 2 ranks started?"});
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(6));
  std::filesystem::remove_all(dir);
  const std::vector<std::string> errors = OnBackendRanks(1, [](std::shared_ptr<Backend> backend) {
    Backend& comm = *backend;
    CHECK(comm.all_reduce(constant({3.f}), ReduceOp::kMean).to_vector<float>() ==
          std::vector<float>{3});
    ExpectError([&] { comm.all_reduce(constant(std::vector<uint8_t>{1}, Shape({1}))); },
                {"uint8 tensors are not supported"});
    ExpectError([&] { comm.broadcast(constant({1.f}), 3); }, {"root is not a rank"});
  });
  ExpectNoErrors(errors);
}

TEST_CASE("Ranks meet through rank 0's TCP store, and one that never comes is named") {
  const int port = testing::FreePort();
  std::vector<float> sums(3);
  std::vector<std::thread> threads;
  std::vector<std::string> errors(3);
  for (int rank = 0; rank < 3; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        std::shared_ptr<Backend> comm = ConnectGloo(
            rank, 3,
            {.master_addr = "127.0.0.1", .master_port = port, .timeout = std::chrono::seconds(20)});
        sums[rank] = comm->all_reduce(constant({rank + 1.f})).to_vector<float>()[0];
      } catch (const std::exception& e) {
        errors[rank] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int rank = 0; rank < 3; ++rank) {
    CHECK(errors[rank].empty());
    CHECK(sums[rank] == 6.f);
  }
  // Rank 1 of 2 never comes: rank 0 fails within its timeout, naming the store.
  ExpectError(
      [&] {
        ConnectGloo(0, 2,
                    {.master_addr = "127.0.0.1",
                     .master_port = testing::FreePort(),
                     .timeout = std::chrono::milliseconds(1500)});
      },
      {"the rendezvous in 'tcp://127.0.0.1:", "are all 2 ranks started?"});
}

}  // namespace
}  // namespace duet::distribute
