#include "metrics/registry.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "metrics/server.h"

namespace carlos::metrics {
namespace {

TEST(Registry, RendersCountersGaugesAndHistogramsInTextFormat004) {
  Registry r;
  auto* requests =
      r.AddCounter("carlos_store_requests_total", "Store requests.", {"operation", "outcome"});
  requests->With({"get", "ok"})->Increment();
  requests->With({"get", "ok"})->Increment(2);
  requests->With({"put", "error"})->Increment();
  auto* stage = r.AddGauge("carlos_box_stage", "Stage, 1 for the current one.", {"stage"});
  stage->With({"joining"})->Set(1);
  stage->With({"hosting"})->Set(0);
  auto* latency = r.AddHistogram("carlos_store_request_duration_seconds", "Latency.", {"operation"},
                                 {0.01, 0.1, 1});
  latency->With({"get"})->Observe(0.0078125);
  latency->With({"get"})->Observe(0.0625);
  latency->With({"get"})->Observe(2.5);
  r.AddGaugeFunc("carlos_up_seconds", "A\\b\nc", [] { return 1.5; });
  r.AddCounter("carlos_unused_total", "No series yet.", {"kind"});
  EXPECT_EQ(r.Render(),
            "# HELP carlos_store_requests_total Store requests.\n"
            "# TYPE carlos_store_requests_total counter\n"
            "carlos_store_requests_total{operation=\"get\",outcome=\"ok\"} 3\n"
            "carlos_store_requests_total{operation=\"put\",outcome=\"error\"} 1\n"
            "# HELP carlos_box_stage Stage, 1 for the current one.\n"
            "# TYPE carlos_box_stage gauge\n"
            "carlos_box_stage{stage=\"hosting\"} 0\n"
            "carlos_box_stage{stage=\"joining\"} 1\n"
            "# HELP carlos_store_request_duration_seconds Latency.\n"
            "# TYPE carlos_store_request_duration_seconds histogram\n"
            "carlos_store_request_duration_seconds_bucket{operation=\"get\",le=\"0.01\"} 1\n"
            "carlos_store_request_duration_seconds_bucket{operation=\"get\",le=\"0.1\"} 2\n"
            "carlos_store_request_duration_seconds_bucket{operation=\"get\",le=\"1\"} 2\n"
            "carlos_store_request_duration_seconds_bucket{operation=\"get\",le=\"+Inf\"} 3\n"
            "carlos_store_request_duration_seconds_sum{operation=\"get\"} 2.5703125\n"
            "carlos_store_request_duration_seconds_count{operation=\"get\"} 3\n"
            "# HELP carlos_up_seconds A\\\\b\\nc\n"
            "# TYPE carlos_up_seconds gauge\n"
            "carlos_up_seconds 1.5\n"
            "# HELP carlos_unused_total No series yet.\n"
            "# TYPE carlos_unused_total counter\n");
}

TEST(Registry, EscapesLabelValues) {
  Registry r;
  r.AddGauge("g", "h", {"v"})->With({"a\"b\\c\nd"})->Set(-2);
  EXPECT_EQ(r.Render(), "# HELP g h\n# TYPE g gauge\ng{v=\"a\\\"b\\\\c\\nd\"} -2\n");
}

TEST(Registry, LabelsAreBoundedBeyondMaxSeries) {
  Registry r;
  auto* f = r.AddCounter("c_total", "h", {"k"});
  for (size_t i = 0; i < Registry::kMaxSeries + 10; ++i) f->With({std::to_string(i)})->Increment();
  auto series = f->series();
  ASSERT_EQ(series.size(), Registry::kMaxSeries + 1);
  Counter* other = f->With({"other"});
  EXPECT_EQ(other->value(), 10);
}

TEST(FormatValue, IntegersFractionsAndSpecials) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(1700000000), "1700000000");
  EXPECT_EQ(FormatValue(0.25), "0.25");
  EXPECT_EQ(FormatValue(0.001), "0.001");
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
  EXPECT_EQ(FormatValue(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(FormatValue(0.0 / 0.0), "NaN");
}

TEST(Registry, CountsFromManyThreadsExactly) {
  Registry r;
  auto* c = r.AddCounter("c_total", "h", {"k"});
  auto* h = r.AddHistogram("h_seconds", "h", {}, {1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c->With({"x"})->Increment();
        h->With({})->Observe(0.5);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c->With({"x"})->value(), 40000);
  EXPECT_EQ(h->With({})->snapshot().count, 40000u);
  EXPECT_EQ(h->With({})->snapshot().cumulative[0], 40000u);
}

TEST(RegistryDeathTest, RefusesBadNamesAndDuplicates) {
  Registry r;
  r.AddCounter("ok_total", "h");
  EXPECT_DEATH(r.AddCounter("ok_total", "h"), "registered once");
  EXPECT_DEATH(r.AddCounter("1bad", "h"), "metric name");
  EXPECT_DEATH(r.AddHistogram("h_seconds", "h", {"le"}), "no label named le");
}

TEST(Answer, ServesMetricsOnlyAtItsPath) {
  Registry r;
  r.AddGauge("g", "h")->With({})->Set(1);
  auto request = [](std::string method, std::string path) {
    net::HttpRequest r;
    r.method = std::move(method);
    r.target = path;
    r.path = std::move(path);
    return r;
  };
  net::HttpRequest get = request("GET", "/metrics");
  net::HttpResponse ok = Answer(r, get);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "# HELP g h\n# TYPE g gauge\ng 1\n");
  ASSERT_EQ(ok.headers.size(), 1u);
  EXPECT_EQ(ok.headers[0].second, "text/plain; version=0.0.4; charset=utf-8");
  net::HttpRequest other = request("GET", "/");
  EXPECT_EQ(Answer(r, other).status, 404);
  net::HttpRequest post = request("POST", "/metrics");
  EXPECT_EQ(Answer(r, post).status, 405);
}

}  // namespace
}  // namespace carlos::metrics
