#include "net/http_server.h"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <charconv>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "net/http_wire.h"

namespace carlos::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

bool CaseInsensitiveLess::operator()(std::string_view a, std::string_view b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) <
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::string HttpRequest::Header(std::string_view name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

bool HttpRequest::HasHeader(std::string_view name) const { return headers.contains(name); }

StatusOr<std::pair<std::string, int>> SplitListenAddress(std::string_view address) {
  auto bad = [&](std::string_view why) {
    return InvalidArgument("listen address \"" + std::string(address) + "\": " + std::string(why) +
                           " (want host:port, e.g. \":80\" or \"127.0.0.1:8080\")");
  };
  size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = address.substr(0, colon);
  std::string_view port_text = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 host must be in brackets");
  }
  int port = -1;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port < 0 || port > 65535) {
    return bad("port \"" + std::string(port_text) + "\" is not a number from 0 to 65535");
  }
  return std::make_pair(std::string(host), port);
}

namespace {

// What every connection shares with the server; it outlives the server's
// io_context, so a connection destroyed with the context may still use it.
struct Shared {
  HttpServer::Options options;
  HttpHandler handler;
  std::atomic<int> open{0};
  // Where closing connections read the input they drop (Session::Linger).
  // One for all: every read runs on the io thread, one at a time, and what
  // lands here is never looked at.
  std::array<char, 4096> discard{};
};

// Asio opens and accepts sockets without close-on-exec; a process that
// serves and also starts others (`carlos dev region` runs the IMDS emulator
// and spawns agents) would hand every listening and accepted socket to its
// children, which then hold the ports after the parent is gone.
void CloseOnExec(int fd) {
  int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

std::string FormatEndpoint(const tcp::endpoint& ep) {
  auto addr = ep.address();
  std::string host = addr.to_string();
  if (addr.is_v6()) {
    auto v6 = addr.to_v6();
    if (v6.is_v4_mapped()) {
      host = asio::ip::make_address_v4(asio::ip::v4_mapped, v6).to_string();
    } else {
      host = "[" + host + "]";
    }
  }
  return host + ":" + std::to_string(ep.port());
}

// Splits a request target into its path and query (without the '?'). An
// absolute-form target ("http://host/a/b?x=1", which a server must accept,
// RFC 9112 §3.2.2) loses its scheme and authority first, and has the path
// "/" when it names none ("http://host?x=1").
void SplitTarget(std::string_view target, std::string* path, std::string* query) {
  bool absolute = false;
  if (!target.empty() && target.front() != '/') {
    if (size_t scheme_end = target.find("://");
        scheme_end != std::string_view::npos && scheme_end > 0) {
      absolute = true;
      size_t rest = target.find_first_of("/?", scheme_end + 3);
      target = rest == std::string_view::npos ? std::string_view() : target.substr(rest);
    }
  }
  size_t q = target.find('?');
  path->assign(target.substr(0, q));
  if (absolute && path->empty()) *path = "/";
  if (q != std::string_view::npos) query->assign(target.substr(q + 1));
}

using Executor = asio::io_context::executor_type;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Acceptor = asio::basic_socket_acceptor<tcp, Executor>;
using Timer = asio::basic_waitable_timer<std::chrono::steady_clock,
                                         asio::wait_traits<std::chrono::steady_clock>, Executor>;

// One connection. Every step runs on the server's io thread. Its sockets and
// timer are bound to the io_context's own executor (not a type-erased one)
// and the answer is written by hand (net/http_wire.h): the health check's
// throughput target is nginx's on one core.
//
// Deadlines: the connection is always in one phase, and each phase has a
// deadline (Options). Entering a phase only moves deadline_; the one timer
// is re-armed when it fires early (the deadline moved later) or when the new
// deadline is nearer than the pending wait. So a keep-alive request costs no
// timer operation at all, and a connection's timer fires about once per
// header_timeout while it is busy.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Socket socket, std::shared_ptr<Shared> shared)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), shared_(std::move(shared)) {
    shared_->open++;
    beast::error_code ec;
    auto ep = socket_.remote_endpoint(ec);
    if (!ec) remote_ = FormatEndpoint(ep);
    socket_.non_blocking(true, ec);  // Write sends directly; see there.
    CloseOnExec(socket_.native_handle());
    // Answers are whole when written: Nagle's algorithm would only hold a
    // pipelined request's answer back until the client's delayed ACK (about
    // 40 ms). Go's http.Server sets it too.
    socket_.set_option(tcp::no_delay(true), ec);
  }
  ~Session() { shared_->open--; }

