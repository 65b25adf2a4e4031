#include "lbhealth/health.h"

#include <gtest/gtest.h>

#include <thread>

namespace carlos::lbhealth {
namespace {

std::string Header(const Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "<absent>";
}

TEST(Health, StartsJoiningNotHosting) {
  Health h;
  EXPECT_FALSE(h.hosting());
  EXPECT_EQ(h.stage(), "joining");
  auto r = Serve({"GET", "/_carlos/lb"}, h);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status_code, 503);
  EXPECT_EQ(r->body, "joining\n");
  EXPECT_EQ(Header(*r, "Cache-Control"), "no-store");
}

TEST(Health, HostingAnswers200) {
  Health h;
  h.SetHosting(true);
  auto r = Serve({"GET", "/_carlos/lb"}, h);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status_code, 200);
  EXPECT_EQ(r->body, "hosting\n");
  EXPECT_EQ(r->content_length, 8u);
  EXPECT_EQ(Header(*r, "Cache-Control"), "no-store");
  EXPECT_EQ(Header(*r, "Allow"), "<absent>");
}

TEST(Health, StageIsThe503Body) {
  Health h;
  h.SetStage("joining: invited");
  auto r = Serve({"GET", "/_carlos/lb?probe=1"}, h);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status_code, 503);
  EXPECT_EQ(r->body, "joining: invited\n");
  h.SetHosting(true);
  h.SetHosting(false);
  h.SetStage("draining\r\nX-Injected: 1");
  r = Serve({"GET", "/_carlos/lb"}, h);
  EXPECT_EQ(r->status_code, 503);
  EXPECT_EQ(r->body, "draining  X-Injected: 1\n");
}

TEST(Health, HeadHasNoBodyButItsLength) {
  Health h;
  h.SetHosting(true);
  auto r = Serve({"HEAD", "/_carlos/lb"}, h);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status_code, 200);
  EXPECT_EQ(r->body, "");
  EXPECT_EQ(r->content_length, 8u);
}

TEST(Health, OtherMethodsAre405) {
  Health h;
  auto r = Serve({"POST", "/_carlos/lb"}, h);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status_code, 405);
  EXPECT_EQ(Header(*r, "Allow"), "GET, HEAD");
  EXPECT_EQ(Header(*r, "Cache-Control"), "no-store");
}

TEST(Health, OtherPathsAreNotTheHealthChecks) {
  Health h;
  h.SetHosting(true);
  EXPECT_FALSE(Serve({"GET", "/"}, h).has_value());
  EXPECT_FALSE(Serve({"GET", "/_carlos/lb/"}, h).has_value());
  EXPECT_FALSE(Serve({"GET", "/_carlos/lbx"}, h).has_value());
  EXPECT_FALSE(Serve({"GET", "/_carlos"}, h).has_value());
  EXPECT_FALSE(Serve({"GET", "http://x/_carlos/lb"}, h).has_value());
}

TEST(Health, ConcurrentReadersSeeWholeStages) {
  Health h;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < 20000; ++i) h.SetStage(i % 2 ? "joining: invited" : "draining");
    done = true;
  });
  while (!done) {
    std::string s = Serve({"GET", "/_carlos/lb"}, h)->body;
    ASSERT_TRUE(s == "joining\n" || s == "joining: invited\n" || s == "draining\n") << s;
  }
  writer.join();
}

TEST(Health, DefaultIsOneState) { EXPECT_EQ(&Default(), &Default()); }

}  // namespace
}  // namespace carlos::lbhealth
