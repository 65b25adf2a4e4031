// The store's contract (store.h), checked the same way on both backends: the
// directory in a temporary directory, S3 against the real Ceph RGW and
// against the AWS-like server (tests/harness/aws-s3-server), which answers
// as AWS documents where RGW does not (If-Match on a missing key).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "backend_fixture.h"
#include "store/cached_reads.h"

namespace carlos::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ConformanceTest = BackendTest;

std::string AllBytes() {
  std::string s;
  for (int i = 0; i < 256; ++i) s.push_back(static_cast<char>(i));
  return s;
}

TEST_P(ConformanceTest, GetMissingIsNotFound) {
  auto got = store().Get("control/boxes/nobody.json");
  EXPECT_EQ(got.status().code(), Code::kNotFound) << got.status().message();
}

TEST_P(ConformanceTest, PutThenGetReturnsBytesAndVersion) {
  std::string data = AllBytes() + "{\"format\":\"x\"}";
  auto v1 = store().Put("control/boxes/web-1.json", data, {});
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  EXPECT_FALSE(v1->empty());
  auto got = store().Get("control/boxes/web-1.json");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->data, data);
  EXPECT_EQ(got->version, *v1);
  EXPECT_EQ(got->version.find('"'), std::string::npos) << "version tags carry no quotes";

  auto v2 = store().Put("control/boxes/web-1.json", "second", {});
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_NE(*v2, *v1);
  EXPECT_EQ(store().Get("control/boxes/web-1.json")->data, "second");
  // The same bytes give the same tag (both backends hash the bytes).
  auto v3 = store().Put("control/boxes/web-1.json", data, {});
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(*v3, *v1);
}

TEST_P(ConformanceTest, EmptyObject) {
  ASSERT_TRUE(store().Put("status/boxes/empty.json", "", {}).ok());
  auto got = store().Get("status/boxes/empty.json");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->data, "");
}

