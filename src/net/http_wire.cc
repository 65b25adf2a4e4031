#include "net/http_wire.h"

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/status.hpp>
#include <charconv>

namespace carlos::net {

namespace {

bool Splits(std::string_view s) { return s.find_first_of(std::string_view("\r\n\0", 3)) != s.npos; }

void AppendNumber(std::string* out, size_t n) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  out->append(digits, end);
}

}  // namespace

bool SerializeResponse(const HttpResponse& response, WireFraming framing, std::string* out) {
  namespace beast = boost::beast;
  int status = response.status >= 100 && response.status <= 999 ? response.status : 500;
  bool keep_alive = framing.keep_alive;
  for (const auto& [name, value] : response.headers) {
    if (beast::iequals(name, "Connection") && beast::iequals(value, "close")) keep_alive = false;
  }
  out->clear();
  out->append(framing.version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ");
  AppendNumber(out, static_cast<size_t>(status));
  out->push_back(' ');
  auto reason = beast::http::obsolete_reason(static_cast<beast::http::status>(status));
  out->append(reason.data(), reason.size());
  out->append("\r\n");
  for (const auto& [name, value] : response.headers) {
    if (beast::iequals(name, "Content-Length") || beast::iequals(name, "Connection")) continue;
    if (name.empty() || Splits(name) || Splits(value)) continue;
    out->append(name).append(": ").append(value).append("\r\n");
  }
  out->append("Content-Length: ");
  AppendNumber(out, response.body.size());
  out->append("\r\n");
  if (framing.version == 10 && keep_alive) out->append("Connection: keep-alive\r\n");
  if (framing.version != 10 && !keep_alive) out->append("Connection: close\r\n");
  out->append("\r\n");
  if (!framing.head) out->append(response.body);
  return keep_alive;
}

}  // namespace carlos::net
