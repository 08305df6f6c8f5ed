// A TCP key-value store for Gloo's rendezvous (gloo::rendezvous::Store): the ranks of a job on
// several machines find each other through rank 0's address instead of a shared directory.
#pragma once

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <memory>
#include <string>

namespace duet::distribute {

// Note [TCP rendezvous]: Debian's Gloo (2022-05) has a file store and a Redis store but no TCP
// store, so duet has this small one, as PyTorch has its own. Rank 0 serves it on port `port` of
// every interface for as long as the TcpStore lives (ConnectGloo keeps it until every rank has
// connected, then drops it); every rank, rank 0 too, is a client over one connection: set() sends
// a value, get() and wait() block until the keys are there. A server that is not up yet is
// retried until the timeout; a get() or wait() that outlives it throws, naming the keys, so a
// rank that never comes fails the others instead of hanging them.
class TcpStore : public gloo::rendezvous::Store {
 public:
  // Connects to host:port, serving it first when `serve` (rank 0).
  TcpStore(const std::string& host, int port, bool serve, std::chrono::milliseconds timeout);
  ~TcpStore() override;

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  class Server;
  std::unique_ptr<Server> server_;
  int fd_ = -1;
  std::string address_;
  std::chrono::milliseconds timeout_;
};

}  // namespace duet::distribute