TEST_P(ConformanceTest, SizeLimit) {
  std::string max(kMaxObjectBytes, 'm');
  auto v = store().Put("big/max", max, {});
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(store().Get("big/max")->data.size(), kMaxObjectBytes);

  auto over = store().Put("big/over", std::string(kMaxObjectBytes + 1, 'o'), {});
  EXPECT_EQ(over.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(over.status().message(), HasSubstr("1048577 bytes"));
  EXPECT_EQ(store().Get("big/over").status().code(), Code::kNotFound) << "nothing written";
  // An oversized replacement leaves the old object.
  EXPECT_FALSE(store().Put("big/max", std::string(kMaxObjectBytes + 1, 'x'), {}).ok());
  EXPECT_EQ(store().Get("big/max")->version, *v);
}

TEST_P(ConformanceTest, CreateOnly) {
  PutOptions create{PutCondition::kCreateOnly, ""};
  auto v = store().Put("control/boxes/db-1.json", "first", create);
  ASSERT_TRUE(v.ok()) << v.status().message();
  auto again = store().Put("control/boxes/db-1.json", "second", create);
  EXPECT_EQ(again.status().code(), Code::kPreconditionFailed) << again.status().message();
  auto got = store().Get("control/boxes/db-1.json");
  EXPECT_EQ(got->data, "first");
  EXPECT_EQ(got->version, *v);
  // After a delete the key can be created again.
  ASSERT_TRUE(store().Delete("control/boxes/db-1.json").ok());
  EXPECT_TRUE(store().Put("control/boxes/db-1.json", "third", create).ok());
  EXPECT_EQ(store().Get("control/boxes/db-1.json")->data, "third");
}

TEST_P(ConformanceTest, CompareAndSwap) {
  auto v1 = store().Put("control/edges/a.json", "v1", {});
  ASSERT_TRUE(v1.ok());
  auto v2 = store().Put("control/edges/a.json", "v2", {PutCondition::kIfMatch, *v1});
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ(store().Get("control/edges/a.json")->data, "v2");

  // A stale tag loses, and the current document stays.
  auto stale = store().Put("control/edges/a.json", "lost", {PutCondition::kIfMatch, *v1});
  EXPECT_EQ(stale.status().code(), Code::kPreconditionFailed) << stale.status().message();
  auto got = store().Get("control/edges/a.json");
  EXPECT_EQ(got->data, "v2");
  EXPECT_EQ(got->version, *v2);

  // The current tag with junk appended never matches (Ceph RGW compares
  // only a prefix of If-Match; the S3 backend refuses such tags itself).
  auto junk = store().Put("control/edges/a.json", "junk", {PutCondition::kIfMatch, *v2 + "00"});
  EXPECT_EQ(junk.status().code(), Code::kPreconditionFailed);
  auto bogus = store().Put("control/edges/a.json", "bogus", {PutCondition::kIfMatch, "0123"});
  EXPECT_EQ(bogus.status().code(), Code::kPreconditionFailed);
  EXPECT_EQ(store().Get("control/edges/a.json")->data, "v2");

  // A missing key never matches.
  auto missing = store().Put("control/edges/none.json", "x", {PutCondition::kIfMatch, *v2});
  EXPECT_EQ(missing.status().code(), Code::kPreconditionFailed) << missing.status().message();
  EXPECT_EQ(store().Get("control/edges/none.json").status().code(), Code::kNotFound);

  // An empty tag is the caller's mistake.
  EXPECT_EQ(store().Put("control/edges/a.json", "x", {PutCondition::kIfMatch, ""}).status().code(),
            Code::kInvalidArgument);
}

TEST_P(ConformanceTest, CompareAndSwapAcceptsQuotedAndUnquotedTags) {
  auto v1 = store().Put("k/quoted", "v1", {});
  ASSERT_TRUE(v1.ok());
  // The ETag form an HTTP header carries, with quotes.
  auto v2 = store().Put("k/quoted", "v2", {PutCondition::kIfMatch, "\"" + *v1 + "\""});
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  auto v3 = store().Put("k/quoted", "v3", {PutCondition::kIfMatch, *v2});
  ASSERT_TRUE(v3.ok()) << v3.status().message();
  EXPECT_EQ(store().Get("k/quoted")->data, "v3");
  // A quoted stale tag still loses.
  EXPECT_EQ(
      store().Put("k/quoted", "v4", {PutCondition::kIfMatch, "\"" + *v1 + "\""}).status().code(),
      Code::kPreconditionFailed);
}

// Store::GetIfNoneMatch: "not modified" while the caller's tag is current
// (S3: a 304 to If-None-Match, GetObject), the object once it changed.
TEST_P(ConformanceTest, GetIfNoneMatchAnswersNotModifiedWhileTheTagIsCurrent) {
  const std::string key = "control/invitations/web-1.json";
  auto v1 = store().Put(key, "invitation one", {});
  ASSERT_TRUE(v1.ok()) << v1.status().message();

  auto same = store().GetIfNoneMatch(key, *v1);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_TRUE(same->not_modified);
  EXPECT_EQ(same->object.data, "") << "no bytes with not modified";
  EXPECT_EQ(same->object.version, "");

  auto v2 = store().Put(key, "invitation two", {});
  ASSERT_TRUE(v2.ok());
  auto changed = store().GetIfNoneMatch(key, *v1);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_FALSE(changed->not_modified);
  EXPECT_EQ(changed->object.data, "invitation two");
  EXPECT_EQ(changed->object.version, *v2);
  EXPECT_TRUE(store().GetIfNoneMatch(key, *v2)->not_modified);

  // No tag is a plain read.
  auto plain = store().GetIfNoneMatch(key, "");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->not_modified);
  EXPECT_EQ(plain->object.data, "invitation two");

  // A tag with anything appended is another tag: never "not modified"
  // (Ceph RGW compares only a prefix of If-Match; s3_store.h).
  auto junk = store().GetIfNoneMatch(key, *v2 + "0");
  ASSERT_TRUE(junk.ok()) << junk.status().message();
  EXPECT_FALSE(junk->not_modified);
  EXPECT_EQ(junk->object.version, *v2);

  // Gone since it was read: not found, as Get.
  ASSERT_TRUE(store().Delete(key).ok());
  EXPECT_EQ(store().GetIfNoneMatch(key, *v2).status().code(), Code::kNotFound);
  EXPECT_EQ(store().GetIfNoneMatch("control/invitations/nobody.json", *v2).status().code(),
            Code::kNotFound);
  EXPECT_EQ(store().GetIfNoneMatch("/bad", *v2).status().code(), Code::kInvalidArgument);
}

