// The agent's integration test: a real `carlos agent` process on a
// directory store, with an in-process IMDS emulator and short timings. The
// test plays the enroller (invitations, enrollments, retirements signed with
// a test enrollment key) and root (the guard's files), and checks the
// health check over a real socket, the store and the log at each stage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>

#include "agent_process.h"
#include "base/files.h"
#include "dev/imds_emulator.h"
#include "dev/imds_emulator_config.h"
#include "identity/iid.h"
#include "identity/status_report.h"
#include "identity/store_keys.h"
#include "imds/client.h"
#include "protocol/documents.h"
#include "protocol/guard_ready.h"
#include "protocol/timings.h"
#include "store/dir_store.h"
#include "support/documents.h"

namespace carlos::host {
namespace {

using namespace carlos::protocol;  // NOLINT: the stages and decisions under test.

using ::testing::HasSubstr;
using namespace carlos::testing;  // NOLINT
using std::chrono::milliseconds;

class AgentTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_NE(std::getenv("CARLOS_BIN"), nullptr) << "run through ctest, or set CARLOS_BIN";
    auto cert = identity::MakeEmulatorCertificate("test AWS");
    ASSERT_TRUE(cert.ok());
    cert_ = new identity::EmulatorCertificate(*cert);
  }

  AgentTest() : enroll_(Key('e')), other_(Key('o')) {
    char tmpl[] = "/tmp/agent-it-XXXXXX";
    dir_ = mkdtemp(tmpl);
    store_dir_ = dir_ + "/store";
    data_dir_ = dir_ + "/data";
    EXPECT_TRUE(MakeDirs(store_dir_, 0755).ok());
    EXPECT_TRUE(MakeDirs(data_dir_ + "/hostguard", 0755).ok());
    EXPECT_TRUE(WriteFileAtomic(dir_ + "/machine-id", "0123456789abcdef\n", 0644).ok());
    store_ = std::move(DirStore::Open(store_dir_)).value();
    dev::ImdsEmulatorOptions o;
    o.boxes = {dev::EmulatedBox{}};
    o.cert_pem = cert_->cert_pem;
    o.key_pem = cert_->key_pem;
    o.clock = RealClock();
    auto imds = dev::ImdsEmulator::Start(o);
    EXPECT_TRUE(imds.ok()) << imds.status().ToString();
    imds_ = std::move(imds).value();
    port_ = FreePort();
  }

