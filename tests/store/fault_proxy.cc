#include "fault_proxy.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace carlos::testing {

namespace {

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string ErrorAnswer(int status, std::string_view reason, std::string_view code) {
  std::string body = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{}</Code><Message>injected by the "
      "test proxy</Message></Error>",
      code);
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: "
      "close\r\n\r\n{}",
      status, reason, body.size(), body);
}

// Reads one request (head and Content-Length body) from `fd`; false on EOF
// or error.
bool ReadRequest(int fd, std::string* head, std::string* body) {
  std::string buf;
  char tmp[65536];
  size_t end;
  while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf.append(tmp, static_cast<size_t>(n));
  }
  *head = buf.substr(0, end + 4);
  *body = buf.substr(end + 4);
  size_t length = 0;
  std::string lower = *head;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  size_t cl = lower.find("\r\ncontent-length:");
  if (cl != std::string::npos) length = std::stoul(lower.substr(cl + 17));
  while (body->size() < length) {
    ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    body->append(tmp, static_cast<size_t>(n));
  }
  return true;
}

// Sends the request to the server with "Connection: close" and returns its
// whole answer ("" when the server cannot be reached).
std::string Forward(int port, std::string head, const std::string& body) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "";
  }
  // Connection is not a signed header, so adding it keeps the signature.
  head.insert(head.size() - 2, "Connection: close\r\n");
  std::string answer;
  if (SendAll(fd, head) && SendAll(fd, body)) {
    char tmp[65536];
    ssize_t n;
    while ((n = ::recv(fd, tmp, sizeof tmp, 0)) > 0) answer.append(tmp, static_cast<size_t>(n));
  }
  ::close(fd);
  return answer;
}

void Reset(int fd) {
  struct linger l {
    1, 0
  };
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
}

}  // namespace

FaultProxy::FaultProxy(int upstream_port, Plan plan)
    : upstream_port_(upstream_port), plan_(std::move(plan)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::listen(listen_fd_, 64);
  socklen_t len = sizeof a;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  acceptor_ = std::thread([this] { Accept(); });
}

FaultProxy::~FaultProxy() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : threads_) t.join();
}

std::vector<std::string> FaultProxy::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

std::vector<std::string> FaultProxy::heads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return heads_;
}

void FaultProxy::Accept() {
  for (;;) {
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    client_fds_.push_back(fd);
    threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void FaultProxy::Serve(int fd) {
  std::string head, body;
  bool reset = false;
  // One request per connection: every answer says "Connection: close".
  if (ReadRequest(fd, &head, &body)) {
    std::string line = head.substr(0, head.find("\r\n"));
    int index;
    {
      std::lock_guard<std::mutex> lock(mu_);
      index = static_cast<int>(lines_.size());
      lines_.push_back(line);
      heads_.push_back(head);
    }
    Fault f = plan_(index, line);
    switch (f) {
      case Fault::kNone: {
        std::string answer = Forward(upstream_port_, head, body);
        if (answer.empty()) answer = ErrorAnswer(502, "Bad Gateway", "BadGateway");
        SendAll(fd, answer);
        break;
      }
      case Fault::kForwardThen500:
        Forward(upstream_port_, head, body);
        SendAll(fd, ErrorAnswer(500, "Internal Server Error", "InternalError"));
        break;
      case Fault::kForwardThenReset:
        Forward(upstream_port_, head, body);
        Reset(fd);
        reset = true;
        break;
      case Fault::k500:
        SendAll(fd, ErrorAnswer(500, "Internal Server Error", "InternalError"));
        break;
      case Fault::kSlowDown:
        SendAll(fd, ErrorAnswer(503, "Service Unavailable", "SlowDown"));
        break;
      case Fault::kConflict409:
        SendAll(fd, ErrorAnswer(409, "Conflict", "ConditionalRequestConflict"));
        break;
      case Fault::kGarbage200: {
        std::string junk = "<ListBucketResult><Contents><Key>a</Key></Contents";
        SendAll(fd, fmt::format("HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n"
                                "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
                                junk.size(), junk));
        break;
      }
      case Fault::kHang: {
        char tmp[1024];
        while (::recv(fd, tmp, sizeof tmp, 0) > 0) {
        }
        break;
      }
    }
  }
  if (!reset) ::shutdown(fd, SHUT_WR);
  std::lock_guard<std::mutex> lock(mu_);
  client_fds_.erase(std::remove(client_fds_.begin(), client_fds_.end(), fd), client_fds_.end());
  ::close(fd);
}

}  // namespace carlos::testing
