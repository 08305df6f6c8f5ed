// FirstWorking (kernels/common/first_working.h): the order alternatives are tried in, what a
// failure makes later calls skip, and the error when nothing works. The cuDNN convolutions use it
// to fall back from an algorithm that fails to run (Note [cuDNN algorithm fallback]); only a GPU
// runs those, so the policy itself is checked here.
#include "kernels/common/first_working.h"

#include <catch2/catch.hpp>
#include <utility>
#include <vector>

namespace duet {
namespace {

// Runs `list` over `count` alternatives, the i-th of which returns outcome[i]; returns the
// indices tried and the status.
std::pair<std::vector<int>, absl::Status> Tried(const FirstWorking& list, int count,
                                                const std::vector<absl::Status>& outcome) {
  std::vector<int> tried;
  absl::Status status = list.Run(count, [&](int i) {
    tried.push_back(i);
    return outcome[i];
  });
  return {tried, status};
}

const absl::Status kOk = absl::OkStatus();
const absl::Status kFails = absl::InternalError("EXECUTION_FAILED");
const absl::Status kNoMemory = absl::ResourceExhaustedError("out of memory");

TEST_CASE("FirstWorking tries alternatives in order until one works") {
  FirstWorking list;
  auto [tried, status] = Tried(list, 3, {kOk, kOk, kOk});
  CHECK(status.ok());
  CHECK(tried == std::vector<int>{0});
  CHECK(list.failed() == 0);
}

TEST_CASE("FirstWorking passes over an alternative that failed, in later calls too") {
  FirstWorking list;
  auto [tried, status] = Tried(list, 3, {kFails, kOk, kOk});
  CHECK(status.ok());
  CHECK(tried == std::vector<int>{0, 1});
  CHECK(list.failed() == 1);
  auto [again, status2] = Tried(list, 3, {kFails, kOk, kOk});
  CHECK(status2.ok());
  CHECK(again == std::vector<int>{1});
}

TEST_CASE("FirstWorking passes over an alternative out of memory in this call only") {
  FirstWorking list;
  auto [tried, status] = Tried(list, 3, {kNoMemory, kOk, kOk});
  CHECK(status.ok());
  CHECK(tried == std::vector<int>{0, 1});
  CHECK(list.failed() == 0);
  auto [again, status2] = Tried(list, 3, {kOk, kOk, kOk});  // memory to spare now
  CHECK(status2.ok());
  CHECK(again == std::vector<int>{0});
}

TEST_CASE(
    "FirstWorking returns the first error when every alternative fails, and retries the last") {
  FirstWorking list;
  const std::vector<absl::Status> all_fail = {absl::InternalError("first"),
                                              absl::InternalError("second")};
  auto [tried, status] = Tried(list, 2, all_fail);
  CHECK(tried == std::vector<int>{0, 1});
  CHECK(status.message() == "first");
  auto [again, status2] = Tried(list, 2, all_fail);
  CHECK(again == std::vector<int>{1});
  CHECK(status2.message() == "second");
  auto [recovered, status3] = Tried(list, 2, {kFails, kOk});
  CHECK(recovered == std::vector<int>{1});
  CHECK(status3.ok());
}

TEST_CASE("FirstWorking with no alternatives is an error, not a call") {
  FirstWorking list;
  auto [tried, status] = Tried(list, 0, {});
  CHECK(tried.empty());
  CHECK(absl::IsInternal(status));
}

}  // namespace
}  // namespace duet
