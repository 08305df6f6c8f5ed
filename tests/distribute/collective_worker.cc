// A worker of a job `duet launch` starts (tests/tools/launch_test.cc): joins it
// (distribute::init), all-reduces rank + 1 and prints the sum. "fail R": rank R exits with status
// 3 after joining; "kill R": rank R dies of SIGKILL after joining; "stall R": rank R sleeps
// instead of entering the all-reduce.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "core/constant.h"
#include "core/error.h"
#include "distribute/init.h"

int main(int argc, char** argv) {
  using namespace duet;
  try {
    auto comm = distribute::init();
    const std::string mode = argc > 2 ? argv[1] : "";
    const int chosen = argc > 2 ? std::stoi(argv[2]) : -1;
    if (comm.rank() == chosen && mode == "fail") {
      std::fprintf(stderr, "failing on purpose\n");
      return 3;
    }
    if (comm.rank() == chosen && mode == "kill") std::raise(SIGKILL);
    if (comm.rank() == chosen && mode == "stall") {
      std::this_thread::sleep_for(std::chrono::seconds(120));
    }
    const Tensor sum = comm.all_reduce(constant({static_cast<float>(comm.rank() + 1)}));
    std::printf("rank %d of %d: sum %g\n", comm.rank(), comm.size(), sum.to_vector<float>()[0]);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
