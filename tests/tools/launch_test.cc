// `duet launch`: 1, 2 and 4 workers of tests/distribute/collective_worker meet through the
// launcher's environment and all-reduce (their prefixed lines give the sum); a failing worker
// a killed one and a stalled one end the job with the failing rank named, within the timeout
// plus 5 s; 3 workers meet through a TCP rendezvous; bad usage is exit status 2.
#include "tools/launch.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "tests/distribute/ranks.h"

namespace duet {
namespace {

constexpr char kWorker[] = "tests/distribute/collective_worker";

struct Result {
  int status;
  std::string out, err;
  double seconds;
};

Result Launch(std::vector<std::string> args) {
  std::ostringstream out, err;
  const auto start = std::chrono::steady_clock::now();
  const int status = LaunchCommand(args, out, err);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {status, out.str(), err.str(), seconds};
}

TEST_CASE("Workers meet and all-reduce, their lines prefixed with their rank") {
  for (int n : {1, 2, 4}) {
    INFO(n << " workers");
    const Result r = Launch({"--nproc", std::to_string(n), "--", kWorker});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const int sum = n * (n + 1) / 2;
    for (int rank = 0; rank < n; ++rank) {
      CHECK_THAT(r.out, Catch::Contains("[" + std::to_string(rank) + "] rank " +
                                        std::to_string(rank) + " of " + std::to_string(n) +
                                        ": sum " + std::to_string(sum) + "\n"));
    }
  }
}

TEST_CASE("Workers meet through rank 0's TCP store with --master-addr") {
  const Result r = Launch({"--nproc", "3", "--master-addr", "127.0.0.1", "--master-port",
                           std::to_string(distribute::testing::FreePort()), "--", kWorker});
  INFO(r.err);
  REQUIRE(r.status == 0);
  for (int rank = 0; rank < 3; ++rank) {
    CHECK_THAT(r.out, Catch::Contains("[" + std::to_string(rank) + "] rank " +
                                      std::to_string(rank) + " of 3: sum 6\n"));
  }
}

TEST_CASE("A failing worker stops the others; the launcher exits with its status") {
  const Result r = Launch({"--nproc", "2", "--timeout", "30", "--", kWorker, "fail", "1"});
  CHECK((r.status == 3 || r.status == 1));  // rank 1's status, or its peer's seen first
  CHECK_THAT(r.err, Catch::Contains("[1] failing on purpose") &&
                        Catch::Contains("duet launch: rank 1 exited with status 3"));
  CHECK(r.seconds < 30);  // rank 0 is stopped, not left to time out
}

TEST_CASE("A stalled worker makes the others time out, and the job ends") {
  const Result r = Launch({"--nproc", "2", "--timeout", "2", "--", kWorker, "stall", "1"});
  CHECK(r.status == 1);
  CHECK_THAT(
      r.err,
      Catch::Contains("[0] CollectiveReduceV2: distribute (gloo): rank 0 of 2: all_reduce (sum)") &&
          Catch::Contains("duet launch: rank 0 exited with status 1"));
  CHECK(r.seconds < 2 + 5);  // the timeout plus 5 s (it takes about 2.4 s)
}

TEST_CASE("A killed worker ends the job at once, naming its signal") {
  const Result r = Launch({"--nproc", "2", "--timeout", "30", "--", kWorker, "kill", "1"});
  CHECK(r.status != 0);
  CHECK_THAT(r.err, Catch::Contains("duet launch: rank 1 was killed by signal 9"));
  CHECK(r.seconds < 5);  // not the 30 s timeout
}

TEST_CASE("Bad usage and a missing program") {
  CHECK(Launch({"--nproc", "2"}).status == 2);
  CHECK(Launch({"--nproc", "x", "--", kWorker}).status == 2);
  CHECK(Launch({"--nnodes", "2", "--", kWorker}).status == 2);
  CHECK_THAT(Launch({"--rendezvous-dir", "/tmp/x", "--master-addr", "h", "--", kWorker}).err,
             Catch::Contains("give one"));
  CHECK(Launch({"--master-port", "70000", "--", kWorker}).status == 2);
  const Result missing = Launch({"--nproc", "1", "--", "/no/such/program"});
  CHECK(missing.status == 127);
  CHECK_THAT(missing.err, Catch::Contains("[0] duet launch: cannot run '/no/such/program'"));
}

}  // namespace
}  // namespace duet
