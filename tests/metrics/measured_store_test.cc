#include "metrics/measured_store.h"

#include <gtest/gtest.h>

#include "host/mem_store.h"

namespace carlos::metrics {
namespace {

TEST(MeasuredStore, CountsByOperationAndOutcomeAndNotesTheLastRead) {
  Registry r;
  StoreMetrics m(r);
  auto mem = std::make_shared<testing::MemStore>();
  FakeClock clock(SystemTime(std::chrono::seconds(1700000000)));
  MeasuredStore store(mem, &m, &clock);

  ASSERT_TRUE(store.Put("a", "x", PutOptions{}).ok());
  PutOptions create{PutCondition::kCreateOnly, ""};
  EXPECT_EQ(store.Put("a", "y", create).status().code(), Code::kPreconditionFailed);
  EXPECT_TRUE(store.Get("a").ok());
  EXPECT_EQ(m.last_read->With({})->value(), 1700000000);
  clock.Advance(std::chrono::seconds(5));
  EXPECT_EQ(store.Get("missing").status().code(), Code::kNotFound);
  EXPECT_EQ(m.last_read->With({})->value(), 1700000005);  // The store answered.
  mem->get_error = Unavailable("the store is down");
  clock.Advance(std::chrono::seconds(5));
  EXPECT_FALSE(store.Get("a").ok());
  EXPECT_EQ(m.last_read->With({})->value(), 1700000005);  // Unchanged by a failure.

  EXPECT_EQ(m.requests->With({"put", "ok"})->value(), 1);
  EXPECT_EQ(m.requests->With({"put", "precondition_failed"})->value(), 1);
  EXPECT_EQ(m.requests->With({"get", "ok"})->value(), 1);
  EXPECT_EQ(m.requests->With({"get", "not_found"})->value(), 1);
  EXPECT_EQ(m.requests->With({"get", "unavailable"})->value(), 1);
  EXPECT_EQ(m.duration->With({"get"})->snapshot().count, 3u);
  EXPECT_EQ(m.duration->With({"put"})->snapshot().count, 2u);
}

TEST(MeasuredStore, CountsByKindWithoutARegistry) {
  testing::MemStore mem;
  MeasuredStore store(&mem);
  ASSERT_TRUE(store.Put("a", "x", PutOptions{}).ok());
  EXPECT_TRUE(store.Get("a").ok());
  EXPECT_FALSE(store.Get("b").ok());
  EXPECT_TRUE(store.Delete("a").ok());
  StoreCounts c = store.counts();
  EXPECT_EQ(c.gets, 2);
  EXPECT_EQ(c.puts, 1);
  EXPECT_EQ(c.deletes, 1);
  EXPECT_EQ(c.total(), 4);
  store.Reset();
  EXPECT_EQ(store.counts().total(), 0);
}

// A store whose conditional read is its own (as S3's 304): the decorator
// must forward to it rather than fall back to Get and compare.
class RevalidatingMem : public testing::MemStore {
 public:
  StatusOr<Revalidated> GetIfNoneMatch(std::string_view key, std::string_view version) override {
    ++conditional;
    return Store::GetIfNoneMatch(key, version);
  }
  int conditional = 0;
};

TEST(MeasuredStore, ForwardsConditionalReadsAndCountsNotModified) {
  Registry r;
  StoreMetrics m(r);
  auto mem = std::make_shared<RevalidatingMem>();
  FakeClock clock(SystemTime(std::chrono::seconds(1700000000)));
  MeasuredStore store(mem, &m, &clock);
  auto v = store.Put("a", "x", PutOptions{});
  ASSERT_TRUE(v.ok());
  auto same = store.GetIfNoneMatch("a", *v);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->not_modified);
  auto other = store.GetIfNoneMatch("a", "stale");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->not_modified);
  EXPECT_EQ(other->object.data, "x");
  EXPECT_EQ(store.GetIfNoneMatch("b", "").status().code(), Code::kNotFound);

  EXPECT_EQ(mem->conditional, 3);
  EXPECT_EQ(m.requests->With({"get", "not_modified"})->value(), 1);
  EXPECT_EQ(m.requests->With({"get", "ok"})->value(), 1);
  EXPECT_EQ(m.requests->With({"get", "not_found"})->value(), 1);
  StoreCounts c = store.counts();
  EXPECT_EQ(c.gets, 3);
  EXPECT_EQ(c.not_modified, 1);
  EXPECT_EQ(c.total(), 4);
}

TEST(BuildInfo, NamesTheRelease) {
  Registry r;
  AddBuildInfo(r);
  std::string text = r.Render();
  EXPECT_NE(text.find("carlos_build_info{version=\"" CARLOS_RELEASE "\",commit=\""),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace carlos::metrics
