// HttpServer with real sockets on 127.0.0.1: GET, HEAD, keep-alive, the
// header timeout, many idle connections, bind errors, and Shutdown.
#include "net/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

namespace carlos::net {
namespace {

using namespace std::chrono_literals;

// A blocking client socket with a receive timeout, so a broken server fails
// the test instead of hanging it.
class Client {
 public:
  explicit Client(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    timeval tv{.tv_sec = 5, .tv_usec = 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~Client() {
    if (fd_ >= 0) ::close(fd_);
  }
  Client(const Client&) = delete;
  Client(Client&& o) noexcept : fd_(o.fd_), connected_(o.connected_) { o.fd_ = -1; }

  bool connected() const { return connected_; }
  void Send(const std::string& s) {
    ASSERT_EQ(::send(fd_, s.data(), s.size(), MSG_NOSIGNAL), (ssize_t)s.size());
  }

  // Reads one response: the header, then Content-Length bytes of body unless
  // `head`. Returns "" on EOF or timeout before a full header.
  std::string ReadResponse(bool head = false) {
    while (buf_.find("\r\n\r\n") == std::string::npos) {
      if (!Fill()) return "";
    }
    size_t hdr_end = buf_.find("\r\n\r\n") + 4;
    size_t len = 0;
    std::string lower = buf_.substr(0, hdr_end);
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t cl = lower.find("content-length: ");
    if (cl != std::string::npos && !head) len = std::stoul(lower.substr(cl + 16));
    while (buf_.size() < hdr_end + len) {
      if (!Fill()) return "";
    }
    std::string out = buf_.substr(0, hdr_end + len);
    buf_.erase(0, hdr_end + len);
    return out;
  }

  // True when the server has closed the connection (EOF or reset) within
  // `within`.
  bool ClosedWithin(std::chrono::milliseconds within) { return Ended(within) <= 0; }

  // True when the server has closed the connection in an orderly way (EOF,
  // not a reset) within `within`.
  bool EndedWithEofWithin(std::chrono::milliseconds within) { return Ended(within) == 0; }

  // One non-blocking send: the bytes taken, 0 when the socket is full, -1
  // when the connection is broken (EPIPE, ECONNRESET).
  ssize_t TrySend(const std::string& s) {
    ssize_t n = ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    return n;
  }

  // What recv returned once the socket became readable within `within`: 0 on
  // EOF, -1 on a reset (or an error), 1 when a byte arrived; 2 on no event.
  ssize_t Ended(std::chrono::milliseconds within) {
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, static_cast<int>(within.count())) <= 0) return 2;
    char c;
    return ::recv(fd_, &c, 1, 0);
  }

  // Bytes already buffered beyond the last response.
  const std::string& leftover() const { return buf_; }

