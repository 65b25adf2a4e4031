#include "host/record_loop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "agent_process.h"
#include "dev/imds_emulator.h"
#include "host/entry.h"
#include "identity/iid.h"
#include "identity/store_keys.h"
#include "imds/instance_identity.h"
#include "mem_store.h"
#include "support/documents.h"

namespace carlos::host {
namespace {

using ::testing::ElementsAre;
using namespace carlos::testing;  // NOLINT

class RecordLoopTest : public ::testing::Test {
 protected:
  RecordLoopTest() : key_(Key('b')), clock_(kT0) {
    loop_.store = &store_;
    loop_.box_key = &key_;
    loop_.build = [this]() -> StatusOr<identity::IdentityRecord> {
      ++builds_;
      if (builds_ <= build_failures_) return Unavailable("IMDS answered 500");
      identity::IdentityRecord r;
      r.box = "web-1";
      r.region = "eu-1";
      r.machine_id = "m-1";
      r.release = "0.1.0";
      r.platform = "linux-amd64";
      r.public_key = key_.public_key();
      r.created_at = clock_.Now();
      return r;
    };
    loop_.backoff = host::GroupReferenceBackoff;
    loop_.clock = &clock_;
    loop_.logf = [this](const std::string& l) { logs_.push_back(l); };
  }