  // Reads the first request (its header deadline starts now).
  void Start() {
    Enter(Phase::kHeader, opts().header_timeout);
    Read();
  }

  // Closes the connection at once; pending operations complete aborted.
  void Close() {
    if (closed_) return;
    closed_ = true;
    timer_.cancel();
    beast::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }

 private:
  enum class Phase {
    kIdle,    // Keep-alive, between requests: idle_timeout.
    kHeader,  // A request's header is arriving: header_timeout.
    kBody,    // Its body is arriving: body_timeout.
    kDelay,   // The answer is held back (HttpResponse::delay): sent at the deadline.
    kWrite,   // The answer is being sent: write_timeout.
    kLinger,  // The last answer is sent; input is discarded: kLingerTime.
  };

  const HttpServer::Options& opts() const { return shared_->options; }

  void Enter(Phase phase, Milliseconds within) {
    phase_ = phase;
    deadline_ = std::chrono::steady_clock::now() + within;
    Arm();
  }

  // Makes sure the timer fires no later than deadline_.
  void Arm() {
    if (waiting_ && timer_at_ <= deadline_) return;  // It fires first and re-arms.
    timer_at_ = deadline_;
    timer_.expires_at(deadline_);  // Cancels a pending wait: it sees operation_aborted.
    waiting_ = true;
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec == asio::error::operation_aborted) return;  // Replaced, or closed.
      self->waiting_ = false;
      self->OnTimer();
    });
  }

  void OnTimer() {
    if (closed_) return;
    if (std::chrono::steady_clock::now() < deadline_) return Arm();
    if (phase_ == Phase::kDelay) return Write();
    Close();  // A deadline passed: no answer, as Go's http.Server.
  }

  void Read() {
    if (closed_) return;
    socket_.async_read_some(buffer_.prepare(beast::read_size(buffer_, kReadChunk)),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              // An error, EOF included, mid-request or between
                              // requests: the client is gone or gave up.
                              if (ec) return self->Close();
                              self->buffer_.commit(n);
                              if (self->phase_ == Phase::kIdle) {
                                self->Enter(Phase::kHeader, self->opts().header_timeout);
                              }
                              self->Parse();
                            });
  }

  // Feeds what has arrived to the parser: answers a complete request, refuses
  // a bad one, or reads more.
  void Parse() {
    if (closed_) return;
    if (!parser_) {
      parser_.emplace();
      parser_->body_limit(opts().max_body_bytes);
      parser_->header_limit(static_cast<uint32_t>(opts().max_header_bytes));
      header_checked_ = false;
    }
    beast::error_code ec;
    while (buffer_.size() > 0 && !parser_->is_done()) {
      size_t used = parser_->put(buffer_.data(), ec);
      buffer_.consume(used);
      if (ec == http::error::need_more) {
        ec = {};
        break;
      }
      if (ec || used == 0) break;
    }
    if (ec == http::error::header_limit) return Fail(431, "request header too large\n");
    if (ec == http::error::body_limit) return Fail(413, "request body too large\n");
    if (ec) return Fail(400, "malformed request\n");
    if (parser_->is_header_done() && !header_checked_) {
      header_checked_ = true;
      if (!CheckFraming()) return;
      if (!parser_->is_done()) MaybeContinue();
      if (closed_) return;
    }
    if (parser_->is_done()) return Handle();
    if (parser_->is_header_done() && phase_ == Phase::kHeader) {
      Enter(Phase::kBody, opts().body_timeout);
    }
    // What the parser leaves unconsumed is a line it waits to see whole: the
    // header (bounded by header_limit above), or a chunk-size line or a
    // trailer, which Beast does not bound. Bound those too, or one client
    // could make the buffer grow for as long as the body deadline lasts.
    if (buffer_.size() >= opts().max_header_bytes) {
      if (!parser_->is_header_done()) return Fail(431, "request header too large\n");
      return Fail(400, "malformed request: a chunk line or trailer is too long\n");
    }
    Read();
  }

  // Refuses a body whose length cannot be known (RFC 9112 §6.3): a
  // Transfer-Encoding whose last coding is not chunked would leave the body
  // to be read as the next request (Beast ignores such a field). Codings
  // before chunked are not decoded here: 501, as Go's http.Server. Returns
  // false when it has refused the request.
  bool CheckFraming() {
    const auto& req = parser_->get();
    if (req.count(http::field::transfer_encoding) == 0) return true;
    auto te = req[http::field::transfer_encoding];
    beast::string_view trimmed = te;
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t')) {
      trimmed.remove_suffix(1);
    }
    if (req.count(http::field::transfer_encoding) == 1 && beast::iequals(trimmed, "chunked")) {
      return true;
    }
    if (parser_->chunked()) {
      Fail(501, "transfer coding not implemented (only chunked is)\n");
    } else {
      Fail(400, "malformed request: Transfer-Encoding must end with chunked\n");
    }
    return false;
  }

  // Sends "100 Continue" to an HTTP/1.1 client that waits for it before its
  // body (RFC 9110 §10.1.1), as Go's http.Server does when the handler reads
  // the body. No answer is being sent at this point, so the 25 bytes nearly
  // always go at once. If the socket takes none (a client that does not read
  // has filled it), none are sent and the client sends its body after its
  // own wait; if it takes only some, the connection's framing is lost and
  // it is closed.
  void MaybeContinue() {
    const auto& req = parser_->get();
    auto expect = req[http::field::expect];
    if (req.version() != 11 || !beast::iequals(expect, "100-continue")) return;
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    beast::error_code ec;
    size_t sent = socket_.write_some(asio::buffer(kContinue.data(), kContinue.size()), ec);
    if (!ec && sent > 0 && sent < kContinue.size()) Close();
  }

  void Handle() {
    auto& req = parser_->get();
    HttpRequest r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    SplitTarget(r.target, &r.path, &r.query);
    for (const auto& f : req) {
      auto name = f.name_string();
      auto value = f.value();
      auto [it, inserted] =
          r.headers.try_emplace(std::string(name.data(), name.size()), value.data(), value.size());
      if (!inserted) it->second.append(", ").append(value.data(), value.size());
    }
    r.body = std::move(req.body());
    r.remote_address = remote_;
    WireFraming framing{.version = req.version() == 10 ? 10u : 11u,
                        .keep_alive = req.keep_alive(),
                        .head = req.method() == http::verb::head};
    // An HTTP/1.0 message with Transfer-Encoding has faulty framing: answer
    // it, then close (RFC 9112 §6.1).
    if (framing.version == 10 && req.count(http::field::transfer_encoding) > 0) {
      framing.keep_alive = false;
    }
    parser_.reset();

    HttpResponse out;
    try {
      out = shared_->handler(r);
    } catch (const std::exception&) {
      out = HttpResponse{.status = 500, .headers = {}, .body = "internal error\n", .delay = {}};
      framing.keep_alive = false;
    }
    keep_alive_ = SerializeResponse(out, framing, &out_);
    if (out.delay.count() > 0) return Enter(Phase::kDelay, out.delay);
    Write();
  }

  // Sends the answer. A short answer nearly always fits the socket's send
  // buffer, so it is first sent directly (the socket is non-blocking); only
  // what does not fit waits for the reactor. That saves a trip through the
  // io_context's queue for each health check.
  void Write() {
    if (closed_) return;
    Enter(Phase::kWrite, opts().write_timeout);
    beast::error_code ec;
    size_t sent = socket_.write_some(asio::buffer(out_), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      ec = {};
      sent = 0;
    }
    if (ec) return Close();
    if (sent == out_.size()) return Sent();
    asio::async_write(socket_, asio::buffer(out_) + sent,
                      [self = shared_from_this()](beast::error_code ec, size_t) {
                        if (ec) return self->Close();
                        self->Sent();
                      });
  }

  void Sent() {
    if (!keep_alive_) return Linger();
    Next();
  }

  // Ends a connection after its last answer without losing that answer: a
  // close with unread input makes the kernel send a reset, which can discard
  // the answer before the client reads it (a client still sending a refused
  // body, say). So the server stops sending, then reads and drops input
  // until the client closes, kLingerTime passes or kLingerBytes have been
  // dropped (nginx's lingering close, bounded as Go bounds what it reads of
  // a refused body): a client that floods a closing connection gets a reset
  // rather than the io thread's time.
  void Linger() {
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    buffer_.consume(buffer_.size());
    buffer_.shrink_to_fit();  // Nothing more is parsed here.
    Enter(Phase::kLinger, kLingerTime);
    Discard(kLingerBytes);
  }

  void Discard(size_t budget) {
    if (closed_) return;
    socket_.async_read_some(asio::buffer(shared_->discard),
                            [self = shared_from_this(), budget](beast::error_code ec, size_t n) {
                              // EOF (the client is done), an error, or enough.
                              if (ec || n >= budget) return self->Close();
                              self->Discard(budget - n);
                            });
  }

  // After an answer on a keep-alive connection: a pipelined request may
  // already be here; else wait idle for the next one.
  void Next() {
    if (buffer_.size() > 0) {
      // Through the queue, not a direct call: an answer sent at once calls
      // Next from Parse, and a long pipeline would otherwise nest deeply.
      Enter(Phase::kHeader, opts().header_timeout);
      asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Parse(); });
      return;
    }
    Enter(Phase::kIdle, opts().idle_timeout);
    Read();
  }

  // Answers a request the server refuses by itself, then closes.
  void Fail(int status, std::string body) {
    parser_.reset();
    HttpResponse r{.status = status,
                   .headers = {{"Content-Type", "text/plain; charset=utf-8"}},
                   .body = std::move(body),
                   .delay = {}};
    keep_alive_ = SerializeResponse(r, {.version = 11, .keep_alive = false, .head = false}, &out_);
    Write();
  }

  // The most one read asks for. A read takes the buffer's free room, at
  // least 512 bytes (beast::read_size): a health check request is ~100
  // bytes, so an idle connection holds 512 bytes of buffer, and a larger
  // header or body takes several reads (the parser bounds both).
  static constexpr size_t kReadChunk = 4096;
  // How long, and how much of, a closing connection's input is drained
  // (see Linger).
  static constexpr Milliseconds kLingerTime{500};
  static constexpr size_t kLingerBytes = 64 * 1024;

  Socket socket_;
  Timer timer_;
  std::shared_ptr<Shared> shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::string out_;  // The answer being sent; its capacity is reused.
  std::string remote_;
  Phase phase_ = Phase::kHeader;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point timer_at_;  // When the pending wait fires.
  bool waiting_ = false;                            // A wait is pending.
  bool keep_alive_ = true;
  bool header_checked_ = false;  // This request's header passed CheckFraming.
  bool closed_ = false;
};

}  // namespace

