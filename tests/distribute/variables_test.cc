// distribute::broadcast_variables and check_same_variables among ranks (threads of this
// process over Gloo).
#include "distribute/variables.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "duet.h"
#include "tests/distribute/communicator_ranks.h"

namespace duet::distribute {
namespace {

using testing::OnRanks;

TEST_CASE("broadcast_variables gives every rank root's values") {
  std::vector<std::vector<float>> after(3);
  const std::vector<std::string> errors = OnRanks(3, [&](const Communicator& comm) {
    const float r = static_cast<float>(comm.rank());
    Variable w(constant({r, r + 1}), "w");
    Variable step(constant(static_cast<int64_t>(comm.rank())), "step");
    check_same_variables(comm, {w, step});
    broadcast_variables(comm, {w, step}, /*root=*/2);
    after[comm.rank()] = w.value().to_vector<float>();
    CHECK(step.value().to_vector<int64_t>() == std::vector<int64_t>{2});
  });
  for (int rank = 0; rank < 3; ++rank) {
    CHECK(errors[rank].empty());
    CHECK(after[rank] == std::vector<float>{2, 3});
  }
}

TEST_CASE("check_same_variables names the first difference on every rank") {
  const std::vector<std::string> shapes = OnRanks(2, [](const Communicator& comm) {
    Variable a(zeros({2}), "dense/bias");
    Variable b(zeros({comm.rank() == 0 ? 4 : 5, 3}), "dense/kernel");
    check_same_variables(comm, {a, b});
  });
  for (const std::string& e : shapes) {
    CHECK_THAT(e, Catch::Contains("variable 1 is 'dense/kernel float32 (4, 3)' on rank 0 but "
                                  "'dense/kernel float32 (5, 3)' on rank 1"));
  }
  const std::vector<std::string> counts = OnRanks(2, [](const Communicator& comm) {
    std::vector<Variable> vars = {Variable(zeros({1}), "a")};
    if (comm.rank() == 1) vars.push_back(Variable(zeros({1}), "b"));
    check_same_variables(comm, vars);
  });
  for (const std::string& e : counts) {
    CHECK_THAT(e, Catch::Contains("variable 1 is nothing (it has 1 variables) on rank 0 but "
                                  "'b float32 (1,)' on rank 1"));
  }
}

}  // namespace
}  // namespace duet::distribute