 private:
  bool Fill() {
    char tmp[4096];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }
  int fd_ = -1;
  bool connected_ = false;
  std::string buf_;
};

// How long the server took to close `c`, from now; 3 s when it did not.
std::chrono::steady_clock::duration TimeToClose(Client& c) {
  auto t0 = std::chrono::steady_clock::now();
  if (!c.ClosedWithin(3s)) return 3s;
  return std::chrono::steady_clock::now() - t0;
}

HttpResponse Echo(const HttpRequest& r) {
  HttpResponse res;
  res.headers = {{"Content-Type", "text/plain"}, {"X-Path", r.path}};
  res.body =
      r.method + " " + r.path + " q=" + r.query + " tok=" + r.Header("x-TOKEN") + " body=" + r.body;
  return res;
}

std::unique_ptr<HttpServer> MustStart(HttpServer::Options o, HttpHandler h = Echo) {
  auto s = HttpServer::Start(std::move(o), std::move(h));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

HttpServer::Options Local() {
  HttpServer::Options o;
  o.address = "127.0.0.1:0";
  return o;
}

TEST(HttpServer, AnswersGetWithHeadersBodyAndCaseInsensitiveLookup) {
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  ASSERT_GT(s->port(), 0);
  Client c(s->port());
  ASSERT_TRUE(c.connected());
  c.Send("GET /a/b?x=1 HTTP/1.1\r\nHost: h\r\nX-Token: abc\r\n\r\n");
  std::string r = c.ReadResponse();
  EXPECT_EQ(r.substr(0, 15), "HTTP/1.1 200 OK");
  EXPECT_NE(r.find("X-Path: /a/b\r\n"), std::string::npos) << r;
  EXPECT_NE(r.find("Content-Length: 28\r\n"), std::string::npos) << r;
  EXPECT_NE(r.find("\r\n\r\nGET /a/b q=x=1 tok=abc body="), std::string::npos) << r;
}

TEST(HttpServer, HeadSendsGetLengthAndNoBody) {
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("HEAD /p HTTP/1.1\r\nHost: h\r\n\r\n");
  std::string r = c.ReadResponse(/*head=*/true);
  EXPECT_EQ(r.substr(0, 15), "HTTP/1.1 200 OK");
  // The GET body would be "HEAD /p q= tok= body=" (21 bytes).
  EXPECT_NE(r.find("Content-Length: 21\r\n"), std::string::npos) << r;
  // Keep-alive: a following GET's answer starts right after HEAD's header,
  // which proves no body bytes were sent.
  c.Send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n");
  std::string r2 = c.ReadResponse();
  EXPECT_EQ(r2.substr(0, 15), "HTTP/1.1 200 OK") << r2;
  EXPECT_NE(r2.find("GET /next"), std::string::npos) << r2;
}

TEST(HttpServer, KeepAliveServesManyRequestsOnOneConnectionAndPipelining) {
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  for (int i = 0; i < 5; i++) {
    c.Send("PUT /k" + std::to_string(i) + " HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc");
    std::string r = c.ReadResponse();
    EXPECT_NE(r.find("PUT /k" + std::to_string(i) + " q= tok= body=abc"), std::string::npos) << r;
  }
  // Two requests in one write: both answered, in order.
  c.Send("GET /one HTTP/1.1\r\nHost: h\r\n\r\nGET /two HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_NE(c.ReadResponse().find("GET /one"), std::string::npos);
  EXPECT_NE(c.ReadResponse().find("GET /two"), std::string::npos);
  EXPECT_EQ(s->open_connections(), 1);
}

TEST(HttpServer, ConnectionCloseAndHttp10CloseAfterTheAnswer) {
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(c.ReadResponse().find("200 OK"), std::string::npos);
  EXPECT_TRUE(c.ClosedWithin(2s));
  Client d(s->port());
  d.Send("GET / HTTP/1.0\r\n\r\n");
  EXPECT_NE(d.ReadResponse().find("HTTP/1.0 200 OK"), std::string::npos);
  EXPECT_TRUE(d.ClosedWithin(2s));
}

TEST(HttpServer, HeaderTimeoutClosesASlowClient) {
  auto o = Local();
  o.header_timeout = 300ms;
  auto s = MustStart(o);
  ASSERT_NE(s, nullptr);
  Client slow(s->port());
  slow.Send("GET / HTTP/1.1\r\nHost: h\r\n");  // Never finishes its header.
  auto took = TimeToClose(slow);
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 2s);
  // A client that sends nothing at all is closed too.
  Client silent(s->port());
  EXPECT_TRUE(silent.ClosedWithin(3s));
  // And a prompt client is still answered.
  Client ok(s->port());
  ok.Send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_NE(ok.ReadResponse().find("200 OK"), std::string::npos);
}

TEST(HttpServer, IdleKeepAliveConnectionIsClosedAfterIdleTimeout) {
  auto o = Local();
  o.idle_timeout = 300ms;
  auto s = MustStart(o);
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_NE(c.ReadResponse().find("200 OK"), std::string::npos);
  EXPECT_TRUE(c.ClosedWithin(3s));
}

TEST(HttpServer, BodyTimeoutClosesAClientThatStallsItsBody) {
  auto o = Local();
  o.body_timeout = 300ms;
  auto s = MustStart(o);
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc");  // 3 of 10 bytes.
  auto took = TimeToClose(c);
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 2s);
  EXPECT_EQ(c.leftover(), "");  // Closed without an answer.
}

TEST(HttpServer, BusyKeepAliveConnectionOutlivesItsFirstHeaderDeadline) {
  // Each request gets header_timeout afresh: a connection that keeps asking
  // is served well past its first deadline, then closed once it stalls.
  auto o = Local();
  o.header_timeout = 300ms;
  auto s = MustStart(o);
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; i++) {
    c.Send("GET /r" + std::to_string(i) + " HTTP/1.1\r\nHost: h\r\n\r\n");
    EXPECT_NE(c.ReadResponse().find("GET /r" + std::to_string(i)), std::string::npos) << i;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 900ms);
  c.Send("GET /stalled HTTP/1.1\r\n");  // Never finishes this header.
  auto took = TimeToClose(c);
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 2s);
}