struct HttpServer::Impl {
  std::shared_ptr<Shared> shared = std::make_shared<Shared>();
  // Declared before the context so that they are destroyed after it.
  std::vector<std::weak_ptr<Session>> sessions;  // io thread only.
  size_t prune_at = 64;
  // One thread runs the context and alone uses its sockets (Start opens the
  // acceptor before that thread exists; Shutdown only posts to it), so the
  // reactor needs no per-socket locks.
  asio::io_context ioc{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
  Acceptor acceptor{ioc};
  Timer retry{ioc};
  std::thread thread;
  std::mutex mu;
  bool shut = false;

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, Socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (ec) {
        // Out of descriptors or a transient network error: as Go's
        // Server.Serve, wait a little and accept again.
        retry.expires_after(std::chrono::milliseconds(100));
        retry.async_wait([this](beast::error_code e) {
          if (!e) Accept();
        });
        return;
      }
      auto session = std::make_shared<Session>(std::move(socket), shared);
      Track(session);
      session->Start();
      Accept();
    });
  }

  void Track(const std::shared_ptr<Session>& s) {
    if (sessions.size() >= prune_at) {
      std::erase_if(sessions, [](const std::weak_ptr<Session>& w) { return w.expired(); });
      prune_at = std::max<size_t>(64, sessions.size() * 2);
    }
    sessions.push_back(s);
  }

  void CloseAll() {
    beast::error_code ec;
    acceptor.close(ec);
    retry.cancel();
    for (auto& w : sessions) {
      if (auto s = w.lock()) s->Close();
    }
    sessions.clear();
  }
};

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(Options options, HttpHandler handler) {
  if (!handler) return InvalidArgument("HttpServer::Start: no handler");
  CARLOS_ASSIGN_OR_RETURN(auto hp, SplitListenAddress(options.address));
  auto impl = std::make_unique<Impl>();
  impl->shared->options = options;
  impl->shared->handler = std::move(handler);

  const std::string& where = options.address;
  beast::error_code ec;
  std::vector<tcp::endpoint> endpoints;
  if (hp.first.empty()) {
    endpoints.emplace_back(asio::ip::address_v6::any(), hp.second);
    endpoints.emplace_back(asio::ip::address_v4::any(), hp.second);
  } else {
    tcp::resolver resolver(impl->ioc);
    auto results = resolver.resolve(hp.first, std::to_string(hp.second),
                                    tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    if (ec) {
      return InvalidArgument("listen address \"" + where + "\": host \"" + hp.first +
                             "\" does not resolve: " + ec.message());
    }
    for (const auto& r : results) endpoints.push_back(r.endpoint());
  }

  beast::error_code last;
  for (const auto& ep : endpoints) {
    Acceptor& a = impl->acceptor;
    beast::error_code e;
    a.open(ep.protocol(), e);
    if (!e) CloseOnExec(a.native_handle());
    if (e) {
      last = e;
      continue;  // No IPv6 on this host, say: try the next one.
    }
    if (ep.address().is_v6() && hp.first.empty()) a.set_option(asio::ip::v6_only(false), e);
    a.set_option(asio::socket_base::reuse_address(true), e);
    a.bind(ep, e);
    if (!e) a.listen(asio::socket_base::max_listen_connections, e);
    if (!e) {
      last = {};
      break;
    }
    last = e;
    beast::error_code ignored;
    a.close(ignored);
    // An address in use or a refused port is the same on every family:
    // report it rather than hide it behind a fallback.
    if (e == asio::error::address_in_use || e == asio::error::access_denied) break;
  }
  if (last || !impl->acceptor.is_open()) {
    std::string msg = "cannot listen on \"" + where + "\": " + last.message();
    if (last == asio::error::access_denied) {
      return Denied(msg + " (ports below 1024 need root or CAP_NET_BIND_SERVICE)");
    }
    if (last == asio::error::address_in_use) {
      return Unavailable(msg + " (another process listens there)");
    }
    return Unavailable(msg);
  }
  int port = impl->acceptor.local_endpoint(ec).port();
  Impl* raw = impl.get();
  raw->Accept();
  raw->thread = std::thread([raw] { raw->ioc.run(); });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl), port));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl, int port)
    : impl_(std::move(impl)), port_(port) {}

HttpServer::~HttpServer() { Shutdown(); }

int HttpServer::open_connections() const { return impl_->shared->open.load(); }

void HttpServer::Shutdown() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->shut) return;
  impl_->shut = true;
  Impl* raw = impl_.get();
  asio::post(raw->ioc, [raw] {
    raw->CloseAll();
    raw->ioc.stop();  // Aborted handlers are dropped, not run.
  });
  if (raw->thread.joinable()) raw->thread.join();
  // Run the aborted handlers here (the io thread is gone), so that every
  // connection is released now rather than with the server.
  raw->ioc.restart();
  raw->ioc.poll();
}

}  // namespace carlos::net
