#include "distribute/tcp_store.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace duet::distribute {
namespace {

using Clock = std::chrono::steady_clock;

// A request is one byte, then length-prefixed strings (a uint32 length, then the bytes).
constexpr char kSet = 'S', kGet = 'G', kWait = 'W';
constexpr uint32_t kMaxValueBytes = 1u << 30;

bool SendAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t sent = ::send(fd, p, n, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    p += sent;
    n -= static_cast<size_t>(sent);
  }
  return true;
}

bool RecvAll(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t got = ::recv(fd, p, n, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool SendBytes(int fd, const char* data, size_t n) {
  const uint32_t length = static_cast<uint32_t>(n);
  return SendAll(fd, &length, sizeof(length)) && SendAll(fd, data, n);
}

template <typename Bytes>  // std::string or std::vector<char>
bool RecvBytes(int fd, Bytes* out) {
  uint32_t length = 0;
  if (!RecvAll(fd, &length, sizeof(length)) || length > kMaxValueBytes) return false;
  out->resize(length);
  return RecvAll(fd, out->data(), length);
}

}  // namespace

// Rank 0's side: a thread accepting connections and one per connection; the values in a map.
class TcpStore::Server {
 public:
  explicit Server(int port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int on = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(static_cast<uint16_t>(port));
    if (listen_fd_ < 0 ||
        ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(listen_fd_, 128) != 0) {
      const std::string why = std::strerror(errno);
      if (listen_fd_ >= 0) ::close(listen_fd_);
      throw std::runtime_error(
          absl::StrCat("cannot serve the rendezvous store on port ", port, ": ", why));
    }
    acceptor_ = std::thread([this] { Accept(); });
  }

  ~Server() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);  // wakes handlers in recv
    }
    changed_.notify_all();  // and those waiting for keys
    acceptor_.join();
    for (std::thread& t : handlers_) t.join();
    for (int fd : client_fds_) ::close(fd);
    ::close(listen_fd_);
  }

 private:
  void Accept() {
    while (true) {
      pollfd poll_fd{listen_fd_, POLLIN, 0};
      const int ready = ::poll(&poll_fd, 1, 100);
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      if (ready <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      client_fds_.push_back(fd);
      handlers_.emplace_back([this, fd] { Serve(fd); });
    }
  }

  // Answers one client's requests until it hangs up (or the server stops).
  void Serve(int fd) {
    while (true) {
      char op = 0;
      if (!RecvAll(fd, &op, 1) || (op != kSet && op != kGet && op != kWait)) return;
      std::vector<std::string> keys(1);
      if (op == kWait) {
        uint32_t count = 0;
        if (!RecvAll(fd, &count, sizeof(count)) || count > (1u << 20)) return;
        keys.resize(count);
      }
      for (std::string& key : keys) {
        if (!RecvBytes(fd, &key)) return;
      }
      if (op == kSet) {
        std::vector<char> value;
        if (!RecvBytes(fd, &value)) return;
        {
          std::lock_guard<std::mutex> lock(mu_);
          values_[keys[0]] = std::move(value);
        }
        changed_.notify_all();
        if (!SendAll(fd, "k", 1)) return;
        continue;
      }
      std::vector<char> value;
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [&] {
          if (stopping_) return true;
          for (const std::string& key : keys) {
            if (!values_.count(key)) return false;
          }
          return true;
        });
        if (stopping_) return;
        if (op == kGet) value = values_[keys[0]];
      }
      const bool sent =
          op == kGet ? SendBytes(fd, value.data(), value.size()) : SendAll(fd, "k", 1);
      if (!sent) return;
    }
  }

  int listen_fd_ = -1;
  std::thread acceptor_;
  std::mutex mu_;
  std::condition_variable changed_;
  bool stopping_ = false;
  std::vector<int> client_fds_;
  std::vector<std::thread> handlers_;
  std::map<std::string, std::vector<char>> values_;
};

TcpStore::TcpStore(const std::string& host, int port, bool serve, std::chrono::milliseconds timeout)
    : address_(absl::StrCat(host, ":", port)), timeout_(timeout) {
  if (serve) server_ = std::make_unique<Server>(port);
  const Clock::time_point deadline = Clock::now() + timeout;
  std::string why;
  while (true) {  // rank 0 may not serve yet: retry until the timeout
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int resolved = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (resolved == 0) {
      fd_ = ::socket(found->ai_family, found->ai_socktype, found->ai_protocol);
      if (fd_ >= 0 && ::connect(fd_, found->ai_addr, found->ai_addrlen) == 0) {
        ::freeaddrinfo(found);
        break;
      }
      why = std::strerror(errno);
      if (fd_ >= 0) ::close(fd_);
      fd_ = -1;
      ::freeaddrinfo(found);
    } else {
      why = ::gai_strerror(resolved);
    }
    if (Clock::now() > deadline) {
      throw std::runtime_error(absl::StrCat("cannot reach the rendezvous store at ", address_,
                                            " (rank 0 serves it): ", why));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const int on = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

TcpStore::~TcpStore() {
  if (fd_ >= 0) ::close(fd_);
  server_.reset();
}

void TcpStore::set(const std::string& key, const std::vector<char>& data) {
  char ack = 0;
  if (!SendAll(fd_, &kSet, 1) || !SendBytes(fd_, key.data(), key.size()) ||
      !SendBytes(fd_, data.data(), data.size()) || !RecvAll(fd_, &ack, 1)) {
    throw std::runtime_error(
        absl::StrCat("the rendezvous store at ", address_, " failed to set '", key, "'"));
  }
}

namespace {

// Bounds the next receives on `fd` by `timeout` (a receive then fails with EAGAIN).
void SetReceiveTimeout(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

}  // namespace

std::vector<char> TcpStore::get(const std::string& key) {
  SetReceiveTimeout(fd_, timeout_);
  std::vector<char> value;
  if (!SendAll(fd_, &kGet, 1) || !SendBytes(fd_, key.data(), key.size()) ||
      !RecvBytes(fd_, &value)) {
    throw std::runtime_error(absl::StrCat("the rendezvous store at ", address_, ": no '", key,
                                          "' within the timeout (timed out; a rank missing?)"));
  }
  return value;
}

void TcpStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void TcpStore::wait(const std::vector<std::string>& keys,
                    const std::chrono::milliseconds& timeout) {
  SetReceiveTimeout(fd_, timeout);
  const uint32_t count = static_cast<uint32_t>(keys.size());
  bool ok = SendAll(fd_, &kWait, 1) && SendAll(fd_, &count, sizeof(count));
  for (const std::string& key : keys) ok = ok && SendBytes(fd_, key.data(), key.size());
  char ack = 0;
  if (!ok || !RecvAll(fd_, &ack, 1)) {
    throw std::runtime_error(absl::StrCat("the rendezvous store at ", address_, ": no ",
                                          absl::StrJoin(keys, ", "),
                                          " within the timeout (timed out; a rank missing?)"));
  }
}

}  // namespace duet::distribute