// Forwards to a backend and counts its conditional reads' answers.
class CountingRevalidations : public Store {
 public:
  explicit CountingRevalidations(Store* inner) : inner_(inner) {}
  StatusOr<Object> Get(std::string_view key) override {
    ++gets;
    return inner_->Get(key);
  }
  StatusOr<Revalidated> GetIfNoneMatch(std::string_view key, std::string_view version) override {
    StatusOr<Revalidated> r = inner_->GetIfNoneMatch(key, version);
    if (r.ok() && r->not_modified) ++not_modified;
    if (r.ok() && !r->not_modified) ++bodies;
    return r;
  }
  StatusOr<std::string> Put(std::string_view key, std::string_view data,
                            const PutOptions& options) override {
    return inner_->Put(key, data, options);
  }
  StatusOr<ListPage> List(std::string_view prefix, std::string_view token, int max) override {
    return inner_->List(prefix, token, max);
  }
  Status Delete(std::string_view key) override { return inner_->Delete(key); }
  std::string Describe() const override { return inner_->Describe(); }
  int gets = 0, not_modified = 0, bodies = 0;

 private:
  Store* inner_;
};

// store/cached_reads.h: the same answers as GetIfExists, each read after the
// first a conditional one that transfers no body while the key is unchanged.
TEST_P(ConformanceTest, CachedReadsAnswerAsGetIfExistsAndRevalidate) {
  const std::string key = "control/enrollments/web-2.json";
  CountingRevalidations counting(&store());
  CachedReads reads(&counting);
  auto absent = reads.Read(key);
  ASSERT_TRUE(absent.ok()) << absent.status().message();
  EXPECT_FALSE(absent->has_value());

  auto v1 = store().Put(key, "enrollment one", {});
  ASSERT_TRUE(v1.ok());
  for (int i = 0; i < 3; ++i) {
    auto got = reads.Read(key);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ((*got)->data, "enrollment one");
    EXPECT_EQ((*got)->version, *v1);
  }
  EXPECT_EQ(counting.bodies, 1);
  EXPECT_EQ(counting.not_modified, 2);
  EXPECT_EQ(counting.gets, 0) << "every read is a conditional one";

  auto v2 = store().Put(key, "enrollment two", {});
  ASSERT_TRUE(v2.ok());
  auto changed = reads.Read(key);
  ASSERT_TRUE(changed.ok() && changed->has_value());
  EXPECT_EQ((*changed)->data, "enrollment two");
  EXPECT_EQ((*changed)->version, *v2);
  EXPECT_EQ(counting.bodies, 2);

  ASSERT_TRUE(store().Delete(key).ok());
  auto gone = reads.Read(key);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  // Back at the first version: read in full, not taken for the kept one.
  ASSERT_TRUE(store().Put(key, "enrollment one", {}).ok());
  auto back = reads.Read(key);
  ASSERT_TRUE(back.ok() && back->has_value());
  EXPECT_EQ((*back)->data, "enrollment one");
}

TEST_P(ConformanceTest, DeleteIsIdempotent) {
  ASSERT_TRUE(store().Put("control/retired/x.json", "r", {}).ok());
  ASSERT_TRUE(store().Delete("control/retired/x.json").ok());
  EXPECT_EQ(store().Get("control/retired/x.json").status().code(), Code::kNotFound);
  EXPECT_TRUE(store().Delete("control/retired/x.json").ok());
  EXPECT_TRUE(store().Delete("never/was/here").ok());
  EXPECT_EQ(ListAll(store(), "").value(), std::vector<std::string>{});
}

