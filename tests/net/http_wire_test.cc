// The hand-written answer bytes (net/http_wire.h): status line, fields in
// order, Content-Length, the Connection field each framing needs, HEAD, and
// fields that would split the answer.
#include "net/http_wire.h"

#include <gtest/gtest.h>

namespace carlos::net {
namespace {

HttpResponse Text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "text/plain; charset=utf-8"}, {"Cache-Control", "no-store"}};
  r.body = std::move(body);
  return r;
}

TEST(HttpWire, KeepAliveHttp11AnswerHasNoConnectionField) {
  std::string out;
  EXPECT_TRUE(SerializeResponse(Text(200, "hosting\n"), {}, &out));
  EXPECT_EQ(out,
            "HTTP/1.1 200 OK\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Cache-Control: no-store\r\n"
            "Content-Length: 8\r\n"
            "\r\n"
            "hosting\n");
}

TEST(HttpWire, ClosingHttp11AndKeptHttp10SayConnection) {
  std::string out;
  EXPECT_FALSE(SerializeResponse(Text(503, "joining: invited\n"),
                                 {.version = 11, .keep_alive = false, .head = false}, &out));
  EXPECT_EQ(out,
            "HTTP/1.1 503 Service Unavailable\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Cache-Control: no-store\r\n"
            "Content-Length: 17\r\n"
            "Connection: close\r\n"
            "\r\n"
            "joining: invited\n");
  EXPECT_TRUE(
      SerializeResponse(Text(200, "x"), {.version = 10, .keep_alive = true, .head = false}, &out));
  EXPECT_EQ(out.substr(0, 17), "HTTP/1.0 200 OK\r\n");
  EXPECT_NE(out.find("\r\nConnection: keep-alive\r\n"), std::string::npos) << out;
  EXPECT_FALSE(
      SerializeResponse(Text(200, "x"), {.version = 10, .keep_alive = false, .head = false}, &out));
  EXPECT_EQ(out.find("Connection"), std::string::npos) << out;
}

TEST(HttpWire, HeadSendsTheBodysLengthAndNoBody) {
  std::string out;
  SerializeResponse(Text(200, "hosting\n"), {.version = 11, .keep_alive = true, .head = true},
                    &out);
  EXPECT_TRUE(out.ends_with("Content-Length: 8\r\n\r\n")) << out;
}

TEST(HttpWire, HandlersConnectionCloseEndsTheConnection) {
  HttpResponse r = Text(200, "bye");
  r.headers.emplace_back("connection", "Close");
  std::string out;
  EXPECT_FALSE(SerializeResponse(r, {}, &out));
  EXPECT_NE(out.find("\r\nConnection: close\r\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("connection: Close"), std::string::npos) << out;
}

TEST(HttpWire, ServerOwnsLengthAndDropsFieldsThatWouldSplitTheAnswer) {
  HttpResponse r = Text(404, "nope\n");
  r.headers.emplace_back("Content-Length", "999");
  r.headers.emplace_back("X-Evil", "a\r\nSet-Cookie: b");
  r.headers.emplace_back("X-Evil\n", "a");
  r.headers.emplace_back("", "empty name");
  r.headers.emplace_back("X-Fine", "yes");
  std::string out;
  SerializeResponse(r, {}, &out);
  EXPECT_EQ(out,
            "HTTP/1.1 404 Not Found\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Cache-Control: no-store\r\n"
            "X-Fine: yes\r\n"
            "Content-Length: 5\r\n"
            "\r\n"
            "nope\n");
}

TEST(HttpWire, OutOfRangeStatusIs500AndTheBufferIsReplaced) {
  std::string out = "stale bytes from the last answer";
  SerializeResponse(Text(42, ""), {}, &out);
  EXPECT_EQ(out.substr(0, 35), "HTTP/1.1 500 Internal Server Error\r");
  EXPECT_EQ(out.find("stale"), std::string::npos);
  SerializeResponse(Text(431, ""), {}, &out);
  EXPECT_EQ(out.substr(0, 46), "HTTP/1.1 431 Request Header Fields Too Large\r\n");
}

}  // namespace
}  // namespace carlos::net
