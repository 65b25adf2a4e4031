#include "net/http_server.h"

#include <algorithm>
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
};

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

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), timer_(stream_.get_executor()), shared_(std::move(shared)) {
    shared_->open++;
    beast::error_code ec;
    auto ep = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = FormatEndpoint(ep);
  }
  ~Session() { shared_->open--; }

  // Reads the first request (its header deadline starts now).
  void Start() { ReadHeader(); }

  // Closes the connection at once; pending operations complete aborted.
  void Close() {
    closed_ = true;
    timer_.cancel();
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

 private:
  const HttpServer::Options& opts() const { return shared_->options; }

  // Between keep-alive requests: waits up to idle_timeout for the next
  // request's first byte, then gives it header_timeout for the rest.
  void AwaitNext() {
    if (closed_) return;
    if (buffer_.size() > 0) {  // A pipelined request is already here.
      ReadHeader();
      return;
    }
    stream_.expires_after(opts().idle_timeout);
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->Close();
                              self->buffer_.commit(n);
                              self->ReadHeader();
                            });
  }

  void ReadHeader() {
    if (closed_) return;
    parser_.emplace();
    parser_->body_limit(opts().max_body_bytes);
    parser_->header_limit(static_cast<uint32_t>(opts().max_header_bytes));
    stream_.expires_after(opts().header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec == http::error::header_limit) return Fail(431, "request header too large\n");
    if (ec == http::error::body_limit) return Fail(413, "request body too large\n");
    if (ec && ec.category() == http::make_error_code(http::error::end_of_stream).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      return Fail(400, "malformed request\n");
    }
    if (ec) return Close();  // Timeout, reset, or the client went away.
    if (parser_->is_done()) return Handle();
    stream_.expires_after(opts().body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec == http::error::body_limit)
                         return self->Fail(413, "request body too large\n");
                       if (ec) return self->Close();
                       self->Handle();
                     });
  }

  void Handle() {
    auto& req = parser_->get();
    HttpRequest r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    size_t q = r.target.find('?');
    r.path = r.target.substr(0, q);
    if (q != std::string::npos) r.query = r.target.substr(q + 1);
    for (const auto& f : req) {
      std::string name(f.name_string());
      auto [it, inserted] = r.headers.emplace(name, std::string(f.value()));
      if (!inserted) it->second += ", " + std::string(f.value());
    }
    r.body = std::move(req.body());
    r.remote_address = remote_;
    bool keep_alive = req.keep_alive();
    bool head = req.method() == http::verb::head;
    unsigned version = req.version();

    HttpResponse out;
    try {
      out = shared_->handler(r);
    } catch (const std::exception&) {
      out = HttpResponse{.status = 500, .headers = {}, .body = "internal error\n", .delay = {}};
      keep_alive = false;
    }
    res_.emplace();
    res_->version(version);
    res_->result(static_cast<unsigned>(out.status));
    for (auto& [k, v] : out.headers) {
      if (beast::iequals(k, "Connection") && beast::iequals(v, "close")) keep_alive = false;
      if (beast::iequals(k, "Content-Length") || beast::iequals(k, "Connection")) continue;
      res_->insert(k, v);
    }
    size_t length = out.body.size();
    if (!head) res_->body() = std::move(out.body);
    res_->content_length(length);  // HEAD: the GET body's length, no body.
    res_->keep_alive(keep_alive);
    if (out.delay.count() > 0) {
      stream_.expires_never();
      timer_.expires_after(out.delay);
      timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (ec) return self->Close();
        self->Write();
      });
      return;
    }
    Write();
  }

  void Write() {
    if (closed_) return;
    stream_.expires_after(opts().write_timeout);
    http::async_write(stream_, *res_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->Close();
      if (!self->res_->keep_alive()) {
        beast::error_code ignored;
        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        return self->Close();
      }
      self->res_.reset();
      self->AwaitNext();
    });
  }

  // Answers a request the server refuses by itself, then closes.
  void Fail(int status, std::string body) {
    res_.emplace();
    res_->version(11);
    res_->result(static_cast<unsigned>(status));
    res_->set(http::field::content_type, "text/plain; charset=utf-8");
    res_->body() = std::move(body);
    res_->prepare_payload();
    res_->keep_alive(false);
    Write();
  }

  beast::tcp_stream stream_;
  asio::steady_timer timer_;
  std::shared_ptr<Shared> shared_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> res_;
  std::string remote_;
  bool closed_ = false;
};

}  // namespace

struct HttpServer::Impl {
  std::shared_ptr<Shared> shared = std::make_shared<Shared>();
  // Declared before the context so that they are destroyed after it.
  std::vector<std::weak_ptr<Session>> sessions;  // io thread only.
  size_t prune_at = 64;
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  asio::steady_timer retry{ioc};
  std::thread thread;
  std::mutex mu;
  bool shut = false;

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
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
    tcp::acceptor& a = impl->acceptor;
    beast::error_code e;
    a.open(ep.protocol(), e);
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
