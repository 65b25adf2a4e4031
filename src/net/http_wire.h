// The bytes of an HTTP/1.x answer, written by hand rather than through
// Beast's serializer: the health check answers tens of thousands of requests
// a second on one core (README, "Benchmarks": at least nginx's rate), and a
// status line, a few header fields and a short body fit one reused string
// written with one send.
#pragma once

#include <string>
#include <string_view>

#include "net/http_server.h"

namespace carlos::net {

// How the answer is framed.
struct WireFraming {
  unsigned version = 11;   // The request's version: 10 or 11 (HTTP/1.0, HTTP/1.1).
  bool keep_alive = true;  // Whether the connection stays open after the answer.
  bool head = false;       // A HEAD request: headers and Content-Length, no body.
};

// Appends to `out` (which it clears first, keeping its capacity) the answer
// `response` as RFC 9112 §4-6 frame it: "HTTP/1.1 200 OK", the handler's
// header fields in order, Content-Length from the body (for HEAD the body's
// length, and no body, RFC 9110 §9.3.2), and the Connection field the
// framing needs ("close" on an HTTP/1.1 connection that ends, "keep-alive"
// on an HTTP/1.0 one that stays, none otherwise). The handler's own
// Content-Length and Connection fields are dropped (the server owns both);
// a field whose name or value holds CR, LF or NUL is dropped too, so that a
// handler cannot split the answer. A status outside 100..999 is sent as 500.
// Returns whether the connection stays open after this answer: false when
// the framing said so or the handler's fields hold "Connection: close" (the
// bytes then say so, and the caller closes after sending). Pure;
// thread-compatible.
bool SerializeResponse(const HttpResponse& response, WireFraming framing, std::string* out);

}  // namespace carlos::net