TEST(HttpServer, OversizedHeaderIs431AndRepeatedFieldsAreJoined) {
  auto o = Local();
  o.max_header_bytes = 1024;
  auto s = MustStart(o, [](const HttpRequest& r) {
    HttpResponse res;
    res.body = r.Header("X-A");
    return res;
  });
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("GET / HTTP/1.1\r\nHost: h\r\nX-A: one\r\nx-a: two\r\n\r\n");
  std::string r = c.ReadResponse();
  EXPECT_TRUE(r.ends_with("\r\n\r\none, two")) << r;
  Client big(s->port());
  big.Send("GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + std::string(4000, 'b') + "\r\n\r\n");
  std::string answer = big.ReadResponse();
  EXPECT_EQ(answer.substr(0, 12), "HTTP/1.1 431") << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_TRUE(big.ClosedWithin(2s));
  // Just over the limit and still unfinished (no blank line yet): a header
  // too large as well, not a wait for the header deadline.
  std::string start = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: ";
  Client edge(s->port());
  edge.Send(start + std::string(1100 - start.size(), 'p'));
  EXPECT_EQ(edge.ReadResponse().substr(0, 12), "HTTP/1.1 431");
}

TEST(HttpServer, ThousandsOfIdleConnectionsDoNotStopAnswers) {
  rlimit rl{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_cur < 5000 && rl.rlim_max >= 5000) {
    rl.rlim_cur = 5000;
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
  }
  ASSERT_GE(rl.rlim_cur, 5000u) << "the test needs 5000 descriptors (ulimit -n)";
  auto o = Local();
  o.header_timeout = 60s;
  auto s = MustStart(o);
  ASSERT_NE(s, nullptr);
  std::vector<Client> idle;
  idle.reserve(1500);
  for (int i = 0; i < 1500; i++) {
    idle.emplace_back(s->port());
    ASSERT_TRUE(idle.back().connected()) << i;
    if (i % 2 == 0) idle.back().Send("GET / HTTP/1.1\r\n");  // Half send a partial header.
  }
  // Every connection is accepted and held (the server has no thread per
  // connection to run out of).
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (s->open_connections() < 1500 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(s->open_connections(), 1500);
  auto t0 = std::chrono::steady_clock::now();
  Client c(s->port());
  c.Send("GET /still HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_NE(c.ReadResponse().find("GET /still"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

TEST(HttpServer, DelayedAnswerDoesNotBlockOthers) {
  auto s = MustStart(Local(), [](const HttpRequest& r) {
    HttpResponse res;
    res.body = r.path;
    if (r.path == "/slow") res.delay = 1000ms;
    return res;
  });
  ASSERT_NE(s, nullptr);
  Client slow(s->port());
  auto t0 = std::chrono::steady_clock::now();
  slow.Send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
  Client fast(s->port());
  fast.Send("GET /fast HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_NE(fast.ReadResponse().find("/fast"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 800ms);  // Not after the slow one.
  EXPECT_NE(slow.ReadResponse().find("/slow"), std::string::npos);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 1000ms);
}

TEST(HttpServer, OversizedBodyIs413AndMalformedIs400) {
  auto o = Local();
  o.max_body_bytes = 10;
  auto s = MustStart(o);
  ASSERT_NE(s, nullptr);
  Client big(s->port());
  big.Send("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n");
  EXPECT_NE(big.ReadResponse().find("HTTP/1.1 413"), std::string::npos);
  Client bad(s->port());
  bad.Send("NOT HTTP AT ALL\r\n\r\n");
  EXPECT_NE(bad.ReadResponse().find(" 400 "), std::string::npos);
}

TEST(HttpServer, OverlongChunkLineIsRefusedInsteadOfBuffered) {
  // Beast bounds the header, not a chunk-size line or a trailer: the server
  // must, or one client could grow its buffer for the whole body deadline.
  auto o = Local();
  o.max_header_bytes = 1024;
  auto s = MustStart(o);
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;" +
         std::string(8192, 'a'));
  std::string r = c.ReadResponse();
  EXPECT_EQ(r.substr(0, 12), "HTTP/1.1 400") << r;
  EXPECT_NE(r.find("chunk line or trailer is too long"), std::string::npos) << r;
  Client t(s->port());  // The same for a trailer line.
  t.Send("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " +
         std::string(8192, 'a'));
  EXPECT_EQ(t.ReadResponse().substr(0, 12), "HTTP/1.1 400");
}

TEST(HttpServer, TransferEncodingNotEndingInChunkedIsRefusedNotSmuggled) {
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send(
      "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n"
      "GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n");
  std::string r = c.ReadResponse();
  EXPECT_EQ(r.substr(0, 12), "HTTP/1.1 400") << r;
  EXPECT_TRUE(c.ClosedWithin(2s));
  EXPECT_EQ(c.leftover().find("smuggled"), std::string::npos) << c.leftover();
  Client g(s->port());
  g.Send(
      "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
      "3\r\nabc\r\n0\r\n\r\n");
  EXPECT_EQ(g.ReadResponse().substr(0, 12), "HTTP/1.1 501");
  Client ok(s->port());  // Plain chunked is read.
  ok.Send(
      "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked \r\n\r\n"
      "3\r\nabc\r\n0\r\n\r\n");
  std::string body = ok.ReadResponse();
  EXPECT_NE(body.find("POST /a q= tok= body=abc"), std::string::npos) << body;
}

TEST(HttpServer, AbsoluteFormTargetsHaveTheirPath) {
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("GET http://h:80/a/b?x=1 HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_NE(c.ReadResponse().find("GET /a/b q=x=1 tok="), std::string::npos);
  c.Send("GET https://h?y=2 HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_NE(c.ReadResponse().find("GET / q=y=2 tok="), std::string::npos);
  c.Send("GET http://h HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_NE(c.ReadResponse().find("GET / q= tok="), std::string::npos);
}

TEST(HttpServer, ExpectContinueGetsA100BeforeTheBody) {
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("PUT /k HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
  EXPECT_EQ(c.ReadResponse(/*head=*/true), "HTTP/1.1 100 Continue\r\n\r\n");
  c.Send("abc");
  EXPECT_NE(c.ReadResponse().find("PUT /k q= tok= body=abc"), std::string::npos);
}

TEST(HttpServer, PipelinedAnswersAreNotHeldBackByNagle) {
  // With Nagle's algorithm on, the second answer of each pair waits for the
  // client's delayed ACK (about 40 ms): 10 pairs would take 400 ms or more.
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; i++) {
    c.Send("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n");
    EXPECT_NE(c.ReadResponse().find("GET /1"), std::string::npos);
    EXPECT_NE(c.ReadResponse().find("GET /2"), std::string::npos);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 300ms);
}

TEST(HttpServer, RefusedBodyStillGetsItsAnswerAndAnOrderlyClose) {
  // The server stops reading at the 413 with most of the body unread; it
  // drains the input before closing, so the client reads the 413 and an EOF
  // rather than a reset.
  auto o = Local();
  o.max_body_bytes = 10;
  auto s = MustStart(o);
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 60000\r\n\r\n" + std::string(30000, 'b'));
  std::string r = c.ReadResponse();
  EXPECT_EQ(r.substr(0, 12), "HTTP/1.1 413") << r;
  c.Send(std::string(30000, 'b'));  // The rest of the body: no EPIPE, no reset.
  EXPECT_TRUE(c.EndedWithEofWithin(2s));
}

TEST(HttpServer, FloodingAClosingConnectionEndsItAtTheByteBudget) {
  // The drain of a closing connection stops after 64 KiB, well before its
  // 500 ms: a client that keeps sending is reset instead of keeping the io
  // thread busy reading what will be dropped.
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_NE(c.ReadResponse().find("200 OK"), std::string::npos);
  std::string block(16 * 1024, 'f');
  auto t0 = std::chrono::steady_clock::now();
  bool reset = false;
  while (!reset && std::chrono::steady_clock::now() - t0 < 3s) {
    ssize_t n = c.TrySend(block);
    if (n < 0) reset = true;
    if (n == 0) std::this_thread::sleep_for(1ms);  // The socket is full for now.
  }
  EXPECT_TRUE(reset);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 450ms);
}

TEST(HttpServer, HandlerExceptionIs500) {
  auto s = MustStart(Local(),
                     [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("boom"); });
  ASSERT_NE(s, nullptr);
  Client c(s->port());
  c.Send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_NE(c.ReadResponse().find("HTTP/1.1 500"), std::string::npos);
}

TEST(HttpServer, BindErrorsAreClearStatuses) {
  auto s = MustStart(Local());
  ASSERT_NE(s, nullptr);
  auto again = HttpServer::Start({.address = "127.0.0.1:" + std::to_string(s->port())}, Echo);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kUnavailable);
  EXPECT_NE(again.status().message().find(
                "cannot listen on \"127.0.0.1:" + std::to_string(s->port()) + "\""),
            std::string::npos)
      << again.status().message();
  EXPECT_NE(again.status().message().find("in use"), std::string::npos) << again.status().message();

  auto bad = HttpServer::Start({.address = "127.0.0.1"}, Echo);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("no port"), std::string::npos);

  auto range = HttpServer::Start({.address = ":70000"}, Echo);
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.status().code(), Code::kInvalidArgument);

  if (geteuid() != 0) {
    auto priv = HttpServer::Start({.address = "127.0.0.1:1"}, Echo);
    // Unprivileged ports may be lowered by sysctl; when they are not, the
    // refusal says what is needed.
    if (!priv.ok()) {
      EXPECT_EQ(priv.status().code(), Code::kDenied);
      EXPECT_NE(priv.status().message().find("CAP_NET_BIND_SERVICE"), std::string::npos);
    }
  }
}

TEST(HttpServer, SplitListenAddress) {
  auto a = SplitListenAddress(":80");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->first, "");
  EXPECT_EQ(a->second, 80);
  auto b = SplitListenAddress("[::1]:0");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->first, "::1");
  EXPECT_EQ(b->second, 0);
  EXPECT_FALSE(SplitListenAddress("::1:80").ok());
  EXPECT_FALSE(SplitListenAddress("host:").ok());
  EXPECT_FALSE(SplitListenAddress("host:8x").ok());
}

