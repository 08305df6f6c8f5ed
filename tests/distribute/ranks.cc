#include "tests/distribute/ranks.h"

#include <unistd.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <thread>

#include "distribute/gloo_communicator.h"

namespace duet::distribute::testing {

std::string FreshDir() {
  static std::atomic<int> count{0};
  const auto dir = std::filesystem::temp_directory_path() /
                   ("duet_gloo_" + std::to_string(::getpid()) + "_" + std::to_string(count++));
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::vector<std::string> OnRanks(int size, const std::function<void(Communicator&)>& fn,
                                 std::chrono::milliseconds timeout) {
  const std::string dir = FreshDir();
  std::vector<std::string> errors(size);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < size; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        auto comm = ConnectGloo(rank, size, {.rendezvous_dir = dir, .timeout = timeout});
        fn(*comm);
      } catch (const std::exception& e) {
        errors[rank] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::filesystem::remove_all(dir);
  return errors;
}

}  // namespace duet::distribute::testing
