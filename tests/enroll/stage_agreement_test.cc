// The box's stage and `carlos boxes list`'s agree (docs/protocol.md,
// "Rules, and the one function that decides each"): for every row of the
// stage table, every refused-document case of docs/agent.md, and the three
// cases where the two once disagreed, the box's own mode selection
// (host::SelectMode, over the store and its guard's files) and the list
// (enroll::Enroller::List, over the store and the box's status report) give
// the same stage — each exactly the stage the row expects.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "base/files.h"
#include "enroll/enroller.h"
#include "host/joinmode.h"
#include "identity/encoding.h"
#include "identity/store_keys.h"
#include "protocol/local_guard.h"
#include "status/report.h"
#include "store/dir_store.h"
#include "support/documents.h"

namespace carlos::enroll {
namespace {

using namespace carlos::testing;  // NOLINT: the documents' helpers.

// One box's world: the deployment store (a directory store), the box's
// guard directory, and its keys.
class World {
 public:
  World() : enroll_(Key('e')), box_(Key('b')), other_(Key('o')) {
    char tmpl[] = "/tmp/stage-agreement-XXXXXX";
    dir_ = mkdtemp(tmpl);
    EXPECT_TRUE(MakeDirs(dir_ + "/store", 0755).ok());
    EXPECT_TRUE(MakeDirs(dir_ + "/data/hostguard", 0755).ok());
    store_ = std::move(DirStore::Open(dir_ + "/store")).value();
  }
  ~World() { std::filesystem::remove_all(dir_); }

  void Put(const std::string& key, const std::string& bytes) {
    ASSERT_TRUE(store_->Put(key, bytes, PutOptions{}).ok());
  }
  std::string Record(const identity::PrivateKey& key) {
    std::string b = RecordBytes("web-1", key);
    Put(identity::RecordKey("web-1"), b);
    return DigestOf(identity::ParseIdentityRecord, b);
  }
  std::string Record() { return Record(box_); }
  // An invitation issued at `issued` (it expires a lifetime later).
  std::string Invite(const std::string& record, SystemTime issued = kT0,
                     const identity::PrivateKey* signer = nullptr) {
    std::string b = InvitationBytes("web-1", record, signer ? *signer : enroll_, issued);
    Put(identity::InvitationKey("web-1"), b);
    return DigestOf(identity::ParseInvitation, b);
  }
  std::string Install(const std::string& record, const std::string& invitation) {
    std::string b = GuardBytes("web-1", record, invitation);
    EXPECT_TRUE(WriteFileAtomic(dir_ + "/data/hostguard/guard.json", b, 0644).ok());
    return DigestOf(identity::ParseGuardFile, b);
  }
  void Arm(const std::string& guard) {
    EXPECT_TRUE(WriteFileAtomic(dir_ + "/data/hostguard/armed.json", ArmedBytes(guard), 0644).ok());
  }
  void Enroll(const std::string& record, const std::string& invitation, const std::string& guard,
              const identity::PrivateKey* signer = nullptr) {
    Put(identity::EnrollmentKey("web-1"),
        EnrollmentBytes("web-1", record, invitation, guard, signer ? *signer : enroll_));
  }
  void Retire(const std::string& record, const identity::PrivateKey* signer = nullptr) {
    Put(identity::RetiredKey("web-1"),
        RetirementBytes("web-1", record, signer ? *signer : enroll_));
  }
  void Edges() { Put(identity::EdgesKey("web-1"), EdgesBytes("web-1", box_)); }
  // The box publishes its status report with its guard's facts, as the
  // agent does (status/report.h), signed with its own key.
  void Report() {
    auto g = protocol::ReadLocalGuard(dir_ + "/data", ::getuid());
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    status::Probes p{"web-1", "eu-1", "m-1", "i-0abc", "0.1.0", "linux-amd64", ""};
    ASSERT_TRUE(
        status::PublishReport(*store_, box_, status::BuildReport(p, now_, false, "x", g->Facts()))
            .ok());
  }

  // The box's stage, or "unknown" when its mode is unknown.
  std::string BoxStage() {
    host::ModeFacts f;
    f.box = "web-1";
    f.now = [this] { return now_; };
    f.read = [this](const std::string& k) { return store_->GetIfExists(k); };
    f.guard = [this] { return protocol::ReadLocalGuard(dir_ + "/data", ::getuid()); };
    f.enrollment_key = enroll_.public_key();
    f.box_key = box_.public_key();
    auto d = host::SelectMode(f);
    return d.ok() ? std::string(protocol::StageName(d->stage)) : "unknown";
  }
  // `carlos boxes list`'s stage of web-1, or "" when it lists no such box.
  std::string ListStage() {
    FakeClock clock(now_);
    EnrollerSettings s;
    s.enrollment_public_key = enroll_.public_key();
    s.allow_unattested = true;
    Enroller e(store_.get(), &clock, nullptr, s);
    auto rows = e.List(std::nullopt);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (!rows.ok()) return "";
    for (const BoxRow& r : *rows) {
      if (r.box == "web-1") return r.stage;
    }
    return "";
  }