TEST(HttpServer, HostNameAddressIsResolved) {
  // Tests listen on loopback only (never ":0", every interface). "localhost"
  // may resolve to ::1 or 127.0.0.1 first; either way it binds.
  auto s = MustStart({.address = "localhost:0"});
  ASSERT_NE(s, nullptr);
  EXPECT_GT(s->port(), 0);
  auto bad = HttpServer::Start({.address = "no-such-host.invalid:0"}, Echo);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("does not resolve"), std::string::npos)
      << bad.status().message();
}

TEST(HttpServer, ShutdownWithOpenConnectionsReturnsPromptlyAndClosesThem) {
  auto s = MustStart(Local(), [](const HttpRequest&) {
    return HttpResponse{.status = 200, .headers = {}, .body = "late", .delay = 60s};
  });
  ASSERT_NE(s, nullptr);
  std::vector<Client> open;
  for (int i = 0; i < 50; i++) open.emplace_back(s->port());
  Client waiting(s->port());
  waiting.Send("GET / HTTP/1.1\r\nHost: h\r\n\r\n");  // Its answer is delayed 60 s.
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (s->open_connections() < 51 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_EQ(s->open_connections(), 51);
  int port = s->port();
  auto t0 = std::chrono::steady_clock::now();
  s->Shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_EQ(s->open_connections(), 0);
  EXPECT_TRUE(waiting.ClosedWithin(1s));
  EXPECT_TRUE(open[0].ClosedWithin(1s));
  s->Shutdown();  // Idempotent.
  Client after(port);
  EXPECT_FALSE(after.connected());
}

}  // namespace
}  // namespace carlos::net
