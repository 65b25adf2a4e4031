#include "lbhealth/listener.h"

#include <curl/curl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace carlos::lbhealth {
namespace {

struct Answer {
  long code = 0;
  std::string body;
  std::string headers;
};

size_t Append(char* p, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(p, size * n);
  return size * n;
}

// `request_target`, when given, is sent as the request line's target instead
// of `path` (an absolute-form target, say).
Answer Fetch(int port, const std::string& path, bool head = false, const char* method = nullptr,
             const char* request_target = nullptr) {
  Answer a;
  CURL* c = curl_easy_init();
  std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &a.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, Append);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &a.headers);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
  if (head) curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  if (method) curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  if (request_target) curl_easy_setopt(c, CURLOPT_REQUEST_TARGET, request_target);
  EXPECT_EQ(curl_easy_perform(c), CURLE_OK);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a.code);
  curl_easy_cleanup(c);
  return a;
}

TEST(Listener, AnswersTheHealthCheckOverARealSocket) {
  Health h;
  auto srv = StartListener("127.0.0.1:0", Milliseconds(10'000), &h);
  ASSERT_TRUE(srv.ok()) << srv.status().ToString();
  int port = (*srv)->port();

  Answer a = Fetch(port, "/_carlos/lb");
  EXPECT_EQ(a.code, 503);
  EXPECT_EQ(a.body, "joining\n");
  EXPECT_NE(a.headers.find("Cache-Control: no-store"), std::string::npos) << a.headers;

  h.SetStage("joining: invited");
  EXPECT_EQ(Fetch(port, "/_carlos/lb").body, "joining: invited\n");

  h.SetHosting(true);
  a = Fetch(port, "/_carlos/lb");
  EXPECT_EQ(a.code, 200);
  EXPECT_EQ(a.body, "hosting\n");

  a = Fetch(port, "/_carlos/lb", /*head=*/true);
  EXPECT_EQ(a.code, 200);
  EXPECT_EQ(a.body, "");
  EXPECT_NE(a.headers.find("Content-Length: 8"), std::string::npos) << a.headers;

  a = Fetch(port, "/", false);
  EXPECT_EQ(a.code, 404);
  EXPECT_EQ(a.body, "404 page not found\n");

  a = Fetch(port, "/_carlos/lb", false, "DELETE");
  EXPECT_EQ(a.code, 405);

  // The absolute form (RFC 9112 §3.2.2: a server must accept it) is the
  // health check too.
  a = Fetch(port, "/", false, nullptr, "http://box-1/_carlos/lb?probe=1");
  EXPECT_EQ(a.code, 200);
  EXPECT_EQ(a.body, "hosting\n");
  (*srv)->Shutdown();
}

TEST(Listener, ClosesAConnectionThatSendsNoHeader) {
  Health h;
  auto srv = StartListener("127.0.0.1:0", Milliseconds(200), &h);
  ASSERT_TRUE(srv.ok());
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>((*srv)->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(write(fd, "GET /_carlos/lb HTTP/1.1\r\n", 26), 26);
  // The header never completes: the server closes the connection (read
  // returns 0) after the header timeout, without an answer.
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  char buf[64];
  EXPECT_EQ(read(fd, buf, sizeof(buf)), 0);
  close(fd);
  // The health check still answers others.
  EXPECT_EQ(Fetch((*srv)->port(), "/_carlos/lb").code, 503);
}

TEST(Listener, AnAddressInUseIsAnError) {
  Health h;
  auto a = StartListener("127.0.0.1:0", Milliseconds(1000), &h);
  ASSERT_TRUE(a.ok());
  auto b = StartListener("127.0.0.1:" + std::to_string((*a)->port()), Milliseconds(1000), &h);
  EXPECT_FALSE(b.ok());
}

}  // namespace
}  // namespace carlos::lbhealth
