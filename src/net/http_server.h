// A small HTTP/1.1 server on Boost.Asio with Beast's request parser: one
// io_context on one thread, every connection asynchronous, so thousands of
// idle or slow connections cost a socket, a timer and a buffer each, never a
// thread. Answers are written by hand (net/http_wire.h) to keep the health
// check at nginx's rate on one core (README, "Benchmarks"). It serves the
// load balancer's health check (DESIGN.md, "Health check": "it must keep
// answering under many idle or slow connections") and the IMDS emulator
// (`carlos dev imds`).
//
// Timeouts follow the seed's http.Server{ReadHeaderTimeout: 10s}: a
// connection that has not sent a complete request header within
// header_timeout of its start (or of its first byte after a keep-alive
// pause) is closed without an answer. A keep-alive connection idle longer
// than idle_timeout is closed, as is one that does not send its body within
// body_timeout or does not read the answer within write_timeout.
//
// Requests the server refuses by itself, answering and then closing (the
// handler never sees them): a header over max_header_bytes (431); a body
// over max_body_bytes (413); a malformed request, a chunk-size line or
// trailer over max_header_bytes, or a Transfer-Encoding whose last coding is
// not chunked (400, RFC 9112 §6.3); codings before chunked (501). It sends
// "100 Continue" to an HTTP/1.1 request that expects it, before its body.
// After the last answer on a connection it stops sending and drops the
// client's input for up to 500 ms or 64 KiB before closing, so that the
// client reads that answer rather than a reset. Its sockets are
// close-on-exec. Go's net/http behaves the same way in each of these.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace carlos::net {

// Orders header names without regard to ASCII case (HTTP field names are
// case-insensitive, RFC 9110 §5.1).
struct CaseInsensitiveLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const;
};

// Request header fields by name, case-insensitive. Repeated fields are
// joined with ", " (RFC 9110 §5.3).
using HttpHeaders = std::map<std::string, std::string, CaseInsensitiveLess>;

// One request as the handler sees it; the body is complete.
struct HttpRequest {
  std::string method;  // "GET", "HEAD", "PUT", ... as sent.
  std::string target;  // The request target as sent: "/a/b?x=1".
  // The target before '?': "/a/b" (not percent-decoded). For an
  // absolute-form target, "http://host/a/b?x=1", the path after the
  // authority: "/a/b" ("/" when there is none).
  std::string path;
  std::string query;  // The target after '?', "" when none: "x=1".
  HttpHeaders headers;
  std::string body;
  std::string remote_address;  // The peer, "127.0.0.1:53412" or "[::1]:53412".

  // The header's value, "" when absent.
  std::string Header(std::string_view name) const;
  bool HasHeader(std::string_view name) const;
};

// The handler's answer.
struct HttpResponse {
  int status = 200;
  // Response header fields, sent in this order. Content-Length is set by the
  // server from `body` (and must not be given); "Connection: close" here
  // closes the connection after the answer.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The server waits this long (an asio timer: no thread is held) before
  // sending the answer. The IMDS emulator uses it to inject hangs; 0 answers
  // at once.
  Milliseconds delay{0};
};

// Answers one request. It runs on the server's io thread, so it must not
// block (nor call HttpServer::Shutdown); it may be called for many
// connections one after another. For HEAD the server sends the handler's
// headers and the Content-Length of its body, and no body (RFC 9110 §9.3.2),
// so a handler answers HEAD as it answers GET. An exception it throws is
// answered 500 and the connection is closed.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpServer {
 public:
  struct Options {
    // Where to listen, Go style: ":80" is every interface (IPv6 and IPv4
    // where the host has IPv6, else IPv4), "127.0.0.1:8080" one address,
    // "[::1]:8080" an IPv6 one, port 0 any free port (see port()).
    std::string address = ":80";
    // The seed's ReadHeaderTimeout: a connection that has not sent a
    // complete header this long after it opened (or, on a keep-alive
    // connection, after the next request's first byte) is closed.
    Milliseconds header_timeout{10'000};
    // A keep-alive connection with no new request for this long is closed.
    Milliseconds idle_timeout{60'000};
    // The whole body must arrive within this, once the header has.
    Milliseconds body_timeout{30'000};
    // The answer must be taken by the client within this.
    Milliseconds write_timeout{30'000};
    // A larger request body is answered 413 and the connection closed.
    size_t max_body_bytes = 64 * 1024;
    // A larger request header is answered 431 and the connection closed.
    size_t max_header_bytes = 16 * 1024;
  };

  // Binds and listens on `options.address` synchronously, so that a bad
  // address (kInvalidArgument), an address in use or a port needing
  // privileges (kUnavailable / kDenied, naming the address and the system's
  // reason) is returned here; then serves on a thread of its own until
  // Shutdown. `handler` must be non-empty.
  static StatusOr<std::unique_ptr<HttpServer>> Start(Options options, HttpHandler handler);

  // Shuts down (see Shutdown).
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port actually bound (the one chosen when the address said 0).
  int port() const { return port_; }
  // Connections currently open (accepted and not yet closed). Thread-safe;
  // for tests and metrics.
  int open_connections() const;

  // Stops accepting, closes every open connection (an answer being delayed
  // is dropped), and joins the server's thread. Idempotent; thread-safe;
  // must not be called from a handler (it would wait for itself).
  void Shutdown();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

// Splits a Go-style listen address (":80", "127.0.0.1:8080", "[::1]:0",
// "localhost:8080") into host ("" for every interface) and port; an error
// (kInvalidArgument, naming the address) when it has no port or the port is
// not 0..65535.
StatusOr<std::pair<std::string, int>> SplitListenAddress(std::string_view address);

}  // namespace carlos::net