  ~AgentTest() override {
    agent_.reset();
    imds_->Shutdown();
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  std::map<std::string, std::string> Env() {
    std::map<std::string, std::string> env = BaseEnv();
    for (const auto& [k, v] : extra_env_) env[k] = v;
    return env;
  }
  std::map<std::string, std::string> BaseEnv() {
    return {{"CARLOS_HOST_CLAIM", "1"},
            {"CARLOS_REGION_HA", "1"},
            {"CARLOS_BOX_LABEL", "web-1"},
            {"CARLOS_REGION", "us-east-1"},
            {"CARLOS_DATA_DIR", data_dir_},
            {"CARLOS_DEPLOYMENT_DIR", store_dir_},
            {"CARLOS_DEPLOYMENT_BUCKET", ""},
            {"CARLOS_ENROLLMENT_PUBKEY", enroll_.public_key().ToString()},
            {"CARLOS_IMDS_ENDPOINT", imds_->endpoint(0)},
            {"CARLOS_MACHINE_ID_FILE", dir_ + "/machine-id"},
            {"CARLOS_JOIN_EVERY", "100ms"},
            {"CARLOS_JOIN_NUDGE_EVERY", "400ms"},
            {"CARLOS_HOSTING_REPORT_EVERY", "200ms"},
            {"CARLOS_DRAIN", "600ms"}};
  }

  void Start() {
    ASSERT_NE(std::getenv("CARLOS_BIN"), nullptr);
    agent_.reset();
    agent_ = std::make_unique<AgentProcess>(Env(), port_, dir_ + "/agent.log");
  }

  std::string Log() { return ReadAll(dir_ + "/agent.log"); }
  bool Logged(const std::string& s, milliseconds t = milliseconds(15000)) {
    bool ok = Eventually([&] { return Log().find(s) != std::string::npos; }, t);
    EXPECT_TRUE(ok) << "never logged: " << s << "\nlog:\n" << Log();
    return ok;
  }
  bool HealthIs(long code, const std::string& body) {
    Health last;
    bool ok = Eventually([&] {
      last = AskHealth(port_);
      return last.code == code && last.body == body;
    });
    EXPECT_TRUE(ok) << "health " << last.code << " " << last.body << ", wanted " << code << " "
                    << body;
    return ok;
  }

  std::optional<std::string> Get(const std::string& key) {
    auto o = store_->Get(key);
    if (!o.ok()) return std::nullopt;
    return o->data;
  }
  void Put(const std::string& key, const std::string& data) {
    ASSERT_TRUE(store_->Put(key, data, PutOptions{}).ok());
  }
  void Root(const std::string& name, const std::string& data) {
    ASSERT_TRUE(WriteFileAtomic(data_dir_ + "/hostguard/" + name, data, 0644).ok());
  }

  // Waits for the record; returns its digest.
  std::string RecordDigest() {
    EXPECT_TRUE(Eventually([&] { return Get(identity::RecordKey("web-1")).has_value(); }));
    auto parsed = identity::ParseIdentityRecord(*Get(identity::RecordKey("web-1")));
    EXPECT_TRUE(parsed.ok());
    return parsed.ok() ? parsed->digest : "";
  }
  std::string Invite(const std::string& record_digest, SystemTime issued) {
    std::string b = InvitationBytes("web-1", record_digest, enroll_, issued);
    Put(identity::InvitationKey("web-1"), b);
    return DigestOf(identity::ParseInvitation, b);
  }
  std::string Install(const std::string& record, const std::string& invitation) {
    std::string b = GuardBytes("web-1", record, invitation);
    Root("guard.json", b);
    return DigestOf(identity::ParseGuardFile, b);
  }
  std::optional<identity::StatusReport> Report() {
    auto b = Get(identity::StatusKey("web-1"));
    if (!b) return std::nullopt;
    auto p = identity::ParseStatusReport(*b);
    if (!p.ok()) return std::nullopt;
    auto rec = identity::ParseIdentityRecord(*Get(identity::RecordKey("web-1")));
    EXPECT_TRUE(identity::VerifyStatusReport(*p, rec->doc.public_key, "web-1").ok());
    return p->doc;
  }

  static identity::EmulatorCertificate* cert_;
  identity::PrivateKey enroll_, other_;
  std::string dir_, store_dir_, data_dir_;
  std::unique_ptr<DirStore> store_;
  std::unique_ptr<dev::ImdsEmulator> imds_;
  int port_ = 0;
  std::unique_ptr<AgentProcess> agent_;
  std::map<std::string, std::string> extra_env_;
};

identity::EmulatorCertificate* AgentTest::cert_ = nullptr;

TEST_F(AgentTest, JoinsStageByStageThenHostsThenLeavesWhenRetired) {
  Start();
  // Recorded: the record is written create-only, attested with the IID.
  ASSERT_TRUE(Logged("agent: the identity record control/boxes/web-1.json is written"));
  ASSERT_TRUE(Logged("agent: joining: web-1: recorded (waiting to be invited)"));
  HealthIs(503, "joining: recorded\n");
  std::string record = RecordDigest();
  auto rec = identity::ParseIdentityRecord(*Get(identity::RecordKey("web-1")));
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(identity::VerifyIdentityRecord(*rec, "web-1").ok());
  EXPECT_EQ(rec->doc.instance_id, "i-0de000000000000000");
  EXPECT_EQ(rec->doc.machine_id, "0123456789abcdef");
  ASSERT_TRUE(rec->doc.attestation.has_value());
  EXPECT_TRUE(identity::VerifyRecordAttestation(rec->doc, cert_->cert_pem).ok());

  // Invited: the marker asks root to arm, again at each nudge.
  std::string invitation = Invite(record, std::chrono::system_clock::now());
  ASSERT_TRUE(Logged("agent: joining: web-1: invited (the guard is not installed)"));
  HealthIs(503, "joining: invited\n");
  const std::string marker = data_dir_ + "/system-join-requested";
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(marker); }));
  std::string first = ReadAll(marker);
  SystemTime t{};
  ASSERT_EQ(first.back(), '\n');
  EXPECT_TRUE(ParseRfc3339(first.substr(0, first.size() - 1), &t)) << first;
  struct stat st {};
  ASSERT_EQ(stat(marker.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_TRUE(Eventually([&] { return ReadAll(marker) != first; }));  // Nudged again.

  // Root installs the guard: guard-installed, the report says why not armed.
  std::string guard = Install(record, invitation);
  ASSERT_TRUE(
      Logged("agent: joining: web-1: guard-installed (the guard is installed, not armed: "
             "armed.json is absent)"));
  HealthIs(503, "joining: guard-installed\n");
  ASSERT_TRUE(Eventually([&] { return Report() && Report()->stage == "guard-installed"; }));
  EXPECT_TRUE(Report()->guard->installed);
  EXPECT_FALSE(Report()->guard->armed);

  // Root arms it: guard-ready, the guard-ready report is what the enroller
  // enrolls on.
  Root("armed.json", ArmedBytes(guard));
  ASSERT_TRUE(
      Logged("agent: joining: web-1: guard-ready (the guard is armed; waiting to be "
             "enrolled)"));
  ASSERT_TRUE(Eventually([&] { return Report() && Report()->stage == "guard-ready"; }));
  // Checked with the rule the enroller applies (protocol/guard_ready.h).
  {
    protocol::ReadKey read = [this](const std::string& k) { return store_->GetIfExists(k); };
    auto rec = protocol::ReadDoc<identity::IdentityRecord>(read, identity::RecordKey("web-1"),
                                                           identity::ParseIdentityRecord);
    auto inv = protocol::ReadDoc<identity::Invitation>(read, identity::InvitationKey("web-1"),
                                                       identity::ParseInvitation);
    auto rep = protocol::ReadDoc<identity::StatusReport>(read, identity::StatusKey("web-1"),
                                                         identity::ParseStatusReport);
    ASSERT_TRUE(rec.parsed && inv.parsed);
    protocol::CheckReport(&rep, rec.parsed->doc.public_key, "web-1");
    // Just read, so seen written now (the store's age of it, if any).
    const SystemTime now = std::chrono::system_clock::now();
    protocol::GuardReadyCheck c = protocol::CheckGuardReady(rep, *rec.parsed, *inv.parsed, now,
                                                            now - rep.age.value_or(Milliseconds(0)),
                                                            protocol::Timings{}.report_freshness);
    EXPECT_EQ(c.readiness, protocol::GuardReadiness::kReady) << c.detail;
  }
  EXPECT_FALSE(Get(identity::EdgesKey("web-1")).has_value());  // Joining never writes it.

  // Enrolled: the process ends (0) for systemd to start the claim agent.
  Put(identity::EnrollmentKey("web-1"),
      EnrollmentBytes("web-1", record, invitation, guard, enroll_));
  EXPECT_EQ(agent_->WaitExit(milliseconds(10000)), 0) << Log();
  EXPECT_THAT(Log(), HasSubstr("agent: joining: web-1 is enrolled and its guard is armed; "
                               "restarting as the claim agent"));
  EXPECT_FALSE(Get(identity::EdgesKey("web-1")).has_value());

  // Restarted: it hosts, answers 200, publishes its edges file and report.
  Start();
  HealthIs(200, "hosting\n");
  ASSERT_TRUE(Logged("agent: web-1 is hosting"));
  ASSERT_TRUE(Eventually([&] { return Get(identity::EdgesKey("web-1")).has_value(); }));
  auto edges = identity::ParseEdgesFile(*Get(identity::EdgesKey("web-1")));
  ASSERT_TRUE(edges.ok());
  EXPECT_TRUE(identity::VerifyEdgesFile(*edges, rec->doc.public_key, "web-1").ok());
  ASSERT_TRUE(Eventually([&] { return Report() && Report()->hosting; }));
  EXPECT_EQ(Report()->stage, "hosting");

  // Retired: 503 "draining" for the drain window, then exit non-zero.
  Put(identity::RetiredKey("web-1"), RetirementBytes("web-1", record, enroll_));
  ASSERT_TRUE(Logged("agent: hosting: web-1 may no longer host: retired"));
  HealthIs(503, "draining\n");
  EXPECT_EQ(agent_->WaitExit(milliseconds(10000)), 1) << Log();
  EXPECT_THAT(Log(), HasSubstr("agent: hosting: drained; exiting to join again"));

  // Restarted: joining, retired; SIGTERM ends it cleanly.
  Start();
  ASSERT_TRUE(Logged("agent: joining: web-1: retired (retired at "));
  HealthIs(503, "joining: retired\n");
  agent_->Signal(SIGTERM);
  EXPECT_EQ(agent_->WaitExit(milliseconds(5000)), 0);
}

TEST_F(AgentTest, SigtermWhileHostingDrainsThenExitsZero) {
  Start();
  std::string record = RecordDigest();
  std::string invitation = Invite(record, std::chrono::system_clock::now());
  std::string guard = Install(record, invitation);
  Root("armed.json", ArmedBytes(guard));
  Put(identity::EnrollmentKey("web-1"),
      EnrollmentBytes("web-1", record, invitation, guard, enroll_));
  EXPECT_EQ(agent_->WaitExit(milliseconds(10000)), 0) << Log();
  Start();
  HealthIs(200, "hosting\n");
  auto sent = std::chrono::steady_clock::now();
  agent_->Signal(SIGTERM);
  HealthIs(503, "draining\n");
  EXPECT_EQ(agent_->WaitExit(milliseconds(5000)), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - sent, milliseconds(600));
  EXPECT_THAT(Log(), HasSubstr("agent: hosting: stopping; draining for 600ms"));
}

TEST_F(AgentTest, BadDocumentsKeepItJoiningLoggedOnceUntilFixed) {
  Start();
  std::string record = RecordDigest();
  ASSERT_TRUE(Logged("agent: joining: web-1: recorded (waiting to be invited)"));

  // A forged invitation (another key).
  Put(identity::InvitationKey("web-1"),
      InvitationBytes("web-1", record, other_, std::chrono::system_clock::now()));
  const std::string forged = "recorded (waiting to be invited; invitation refused: wrong key";
  ASSERT_TRUE(Logged(forged));
  std::this_thread::sleep_for(milliseconds(500));  // Five checks.
  EXPECT_EQ(Count(Log(), forged), 1u);
  HealthIs(503, "joining: recorded\n");

  // One bound to another record.
  Invite("sha256:" + std::string(64, 'a'), std::chrono::system_clock::now());
  ASSERT_TRUE(Logged("invitation refused: bound to another digest"));

  // An expired one.
  Invite(record, std::chrono::system_clock::now() - std::chrono::hours(25));
  ASSERT_TRUE(Logged("recorded (waiting to be invited; invitation refused: expired)"));
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(Count(Log(), "invitation refused: expired"), 1u);

  // Fixed: a valid invitation.
  std::string invitation = Invite(record, std::chrono::system_clock::now());
  ASSERT_TRUE(Logged("web-1: invited (the guard is not installed)"));

  // A corrupt guard file: invited, saying why; root's next join rewrites it.
  Root("guard.json", "{\"format\":");
  ASSERT_TRUE(Logged("web-1: invited (guard refused: malformed"));
  std::string guard = Install(record, invitation);
  Root("armed.json", ArmedBytes(guard));
  ASSERT_TRUE(Logged("web-1: guard-ready (the guard is armed; waiting to be enrolled)"));

  // A forged enrollment, then one bound to another record: never hosting.
  Put(identity::EnrollmentKey("web-1"),
      EnrollmentBytes("web-1", record, invitation, guard, other_));
  ASSERT_TRUE(Logged("enrolled; enrollment refused: wrong key"));
  Put(identity::EnrollmentKey("web-1"),
      EnrollmentBytes("web-1", "sha256:" + std::string(64, 'b'), invitation, guard, enroll_));
  ASSERT_TRUE(Logged("enrollment refused: bound to another digest"));
  EXPECT_TRUE(agent_->running());
  HealthIs(503, "joining: guard-ready\n");

  // The store directory vanishes mid-join: mode unknown, logged once.
  std::filesystem::rename(store_dir_, store_dir_ + ".gone");
  const std::string gone =
      "agent: joining: mode unknown: control/retired/web-1.json: directory store " + store_dir_ +
      " is gone (not a directory any more): check CARLOS_DEPLOYMENT_DIR and its volume; checking "
      "again";
  ASSERT_TRUE(Logged(gone));
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(Count(Log(), gone), 1u);
  HealthIs(503, "joining: guard-ready\n");
  EXPECT_TRUE(agent_->running());
  std::filesystem::rename(store_dir_ + ".gone", store_dir_);

  // Fixed: a valid enrollment; the box restarts as the claim agent.
  Put(identity::EnrollmentKey("web-1"),
      EnrollmentBytes("web-1", record, invitation, guard, enroll_));
  EXPECT_EQ(agent_->WaitExit(milliseconds(10000)), 0) << Log();
}

TEST_F(AgentTest, WithASwitchOffItHostsDirectly) {
  auto env = Env();
  env["CARLOS_REGION_HA"] = "";
  agent_ = std::make_unique<AgentProcess>(env, port_, dir_ + "/agent.log");
  HealthIs(200, "hosting\n");
  EXPECT_THAT(Log(), HasSubstr("agent: warning: region HA is off: CARLOS_REGION_HA is blank, "
                               "while CARLOS_ENROLLMENT_PUBKEY is set"));
  ASSERT_TRUE(Eventually([&] { return Get(identity::EdgesKey("web-1")).has_value(); }));
  agent_->Signal(SIGINT);
  EXPECT_EQ(agent_->WaitExit(milliseconds(5000)), 0);
}

// Starts an emulator serving `boxes` on `port` (0: any) with the test's
// signer, on the real clock.
std::unique_ptr<dev::ImdsEmulator> StartImds(const identity::EmulatorCertificate& cert,
                                             std::vector<dev::EmulatedBox> boxes, int port) {
  dev::ImdsEmulatorOptions o;
  o.boxes = std::move(boxes);
  o.base_port = port;
  o.cert_pem = cert.cert_pem;
  o.key_pem = cert.key_pem;
  o.clock = RealClock();
  auto imds = dev::ImdsEmulator::Start(o);
  EXPECT_TRUE(imds.ok()) << imds.status().ToString();
  return imds.ok() ? std::move(imds).value() : nullptr;
}

// The agent's record and reports after IMDS failed at first: attested, with
// the instance's id, and never "unattested".
class LateImdsTest : public AgentTest {
 protected:
  // `sysfs`: the DMI sys_vendor this box shows, or "" for none (cannot tell).
  void OnMachine(const std::string& vendor) {
    const std::string root = dir_ + "/sys";
    ASSERT_TRUE(MakeDirs(root + "/class/dmi/id", 0755).ok());
    if (!vendor.empty()) {
      ASSERT_TRUE(WriteFileAtomic(root + "/class/dmi/id/sys_vendor", vendor + "\n", 0444).ok());
    }
    extra_env_["CARLOS_SYSFS_ROOT"] = root;
  }

  // Joins until the guard-installed report is published; checks the record
  // and the report name the emulator's instance.
  void ExpectAttestedRecordAndReport(const std::string& endpoint) {
    ASSERT_TRUE(Logged("agent: the identity record control/boxes/web-1.json is written",
                       milliseconds(20000)));
    ASSERT_TRUE(Logged("agent: IMDS at " + endpoint + " answers after "));
    ASSERT_TRUE(Logged("this box is attested as instance i-0de000000000000000"));
    auto rec = identity::ParseIdentityRecord(*Get(identity::RecordKey("web-1")));
    ASSERT_TRUE(rec.ok());
    EXPECT_EQ(rec->doc.instance_id, "i-0de000000000000000");
    ASSERT_TRUE(rec->doc.attestation.has_value());
    EXPECT_TRUE(identity::VerifyRecordAttestation(rec->doc, cert_->cert_pem).ok());
    EXPECT_THAT(Log(), ::testing::Not(HasSubstr("unattested: not on EC2")));
    // Each cause logged once by the record loop, not once per attempt.
    EXPECT_LE(Count(Log(), "could not be written"), 2u) << Log();

    std::string invitation = Invite(rec->digest, std::chrono::system_clock::now());
    Install(rec->digest, invitation);
    ASSERT_TRUE(Eventually([&] { return Report() && Report()->stage == "guard-installed"; }));
    EXPECT_EQ(Report()->instance_id, "i-0de000000000000000");
    EXPECT_EQ(Report()->region, "us-east-1");
  }
};

// IMDS refuses connections when the agent starts and answers 3 s later.
TEST_F(LateImdsTest, RefusedAtStartThenAnsweringIsAttested) {
  OnMachine("");  // Cannot tell whether on EC2.
  const int imds_port = FreePort();
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(imds_port);
  extra_env_["CARLOS_IMDS_ENDPOINT"] = endpoint;
  Start();
  ASSERT_TRUE(
      Logged("agent: the identity record control/boxes/web-1.json could not be written: "
             "IMDSv2 session token: IMDS at " +
             endpoint + " (PUT /latest/api/token) is not answering"));
  std::this_thread::sleep_for(milliseconds(3000));
  EXPECT_FALSE(Get(identity::RecordKey("web-1")).has_value()) << Log();
  auto late = StartImds(*cert_, {dev::EmulatedBox{}}, imds_port);
  ASSERT_NE(late, nullptr);
  ExpectAttestedRecordAndReport(endpoint);
  EXPECT_THAT(Log(), HasSubstr("whether this box is on EC2 cannot be told"));
  late->Shutdown();
}

// The first token request answers after 3 s, the client gives up at 2 s.
TEST_F(LateImdsTest, HangingFirstAnswerThenAnsweringIsAttested) {
  OnMachine("Amazon EC2");
  auto boxes = dev::ParseEmulatorConfig(R"({"boxes":[{"hang_first":1,"hang_delay_ms":3000}]})",
                                        [](size_t) { return dev::EmulatedBox{}; });
  ASSERT_TRUE(boxes.ok()) << boxes.status().ToString();
  auto hanging = StartImds(*cert_, *boxes, 0);
  ASSERT_NE(hanging, nullptr);
  extra_env_["CARLOS_IMDS_ENDPOINT"] = hanging->endpoint(0);
  Start();
  ASSERT_TRUE(Logged("did not answer within 2s"));
  ExpectAttestedRecordAndReport(hanging->endpoint(0));
  EXPECT_THAT(Log(), HasSubstr("this box is on EC2 (DMI sys_vendor is \"Amazon EC2\")"));
  hanging->Shutdown();
}

// Off EC2 by its own marks, IMDS not answering: unattested at once.
TEST_F(LateImdsTest, OffEc2IsUnattestedAtOnce) {
  OnMachine("QEMU");
  // AWS's own endpoint: off EC2 nothing is sent to it.
  extra_env_["CARLOS_IMDS_ENDPOINT"] = std::string(imds::kDefaultEndpoint);
  Start();
  ASSERT_TRUE(Logged("agent: the identity record control/boxes/web-1.json is written"));
  EXPECT_THAT(Log(), HasSubstr("agent: this box is unattested: not on EC2: DMI sys_vendor is "
                               "\"QEMU\" and no EC2 mark is present"));
  auto rec = identity::ParseIdentityRecord(*Get(identity::RecordKey("web-1")));
  ASSERT_TRUE(rec.ok());
  EXPECT_FALSE(rec->doc.attestation.has_value());
  EXPECT_EQ(rec->doc.instance_id, "");
  EXPECT_THAT(Log(), ::testing::Not(HasSubstr("could not be written")));
}

}  // namespace
}  // namespace carlos::host
