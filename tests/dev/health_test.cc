// ProbeHealth and HealthPoller against a real HTTP server on 127.0.0.1.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "dev/region_health.h"
#include "net/http_server.h"

namespace carlos::dev {
namespace {

using std::chrono::milliseconds;

std::unique_ptr<net::HttpServer> Serve(net::HttpHandler h) {
  net::HttpServer::Options o;
  o.address = "127.0.0.1:0";
  auto s = net::HttpServer::Start(o, std::move(h));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(*s);
}

std::string Url(int port) { return "http://127.0.0.1:" + std::to_string(port) + "/_carlos/lb"; }

TEST(ProbeHealth, ReadsTheCodeAndTheStageLine) {
  std::atomic<bool> hosting{false};
  auto server = Serve([&](const net::HttpRequest& r) {
    net::HttpResponse resp;
    if (r.path != "/_carlos/lb") {
      resp.status = 404;
      return resp;
    }
    resp.status = hosting ? 200 : 503;
    resp.body = hosting ? "hosting\n" : "joining: invited\nmore\n";
    return resp;
  });
  EXPECT_EQ(ProbeHealth(Url(server->port()), milliseconds(2000)),
            (HealthAnswer{503, "joining: invited"}));
  hosting = true;
  EXPECT_EQ(ProbeHealth(Url(server->port()), milliseconds(2000)), (HealthAnswer{200, "hosting"}));
}

TEST(ProbeHealth, NoAnswerFromAClosedPortOrAHungServer) {
  auto server = Serve([](const net::HttpRequest&) {
    net::HttpResponse resp;
    resp.delay = milliseconds(5000);
    return resp;
  });
  HealthAnswer hung = ProbeHealth(Url(server->port()), milliseconds(200));
  EXPECT_EQ(hung.code, 0);
  EXPECT_EQ(hung.text, "no answer (timed out)");
  int port = server->port();
  server->Shutdown();
  HealthAnswer refused = ProbeHealth(Url(port), milliseconds(1000));
  EXPECT_EQ(refused.code, 0);
  EXPECT_EQ(refused.text, "no answer (connection refused)");
}

TEST(HealthPoller, KeepsEachBoxsLatestAnswer) {
  std::atomic<int> code{503};
  auto a = Serve([&](const net::HttpRequest&) {
    net::HttpResponse resp;
    resp.status = code;
    resp.body = code == 200 ? "hosting\n" : "joining: recorded\n";
    return resp;
  });
  auto b = Serve([](const net::HttpRequest&) {
    net::HttpResponse resp;
    resp.status = 503;
    resp.body = "draining\n";
    return resp;
  });
  HealthPoller poller({Url(a->port()), Url(b->port())}, milliseconds(20), milliseconds(1000));
  auto wait_for = [&](size_t i, const HealthAnswer& want) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (poller.Latest()[i] == want) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  };
  EXPECT_TRUE(wait_for(0, {503, "joining: recorded"}));
  EXPECT_TRUE(wait_for(1, {503, "draining"}));
  code = 200;
  EXPECT_TRUE(wait_for(0, {200, "hosting"}));
}

}  // namespace
}  // namespace carlos::dev