  identity::PrivateKey enroll_, box_, other_;
  std::string dir_;
  std::unique_ptr<DirStore> store_;
  SystemTime now_ = kT0 + std::chrono::hours(1);
};

struct Row {
  std::string name;
  std::function<void(World&)> make;
  std::string stage;
};

std::vector<Row> Rows() {
  return {
      // An edges file left by a box whose record was removed: the list shows
      // the label, as the box sees itself.
      {"unrecorded", [](World& w) { w.Edges(); }, "unrecorded"},
      {"recorded", [](World& w) { w.Record(); }, "recorded"},
      {"referenced",
       [](World& w) {
         w.Record();
         w.Edges();
       },
       "referenced"},
      {"invited",
       [](World& w) {
         w.Invite(w.Record());
         w.Report();
       },
       "invited"},
      {"guard-installed",
       [](World& w) {
         std::string r = w.Record();
         w.Install(r, w.Invite(r));
         w.Report();
       },
       "guard-installed"},
      {"guard-ready",
       [](World& w) {
         std::string r = w.Record();
         w.Arm(w.Install(r, w.Invite(r)));
         w.Report();
       },
       "guard-ready"},
      {"hosting",
       [](World& w) {
         std::string r = w.Record();
         std::string i = w.Invite(r);
         std::string g = w.Install(r, i);
         w.Arm(g);
         w.Enroll(r, i, g);
         w.Report();
       },
       "hosting"},
      {"enrolled, guard lost",
       [](World& w) {
         std::string r = w.Record();
         std::string i = w.Invite(r);
         w.Enroll(r, i, "sha256:" + std::string(64, 'd'));
         w.Report();
       },
       "invited"},
      {"enrolled for another guard",
       [](World& w) {
         std::string r = w.Record();
         std::string i = w.Invite(r);
         w.Arm(w.Install(r, i));
         w.Enroll(r, i, "sha256:" + std::string(64, 'd'));
         w.Report();
       },
       "guard-ready"},
      {"guard bound to another record",
       [](World& w) {
         std::string r = w.Record();
         std::string i = w.Invite(r);
         w.Arm(w.Install("sha256:" + std::string(64, 'f'), i));
         w.Report();
       },
       "invited"},
      {"retired",
       [](World& w) {
         w.Retire(w.Record());
         w.Edges();
       },
       "retired"},
      {"record of another key",
       [](World& w) {
         w.Invite(w.Record(w.other_));
         w.Report();
       },
       "conflict"},
      {"record refused (tampered)",
       [](World& w) {
         w.Put(identity::RecordKey("web-1"), Tamper(RecordBytes("web-1", w.box_), "eu-1", "eu-2"));
       },
       "conflict"},
      {"invitation expired", [](World& w) { w.Invite(w.Record(), kT0 - std::chrono::hours(48)); },
       "recorded"},
      {"invitation forged (another key)", [](World& w) { w.Invite(w.Record(), kT0, &w.other_); },
       "recorded"},
      {"enrollment forged, invitation valid",
       [](World& w) {
         std::string r = w.Record();
         std::string i = w.Invite(r);
         std::string g = w.Install(r, i);
         w.Arm(g);
         w.Enroll(r, i, g, &w.other_);
         w.Report();
       },
       "guard-ready"},
      {"retirement forged: unknown", [](World& w) { w.Retire(w.Record(), &w.other_); }, "unknown"},
      // The three cases where the box and the list once disagreed.
      {"retired, no record", [](World& w) { w.Retire("sha256:" + std::string(64, 'a')); },
       "retired"},
      {"retired, record refused",
       [](World& w) {
         std::string bytes = Tamper(RecordBytes("web-1", w.box_), "eu-1", "eu-2");
         w.Put(identity::RecordKey("web-1"), bytes);
         w.Retire(identity::Sha256Digest(bytes));
       },
       "retired"},
      {"retirement of an earlier record",
       [](World& w) {
         w.Retire("sha256:" + std::string(64, 'a'));
         w.Record();
       },
       "recorded"},
  };
}

// Names the row in test output.
void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

class StageAgreement : public ::testing::TestWithParam<Row> {};

TEST_P(StageAgreement, BoxAndListGiveTheRowsStage) {
  World w;
  GetParam().make(w);
  EXPECT_EQ(w.BoxStage(), GetParam().stage);
  EXPECT_EQ(w.ListStage(), GetParam().stage);
}

INSTANTIATE_TEST_SUITE_P(EveryRow, StageAgreement, ::testing::ValuesIn(Rows()),
                         [](const ::testing::TestParamInfo<Row>& info) {
                           std::string n;
                           for (char c : info.param.name) n += std::isalnum(c) ? c : '_';
                           return n;
                         });

}  // namespace
}  // namespace carlos::enroll