  identity::PrivateKey key_;
  FakeClock clock_;
  MemStore store_;
  RecordLoop loop_;
  Stop stop_;
  int builds_ = 0, build_failures_ = 0;
  std::vector<std::string> logs_;
};

TEST_F(RecordLoopTest, WritesTheRecordCreateOnly) {
  RunRecordLoop(loop_, "web-1", stop_);
  EXPECT_THAT(logs_, ElementsAre("agent: the identity record control/boxes/web-1.json is written"));
  auto parsed = identity::ParseIdentityRecord(store_.objects.at("control/boxes/web-1.json"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(identity::VerifyIdentityRecord(*parsed, "web-1").ok());
  EXPECT_EQ(parsed->doc.public_key, key_.public_key());
}

TEST_F(RecordLoopTest, ARecordWithThisKeyIsInPlace) {
  std::string mine = RecordBytes("web-1", key_, kT0 - std::chrono::hours(5));
  store_.objects["control/boxes/web-1.json"] = mine;
  RunRecordLoop(loop_, "web-1", stop_);
  EXPECT_THAT(logs_,
              ElementsAre("agent: the identity record control/boxes/web-1.json is in place"));
  EXPECT_EQ(store_.objects.at("control/boxes/web-1.json"), mine);  // Not rewritten.
  EXPECT_EQ(builds_, 0);
  EXPECT_EQ(store_.puts, 0);
}

TEST_F(RecordLoopTest, FailuresRetryWithBackoffLoggedOncePerCause) {
  build_failures_ = 4;
  RunRecordLoop(loop_, "web-1", stop_);
  EXPECT_THAT(logs_, ElementsAre("agent: the identity record control/boxes/web-1.json could not "
                                 "be written: IMDS answered 500; trying again in 1s",
                                 "agent: the identity record control/boxes/web-1.json can be "
                                 "written again after 15s",
                                 "agent: the identity record control/boxes/web-1.json is written"));
  EXPECT_EQ(clock_.Now() - kT0, Milliseconds(1000 + 2000 + 4000 + 8000));
}

// IMDS refuses connections when the loop starts and answers from the 3rd
// second on (by the injected clock): on a machine that cannot tell whether
// it is on EC2 the loop retries (1 s, then 2 s) and writes an attested
// record; nothing unattested is ever written.
TEST_F(RecordLoopTest, ImdsRefusingThenAnsweringIsRetriedThenAttested) {
  const int port = FreePort();  // Nothing listens there until the emulator does.
  char tmpl[] = "/tmp/record-loop-sysfs-XXXXXX";
  const std::string sysfs = mkdtemp(tmpl);  // No DMI: cannot tell.

  imds::ImdsOptions o;
  o.endpoint = "http://127.0.0.1:" + std::to_string(port);
  o.sysfs_root = sysfs;
  imds::ImdsClient client(o, &clock_);
  std::unique_ptr<dev::ImdsEmulator> emu;
  clock_.OnSleep([&](SystemTime now) {
    if (emu || now - kT0 < std::chrono::seconds(3)) return;
    auto cert = identity::MakeEmulatorCertificate("record loop test");
    ASSERT_TRUE(cert.ok());
    dev::ImdsEmulatorOptions e;
    e.boxes = {dev::EmulatedBox{}};
    e.base_port = port;
    e.cert_pem = cert->cert_pem;
    e.key_pem = cert->key_pem;
    e.clock = &clock_;
    auto started = dev::ImdsEmulator::Start(e);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    emu = std::move(*started);
  });
  loop_.build = [&]() -> StatusOr<identity::IdentityRecord> {
    ++builds_;
    CARLOS_ASSIGN_OR_RETURN(imds::InstanceIdentity ii, imds::ReadInstanceIdentity(client));
    if (!ii.attested()) return Internal("recorded as unattested: " + ii.unattested_reason);
    identity::IdentityRecord r;
    r.box = "web-1";
    r.region = ii.region;
    r.machine_id = "m-1";
    r.instance_id = ii.instance_id;
    r.release = "0.1.0";
    r.platform = "linux-amd64";
    r.public_key = key_.public_key();
    r.created_at = clock_.Now();
    r.attestation = identity::InstanceAttestation{ii.document, ii.rsa2048};
    return r;
  };
  RunRecordLoop(loop_, "web-1", stop_);
  std::filesystem::remove_all(sysfs);
  ASSERT_EQ(logs_.size(), 3u) << ::testing::PrintToString(logs_);
  EXPECT_THAT(logs_[0], ::testing::HasSubstr(
                            "could not be written: IMDSv2 session token: IMDS at " + o.endpoint +
                            " (PUT /latest/api/token) is not "
                            "answering"));
  EXPECT_THAT(logs_[0], ::testing::HasSubstr("whether this box is on EC2 cannot be told"));
  EXPECT_EQ(logs_[1],
            "agent: the identity record control/boxes/web-1.json can be written again after 3s");
  EXPECT_EQ(logs_[2], "agent: the identity record control/boxes/web-1.json is written");
  EXPECT_EQ(builds_, 3);  // At 0 s, 1 s (both refused), 3 s (answered).
  EXPECT_EQ(clock_.Now() - kT0, Milliseconds(1000 + 2000));
  auto parsed = identity::ParseIdentityRecord(store_.objects.at("control/boxes/web-1.json"));
  ASSERT_TRUE(parsed.ok());
  ASSERT_TRUE(parsed->doc.attestation.has_value());
  EXPECT_EQ(parsed->doc.instance_id, "i-0de000000000000000");
}

TEST_F(RecordLoopTest, StoreErrorsRetryUntilStopped) {
  store_.get_error = Unavailable("store down");
  clock_.OnSleep([this](SystemTime) {
    if (clock_.sleeps() == 7) stop_.Request();
  });
  RunRecordLoop(loop_, "web-1", stop_);
  EXPECT_THAT(logs_, ElementsAre("agent: the identity record control/boxes/web-1.json could not "
                                 "be written: store down; trying again in 1s"));
  // 1, 2, 4, 8, 16, 30, 30 s.
  EXPECT_EQ(clock_.Now() - kT0, Milliseconds((1 + 2 + 4 + 8 + 16 + 30 + 30) * 1000));
  EXPECT_EQ(store_.puts, 0);
}

TEST_F(RecordLoopTest, AnotherKeyIsAConflictLoggedOnceNeverOverwritten) {
  identity::PrivateKey other = Key('o');
  std::string theirs = RecordBytes("web-1", other);
  store_.objects["control/boxes/web-1.json"] = theirs;
  clock_.OnSleep([this](SystemTime) {
    if (clock_.sleeps() == 3) {
      // An operator removes the conflicting record: the box writes its own.
      store_.objects.erase("control/boxes/web-1.json");
    }
  });
  RunRecordLoop(loop_, "web-1", stop_);
  EXPECT_THAT(logs_, ElementsAre("agent: the identity record control/boxes/web-1.json is not this "
                                 "box's: it holds another key (" +
                                     other.public_key().ToString() + ") than this box's (" +
                                     key_.public_key().ToString() +
                                     "); it is never overwritten: an operator must retire it or "
                                     "remove it (carlos boxes rm web-1)",
                                 "agent: the identity record control/boxes/web-1.json can be "
                                 "written again after 1m30s",
                                 "agent: the identity record control/boxes/web-1.json is written"));
  EXPECT_EQ(clock_.Now() - kT0, Milliseconds(3 * 30'000));
  auto parsed = identity::ParseIdentityRecord(store_.objects.at("control/boxes/web-1.json"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->doc.public_key, key_.public_key());
}

// Under the journal (base/log_layout.h): a failure is a warning, a conflict
// (an operator must act) an error, the rest info.
TEST_F(RecordLoopTest, FailuresAreWarningsAndAConflictAnError) {
  std::vector<std::string> warnings, errors;
  loop_.warnf = [&](const std::string& l) { warnings.push_back(l); };
  loop_.errf = [&](const std::string& l) { errors.push_back(l); };
  build_failures_ = 1;
  RunRecordLoop(loop_, "web-1", stop_);
  EXPECT_THAT(warnings, ElementsAre("agent: the identity record control/boxes/web-1.json could "
                                    "not be written: IMDS answered 500; trying again in 1s"));
  EXPECT_THAT(logs_, ElementsAre("agent: the identity record control/boxes/web-1.json can be "
                                 "written again after 1s",
                                 "agent: the identity record control/boxes/web-1.json is written"));
  logs_.clear();
  warnings.clear();
  store_.objects["control/boxes/web-1.json"] = RecordBytes("web-1", Key('o'));
  clock_.OnSleep([this](SystemTime) { stop_.Request(); });
  RunRecordLoop(loop_, "web-1", stop_);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], ::testing::HasSubstr("is not this box's"));
  EXPECT_THAT(warnings, ::testing::IsEmpty());
}

TEST_F(RecordLoopTest, AForgedOrCorruptRecordIsAConflict) {
  store_.objects["control/boxes/web-1.json"] =
      Tamper(RecordBytes("web-1", key_), "\"m-1\"", "\"m-9\"");
  std::string why;
  EXPECT_EQ(TryRecordOnce(loop_, "web-1", &why), RecordResult::kConflict);
  EXPECT_THAT(why, ::testing::HasSubstr("bad signature"));
  store_.objects["control/boxes/web-1.json"] = "junk";
  EXPECT_EQ(TryRecordOnce(loop_, "web-1", &why), RecordResult::kConflict);
  EXPECT_THAT(why, ::testing::HasSubstr("malformed"));
  EXPECT_EQ(store_.puts, 0);
}

TEST_F(RecordLoopTest, ALostCreateRaceIsResolvedByReadingAgain) {
  // Another writer (an earlier attempt whose answer was lost) put this
  // box's record between the read and the create-only put.
  std::string raced = RecordBytes("web-1", key_, kT0 - std::chrono::hours(1));
  loop_.build = [&]() -> StatusOr<identity::IdentityRecord> {
    store_.objects["control/boxes/web-1.json"] = raced;
    return identity::ParseIdentityRecord(raced)->doc;
  };
  RunRecordLoop(loop_, "web-1", stop_);
  ASSERT_EQ(logs_.size(), 3u);
  EXPECT_THAT(logs_[0], ::testing::HasSubstr("already exists"));
  EXPECT_EQ(logs_[1],
            "agent: the identity record control/boxes/web-1.json can be read again after 1s");
  EXPECT_EQ(logs_[2], "agent: the identity record control/boxes/web-1.json is in place");
  EXPECT_EQ(store_.objects.at("control/boxes/web-1.json"), raced);
}

}  // namespace
}  // namespace carlos::host