TEST_P(ConformanceTest, ListIsSortedPaginatedAndFiltered) {
  std::vector<std::string> want;
  for (int i = 24; i >= 0; --i) {
    std::string k = "p/" + std::string(1, static_cast<char>('a' + i % 5)) + std::to_string(i);
    ASSERT_TRUE(store().Put(k, k, {}).ok());
    want.push_back(k);
  }
  // Keys around the prefix, including ones that sort between its keys when
  // compared byte-wise ('-' < '/').
  for (std::string k : {"p-x", "q/x", "o/z", "p/deep/er/key", "p/a!b"}) {
    ASSERT_TRUE(store().Put(k, k, {}).ok());
  }
  want.push_back("p/deep/er/key");
  want.push_back("p/a!b");
  std::sort(want.begin(), want.end());

  for (int size : {1, 3, 7, 1000}) {
    std::vector<std::string> got;
    std::string token;
    int pages = 0;
    do {
      auto page = store().List("p/", token, size);
      ASSERT_TRUE(page.ok()) << page.status().message();
      EXPECT_LE(page->keys.size(), static_cast<size_t>(size));
      got.insert(got.end(), page->keys.begin(), page->keys.end());
      token = page->next_token;
      ASSERT_LT(++pages, 100);
    } while (!token.empty());
    EXPECT_EQ(got, want) << "page size " << size;
    EXPECT_EQ(pages, (static_cast<int>(want.size()) + size - 1) / size) << "page size " << size;
  }

  // A prefix that ends inside a segment.
  EXPECT_THAT(ListAll(store(), "p/d").value(),
              ElementsAre("p/d13", "p/d18", "p/d23", "p/d3", "p/d8", "p/deep/er/key"));
  EXPECT_THAT(ListAll(store(), "p/deep/").value(), ElementsAre("p/deep/er/key"));
  EXPECT_THAT(ListAll(store(), "p").value().size(), want.size() + 1);  // + "p-x"
  EXPECT_EQ(ListAll(store(), "").value().size(), want.size() + 3);
  EXPECT_TRUE(ListAll(store(), "nothing/").value().empty());
  auto empty = store().List("nothing/", "", 10);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->keys.empty());
  EXPECT_TRUE(empty->next_token.empty());
}

