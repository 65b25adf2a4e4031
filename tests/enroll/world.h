// The enroller's test world: a store of either backend, a fake clock, the
// enrollment key and AWS's (test) certificate, and boxes whose records,
// reports and edges files the tests write as the agents would.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "enroll/enroller.h"
#include "enroll/settings.h"
#include "identity/identity_record.h"
#include "identity/invitation.h"
#include "identity/keys.h"
#include "identity/status_report.h"
#include "store/store.h"

namespace carlos::enroll::testing {

// A fresh directory under $TMPDIR, removed with its contents at the end.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The S3 test server's settings (tests/harness/README.md), or an error
// saying why there is none.
StatusOr<std::map<std::string, std::string>> S3ServerEnv();

// A fresh, empty store: "dir" (a directory under `dir`) or "s3" (a new
// bucket on the test server). `env` gets what OpenStore needs to open the
// same store in another process.
StatusOr<std::unique_ptr<Store>> MakeStore(const std::string& kind, const std::string& dir,
                                           std::map<std::string, std::string>* env);

// Collects log lines from any thread.
class LogSink {
 public:
  Logf logf();
  std::vector<std::string> lines() const;
  // The lines containing `part`.
  std::vector<std::string> Matching(const std::string& part) const;
  void Clear();

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

// A box as its agent would make it.
struct TestBox {
  std::string label;
  std::string region;
  std::string instance_id;
  identity::PrivateKey key;
  std::string record_digest;
};

struct BoxSpec {
  std::string region = "us-west-2";
  std::string instance_id = "";  // "" = derived from the label.
  bool attested = true;
  // Sign the IID with another certificate than AWS's test one.
  bool forged_iid = false;
  // The IID's accountId (validly signed whatever it is).
  std::string account_id = "123456789012";
  std::optional<identity::PrivateKey> key = std::nullopt;  // Default: a fresh key.
};

struct ReportSpec {
  bool guard = true;
  bool installed = true;
  bool armed = true;
  std::optional<std::string> why_not_armed = std::nullopt;
  std::optional<std::string> record_digest = std::nullopt;      // Default: the box's record.
  std::optional<std::string> invitation_digest = std::nullopt;  // Default: the stored invitation's.
  std::string guard_digest = "sha256:" + std::string(64, 'a');
  Milliseconds age{10'000};  // reported_at = now - age.
  // How long ago the store shows the report written (the directory store's
  // mtime, set back; 0: just now). S3's Last-Modified cannot be set back:
  // a test failure there.
  Milliseconds written_ago{0};
  std::optional<identity::PrivateKey> signed_by = std::nullopt;  // Default: the box's key.
  std::optional<std::string> instance_id = std::nullopt;         // Default: the record's.
};

// The world. Time starts at 2026-11-29T18:00:00Z.
class World {
 public:
  explicit World(Store* store);

  Store& store() { return *store_; }
  FakeClock& clock() { return clock_; }
  const identity::PrivateKey& enrollment_key() const { return enrollment_key_; }

  // Settings: the enrollment key, AWS's test certificate, 4 workers.
  EnrollerSettings Settings() const;
  // An enroller over the store with Settings() (changed by `edit`), logging
  // to `log`.
  std::unique_ptr<Enroller> MakeEnroller(LogSink* log,
                                         std::function<void(EnrollerSettings&)> edit = nullptr,
                                         Store* store = nullptr);

  // Writes `label`'s identity record as boxRecordLoop does.
  TestBox AddBox(const std::string& label, BoxSpec spec = {});
  // Writes `writer`'s edges file naming `names`.
  void PutEdges(const TestBox& writer, const std::vector<std::string>& names);
  // Writes `box`'s status report.
  void PutReport(const TestBox& box, const ReportSpec& spec = {});

  // The stored invitation / enrollment / retirement of `label`, parsed (a
  // test failure and nullopt when absent or unparsable).
  std::optional<identity::Parsed<identity::Invitation>> Invitation(const std::string& label);
  std::optional<identity::Parsed<identity::Enrollment>> Enrollment(const std::string& label);
  bool Has(const std::string& key);

 private:
  Store* store_;
  FakeClock clock_;
  identity::PrivateKey enrollment_key_;
};

// A test over one store per backend ("dir", "s3"; the S3 ones skipped
// without the test server): store_ and world_ set up.
class BackendWorldTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;

  World& w() { return *world_; }

  TempDir tmp_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<World> world_;
};

// A BackendWorldTest with an enroller of the world's settings logging to
// log_.
class BackendTest : public BackendWorldTest {
 protected:
  void SetUp() override;

  Enroller& e() { return *enroller_; }

  LogSink log_;
  std::unique_ptr<Enroller> enroller_;
};

}  // namespace carlos::enroll::testing
