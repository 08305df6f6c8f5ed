#include "tests/distribute/ranks.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <thread>

#include "distribute/gloo_backend.h"

namespace duet::distribute::testing {

std::string FreshDir() {
  static std::atomic<int> count{0};
  const auto dir = std::filesystem::temp_directory_path() /
                   ("duet_gloo_" + std::to_string(::getpid()) + "_" + std::to_string(count++));
  std::filesystem::remove_all(dir);
  return dir.string();
}

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

std::vector<std::string> OnBackendRanks(int size,
                                        const std::function<void(std::shared_ptr<Backend>)>& fn,
                                        std::chrono::milliseconds timeout) {
  const std::string dir = FreshDir();
  std::vector<std::string> errors(size);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < size; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        fn(ConnectGloo(rank, size, {.rendezvous_dir = dir, .timeout = timeout}));
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