// docs/store.md, "Listing with version tags": each listed key's tag is the
// one Get returns, changes with the bytes, and pages as List does.
TEST_P(ConformanceTest, ListVersionsGivesEachKeysGetVersion) {
  for (std::string k : {"v/a", "v/b", "v/c", "w/a"}) ASSERT_TRUE(store().Put(k, "1" + k, {}).ok());
  auto listed = ListAllVersions(store(), "v/");
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  ASSERT_EQ(listed->size(), 3u);
  std::map<std::string, std::string> before;
  for (const ListedKey& l : *listed) {
    auto got = store().Get(l.key);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(l.version, got->version) << l.key;
    before[l.key] = l.version;
  }
  EXPECT_EQ(before.size(), 3u);
  auto v2 = store().Put("v/b", "2v/b", {});
  ASSERT_TRUE(v2.ok());
  ASSERT_TRUE(store().Delete("v/c").ok());
  listed = ListAllVersions(store(), "v/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].key, "v/a");
  EXPECT_EQ((*listed)[0].version, before["v/a"]);
  EXPECT_EQ((*listed)[1].key, "v/b");
  EXPECT_EQ((*listed)[1].version, *v2);
  EXPECT_NE(*v2, before["v/b"]);
  // Pages of one key each carry one tag.
  auto page = store().ListVersions("v/", "", 1);
  ASSERT_TRUE(page.ok());
  EXPECT_THAT(page->keys, ElementsAre("v/a"));
  EXPECT_THAT(page->versions, ElementsAre(before["v/a"]));
  EXPECT_FALSE(page->next_token.empty());
}

// docs/protocol.md, "Clocks": a read tells how long ago the object was
// written by the store's clock (S3: Date minus Last-Modified, whole seconds).
TEST_P(ConformanceTest, GetTellsTheObjectsAgeByTheStoresClock) {
  ASSERT_TRUE(store().Put("age/a", "x", {}).ok());
  auto got = store().Get("age/a");
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->age.has_value());
  EXPECT_GE(*got->age, Milliseconds(0));
  EXPECT_LE(*got->age, Milliseconds(5'000));
}

TEST_P(ConformanceTest, ListRefusesBadArguments) {
  EXPECT_EQ(store().List("/p", "", 10).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store().List("p//", "", 10).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store().List("a/../", "", 10).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store().List("p/", "", 0).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store().List("p/", "", 1001).status().code(), Code::kInvalidArgument);
}

TEST_P(ConformanceTest, InvalidKeysAreRefusedAndWriteNothing) {
  std::vector<std::string> bad = {"",
                                  "/a",
                                  "a/",
                                  "a//b",
                                  "a/./b",
                                  "a/../b",
                                  "..",
                                  "a b",
                                  "a\tb",
                                  "a\nb",
                                  std::string("a\0b", 3),
                                  "\x7f",
                                  "caf\xc3\xa9",
                                  std::string(kMaxKeyBytes + 1, 'k')};
  for (const auto& k : bad) {
    EXPECT_EQ(store().Put(k, "x", {}).status().code(), Code::kInvalidArgument) << k;
    EXPECT_EQ(store().Put(k, "x", {PutCondition::kCreateOnly, ""}).status().code(),
              Code::kInvalidArgument);
    EXPECT_EQ(store().Get(k).status().code(), Code::kInvalidArgument) << k;
    EXPECT_EQ(store().Delete(k).code(), Code::kInvalidArgument) << k;
  }
  EXPECT_TRUE(ListAll(store(), "").value().empty());
}

TEST_P(ConformanceTest, PunctuationInKeysRoundTrips) {
  // The longest key, in segments the directory backend can hold (255
  // bytes each at most, as file names).
  std::string longest = "x";
  while (longest.size() < kMaxKeyBytes) {
    longest += "/" + std::string(std::min<size_t>(200, kMaxKeyBytes - longest.size() - 1), 'z');
  }
  ASSERT_EQ(longest.size(), kMaxKeyBytes);
  std::vector<std::string> keys = {"x/k+!*()$&=,;:@[]~'", "x/%41%2F", "x/a?b#c", "x/\"q\"<>{}|^`\\",
                                   longest};
  for (const auto& k : keys) {
    auto v = store().Put(k, "v:" + k, {});
    ASSERT_TRUE(v.ok()) << k << ": " << v.status().message();
    auto got = store().Get(k);
    ASSERT_TRUE(got.ok()) << k << ": " << got.status().message();
    EXPECT_EQ(got->data, "v:" + k);
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(ListAll(store(), "x/").value(), keys);
  auto page = store().List("x/", "", 2);
  ASSERT_TRUE(page.ok());
  auto rest = store().List("x/", page->next_token, 10);
  ASSERT_TRUE(rest.ok()) << rest.status().message();
  EXPECT_EQ(page->keys.size() + rest->keys.size(), keys.size());
  for (const auto& k : keys) EXPECT_TRUE(store().Delete(k).ok()) << k;
  EXPECT_TRUE(ListAll(store(), "").value().empty());
}

TEST_P(ConformanceTest, ReopenedStoreSeesTheSameObjects) {
  auto v = store().Put("control/invitations/w.json", "inv", {});
  ASSERT_TRUE(v.ok());
  auto other = Reopen(backend_.env);
  ASSERT_TRUE(other.ok()) << other.status().message();
  auto got = (*other)->Get("control/invitations/w.json");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->data, "inv");
  EXPECT_EQ(got->version, *v);
  EXPECT_THAT((*other)->Describe(), HasSubstr(GetParam() == "dir" ? "dir /" : "s3://"));
}

INSTANTIATE_TEST_SUITE_P(Backends, ConformanceTest, ::testing::Values("dir", "s3", "awslike"),
                         BackendName);

}  // namespace
}  // namespace carlos::testing
