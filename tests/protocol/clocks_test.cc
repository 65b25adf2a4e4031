// docs/protocol.md, "Clocks": the invitation's expiry as the box (mode
// selection) and root (join) judge it — the box's clock against the
// enroller's stamp — with the box's clock 10 minutes behind and ahead of
// the enroller's. The allowance is the invitation's lifetime.
#include <gtest/gtest.h>

#include "identity/refusal.h"
#include "identity/store_keys.h"
#include "protocol/documents.h"
#include "support/documents.h"

namespace carlos::protocol {
namespace {

using namespace carlos::testing;  // NOLINT: the documents' helpers.
using std::chrono::hours;
using std::chrono::minutes;

class InvitationClocks : public ::testing::Test {
 protected:
  InvitationClocks() : enroll_(Key('e')), box_(Key('b')) {
    record_ = *identity::ParseIdentityRecord(RecordBytes("web-1", box_));
  }

  // The invitation the enroller issued at `issued` (its clock), checked at
  // `box_now` (the box's clock).
  Status Check(SystemTime issued, SystemTime box_now) {
    DocState<identity::Invitation> d;
    d.key = identity::InvitationKey("web-1");
    d.present = d.read = true;
    d.parsed =
        *identity::ParseInvitation(InvitationBytes("web-1", record_.digest, enroll_, issued));
    CheckInvitation(&d, enroll_.public_key(), "web-1", record_.digest, box_now);
    return d.status;
  }

  identity::PrivateKey enroll_, box_;
  identity::Parsed<identity::IdentityRecord> record_;
};

TEST_F(InvitationClocks, AFreshInvitationIsValidOnABoxTenMinutesOffEitherWay) {
  // Issued at kT0 by the enroller; the box reads it a second later by the
  // enroller's clock, its own 10 minutes off.
  EXPECT_TRUE(Check(kT0, kT0 - minutes(10)).ok());
  EXPECT_TRUE(Check(kT0, kT0 + minutes(10)).ok());
}

TEST_F(InvitationClocks, ABoxTenMinutesAheadSeesTheExpiryTenMinutesEarly) {
  // 5 minutes before the expiry by the enroller's clock.
  SystemTime enroller_now = kT0 + hours(24) - minutes(5);
  EXPECT_TRUE(Check(kT0, enroller_now).ok());
  EXPECT_TRUE(Check(kT0, enroller_now - minutes(10)).ok());  // Behind: still valid.
  Status ahead = Check(kT0, enroller_now + minutes(10));
  EXPECT_EQ(identity::RefusalOf(ahead), identity::Refusal::kExpired) << ahead.message();
  // 5 minutes after it: the box behind still holds it valid; the enroller
  // does not (it re-invites, and never enrolls on it).
  EXPECT_TRUE(Check(kT0, kT0 + hours(24) + minutes(5) - minutes(10)).ok());
  EXPECT_EQ(identity::RefusalOf(Check(kT0, kT0 + hours(24) + minutes(5))),
            identity::Refusal::kExpired);
}

}  // namespace
}  // namespace carlos::protocol
