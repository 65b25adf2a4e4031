// The documents' bindings and the retirement rule (protocol/documents.h),
// where they live; tests/enroll/stage_agreement_test.cc shows the box and
// the enroller applying them alike, tests/guard the root's side.
#include "protocol/documents.h"

#include <gtest/gtest.h>

#include <map>

#include "identity/refusal.h"
#include "identity/store_keys.h"
#include "support/documents.h"

namespace carlos::protocol {
namespace {

using namespace carlos::testing;  // NOLINT: the documents' helpers.

class Documents : public ::testing::Test {
 protected:
  Documents() : enroll_(Key('e')), box_(Key('b')), other_(Key('o')) {}

  ReadKey Reader() {
    return [this](const std::string& key) -> StatusOr<std::optional<Object>> {
      if (auto e = errors_.find(key); e != errors_.end()) return e->second;
      auto it = store_.find(key);
      if (it == store_.end()) return std::optional<Object>();
      return std::optional<Object>(Object{it->second, "v-" + std::to_string(it->second.size())});
    };
  }
  DocState<identity::Retirement> Retirement(std::optional<std::string_view> record_digest) {
    auto d = ReadDoc<identity::Retirement>(Reader(), identity::RetiredKey("web-1"),
                                           identity::ParseRetirement);
    CheckRetirement(&d, enroll_.public_key(), "web-1", record_digest);
    return d;
  }

  identity::PrivateKey enroll_, box_, other_;
  std::map<std::string, std::string> store_;
  std::map<std::string, Status> errors_;
  const std::string record_ = DigestOf(identity::ParseIdentityRecord, RecordBytes("web-1", box_));
  const std::string earlier_ = "sha256:" + std::string(64, 'a');
};

TEST_F(Documents, ReadDocKeepsTheKeyTheVersionAndTheStoresAnswer) {
  auto absent = ReadDoc<identity::Retirement>(Reader(), "control/retired/web-1.json",
                                              identity::ParseRetirement);
  EXPECT_FALSE(absent.present);
  EXPECT_FALSE(absent.read);
  EXPECT_EQ(absent.key, "control/retired/web-1.json");

  errors_["control/retired/web-1.json"] = Unavailable("store down");
  auto down = ReadDoc<identity::Retirement>(Reader(), "control/retired/web-1.json",
                                            identity::ParseRetirement);
  EXPECT_TRUE(down.present);
  EXPECT_TRUE(down.store_error());
  EXPECT_EQ(down.status, Unavailable("store down"));

  errors_.clear();
  store_[identity::RetiredKey("web-1")] = "not json";
  auto corrupt = ReadDoc<identity::Retirement>(Reader(), "control/retired/web-1.json",
                                               identity::ParseRetirement);
  EXPECT_TRUE(corrupt.read);
  EXPECT_FALSE(corrupt.store_error());
  EXPECT_EQ(identity::RefusalOf(corrupt.status), identity::Refusal::kMalformed);
  EXPECT_EQ(corrupt.version, "v-8");
}

TEST_F(Documents, RetirementRule) {
  EXPECT_EQ(RetirementEffectOf(Retirement(record_), true), RetirementEffect::kNone);

  store_[identity::RetiredKey("web-1")] = RetirementBytes("web-1", record_, enroll_);
  EXPECT_EQ(RetirementEffectOf(Retirement(record_), true), RetirementEffect::kRetired);
  // With no record that parses, the retirement is checked against the label.
  EXPECT_EQ(RetirementEffectOf(Retirement(std::nullopt), false), RetirementEffect::kRetired);

  // A retirement of an earlier record under the label does not concern this
  // record; against the label alone it is a retirement of this box.
  store_[identity::RetiredKey("web-1")] = RetirementBytes("web-1", earlier_, enroll_);
  EXPECT_EQ(RetirementEffectOf(Retirement(record_), true), RetirementEffect::kOfAnotherRecord);
  EXPECT_EQ(RetirementEffectOf(Retirement(std::nullopt), false), RetirementEffect::kRetired);

  // Forged (another key) or corrupt: whether the box is retired is unknown.
  store_[identity::RetiredKey("web-1")] = RetirementBytes("web-1", record_, other_);
  EXPECT_EQ(RetirementEffectOf(Retirement(record_), true), RetirementEffect::kUnknown);
  store_[identity::RetiredKey("web-1")] = "{}";
  EXPECT_EQ(RetirementEffectOf(Retirement(record_), true), RetirementEffect::kUnknown);
  // A store that cannot say is not "not retired".
  errors_[identity::RetiredKey("web-1")] = Unavailable("store down");
  EXPECT_EQ(RetirementEffectOf(Retirement(record_), true), RetirementEffect::kUnknown);
}

TEST_F(Documents, InvitationBindingAndExpiry) {
  store_[identity::InvitationKey("web-1")] = InvitationBytes("web-1", record_, enroll_);
  auto read = [&](SystemTime now, const std::string& record) {
    auto d = ReadDoc<identity::Invitation>(Reader(), identity::InvitationKey("web-1"),
                                           identity::ParseInvitation);
    CheckInvitation(&d, enroll_.public_key(), "web-1", record, now);
    return d;
  };
  EXPECT_TRUE(read(kT0 + std::chrono::hours(1), record_).valid());
  EXPECT_EQ(identity::RefusalOf(read(kT0 + std::chrono::hours(25), record_).status),
            identity::Refusal::kExpired);
  EXPECT_EQ(identity::RefusalOf(read(kT0 + std::chrono::hours(1), earlier_).status),
            identity::Refusal::kBoundToAnotherDigest);
}

}  // namespace
}  // namespace carlos::protocol
