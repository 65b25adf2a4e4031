// A fault-injecting HTTP/1.1 proxy on a real socket, between the S3 store
// and the test S3 server: it forwards each request and answers faithfully,
// or, as the test's plan says, loses the answer (a 500 or a reset after the
// server has acted), refuses without forwarding (500, 503 SlowDown, 409
// ConditionalRequestConflict), answers garbage, or hangs. This is how the
// tests prove the store's retries and its resolution of unknown outcomes.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace carlos::testing {

enum class Fault {
  kNone,              // Forward and relay the answer.
  kForwardThen500,    // Forward (the server acts), then answer 500 InternalError.
  kForwardThenReset,  // Forward (the server acts), then reset the connection.
  k500,               // Answer 500 InternalError without forwarding.
  kSlowDown,          // Answer 503 SlowDown without forwarding.
  kConflict409,       // Answer 409 ConditionalRequestConflict without forwarding.
  kGarbage200,        // Answer 200 with a body that is not XML.
  kHang,              // Never answer (the client must time out).
};

class FaultProxy {
 public:
  // Decides the fault for the `index`-th request (0-based, in arrival
  // order) whose request line is `line` (e.g. "PUT /bucket/key HTTP/1.1").
  using Plan = std::function<Fault(int index, const std::string& line)>;

  // Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:`upstream_port`.
  FaultProxy(int upstream_port, Plan plan);
  ~FaultProxy();

  int port() const { return port_; }
  // The request lines seen so far, in order.
  std::vector<std::string> requests() const;
  // The whole request heads (request line and headers) seen so far.
  std::vector<std::string> heads() const;

 private:
  void Accept();
  void Serve(int fd);

  int upstream_port_;
  Plan plan_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
  std::vector<std::string> heads_;
  std::vector<int> client_fds_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace carlos::testing
