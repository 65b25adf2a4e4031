#include "world.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/files.h"
#include "base/strings.h"
#include "fixtures.h"  // tests/identity: AWS's test certificate, IID samples.
#include "identity/edges_file.h"
#include "identity/encoding.h"
#include "identity/enrollment.h"
#include "identity/iid.h"
#include "identity/store_keys.h"
#include "store/aws_credentials.h"
#include "store/dir_store.h"
#include "store/s3_store.h"

namespace carlos::enroll::testing {

namespace itest = identity::testing;

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/carlos-enroll-XXXXXX";
  char* made = mkdtemp(tmpl.data());
  if (made == nullptr) std::abort();
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

StatusOr<std::map<std::string, std::string>> S3ServerEnv() {
  const char* file_env = std::getenv("CARLOS_S3_ENV_FILE");
  std::string file = file_env && *file_env ? file_env : CARLOS_S3_ENV_FILE_DEFAULT;
  std::ifstream in(file);
  if (!in) {
    return Unavailable(fmt::format(
        "no S3 test server: cannot read {} (run the S3 tests through ctest, whose carlos_s3 "
        "fixture starts the server, or set CARLOS_S3_ENV_FILE)",
        file));
  }
  std::map<std::string, std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq != std::string::npos)
      out[TrimSpace(line.substr(0, eq))] = TrimSpace(line.substr(eq + 1));
  }
  if (out["CARLOS_S3_ENDPOINT"].empty()) return Unavailable(file + " has no CARLOS_S3_ENDPOINT");
  return out;
}

StatusOr<std::unique_ptr<Store>> MakeStore(const std::string& kind, const std::string& dir,
                                           std::map<std::string, std::string>* env) {
  if (kind == "dir") {
    std::string root = dir + "/store";
    CARLOS_RETURN_IF_ERROR(MakeDirs(root, 0755));
    (*env)["CARLOS_DEPLOYMENT_DIR"] = root;
    return OpenStore(MapGetenv(*env));
  }
  CARLOS_ASSIGN_OR_RETURN(*env, S3ServerEnv());
  static std::atomic<int> counter{0};
  std::string bucket = fmt::format("enroll-{}-{}-{}", ::getpid(), counter++, std::rand() % 100000);
  (*env)["CARLOS_DEPLOYMENT_BUCKET"] = bucket;
  S3StoreOptions o;
  o.bucket = bucket;
  o.endpoint = env->at("CARLOS_S3_ENDPOINT");
  o.region = env->count("AWS_REGION") ? env->at("AWS_REGION") : "us-east-1";
  o.credentials = EnvCredentials(MapGetenv(*env));
  CARLOS_ASSIGN_OR_RETURN(auto s3, S3Store::Open(std::move(o)));
  CARLOS_RETURN_IF_ERROR(s3->CreateBucket());
  return std::unique_ptr<Store>(std::move(s3));
}

Logf LogSink::logf() {
  return [this](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back(line);
  };
}

std::vector<std::string> LogSink::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

std::vector<std::string> LogSink::Matching(const std::string& part) const {
  std::vector<std::string> out;
  for (const auto& l : lines()) {
    if (l.find(part) != std::string::npos) out.push_back(l);
  }
  return out;
}

void LogSink::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  lines_.clear();
}

World::World(Store* store)
    : store_(store), clock_(itest::T0()), enrollment_key_(itest::EnrollmentKeyForTest()) {}

EnrollerSettings World::Settings() const {
  EnrollerSettings s;
  s.enrollment_key = enrollment_key_;
  s.enrollment_public_key = enrollment_key_.public_key();
  s.iid_certificates.any_region_pem = itest::AwsCertForTest().cert_pem;
  s.workers = 4;
  return s;
}

std::unique_ptr<Enroller> World::MakeEnroller(LogSink* log,
                                              std::function<void(EnrollerSettings&)> edit,
                                              Store* store) {
  EnrollerSettings s = Settings();
  if (edit) edit(s);
  return std::make_unique<Enroller>(store ? store : store_, &clock_, log->logf(), std::move(s));
}

TestBox World::AddBox(const std::string& label, BoxSpec spec) {
  TestBox b{label, spec.region, spec.instance_id,
            spec.key ? *spec.key : itest::Must(identity::PrivateKey::Generate()), ""};
  if (b.instance_id.empty()) {
    b.instance_id = "i-0" + HexEncode(identity::Sha256(label)).substr(0, 16);
  }
  identity::IdentityRecord r;
  r.box = label;
  r.region = spec.region;
  r.machine_id = HexEncode(identity::Sha256("machine " + label)).substr(0, 32);
  r.instance_id = spec.attested ? b.instance_id : "";
  if (!spec.attested) b.instance_id = "";
  r.release = "0.1.0";
  r.platform = "linux-amd64";
  r.public_key = b.key.public_key();
  r.created_at = clock_.Now();
  if (spec.attested) {
    std::string doc = itest::SampleIidDocument(b.instance_id, spec.region);
    const std::string sample_account = "\"123456789012\"";
    doc.replace(doc.find(sample_account), sample_account.size(), "\"" + spec.account_id + "\"");
    static const identity::EmulatorCertificate* other = new identity::EmulatorCertificate(
        itest::Must(identity::MakeEmulatorCertificate("Amazon Web Services LLC (test)")));
    const identity::EmulatorCertificate& cert = spec.forged_iid ? *other : itest::AwsCertForTest();
    r.attestation = identity::InstanceAttestation{
        doc, itest::Must(identity::SignInstanceIdentityDocumentAsEmulator(doc, cert.cert_pem,
                                                                          cert.key_pem))};
  }
  std::string bytes = itest::Must(identity::SignIdentityRecord(r, b.key));
  b.record_digest = identity::Sha256Digest(bytes);
  auto put =
      store_->Put(identity::RecordKey(label), bytes, PutOptions{PutCondition::kCreateOnly, ""});
  EXPECT_TRUE(put.ok()) << put.status().message();
  return b;
}

void World::PutEdges(const TestBox& writer, const std::vector<std::string>& names) {
  identity::EdgesFile e;
  e.box = writer.label;
  e.updated_at = clock_.Now();
  e.edges = names;
  std::string bytes = itest::Must(identity::SignEdgesFile(e, writer.key));
  auto put = store_->Put(identity::EdgesKey(writer.label), bytes, PutOptions{});
  EXPECT_TRUE(put.ok()) << put.status().message();
}

void World::PutReport(const TestBox& box, const ReportSpec& spec) {
  identity::StatusReport r;
  r.box = box.label;
  r.region = box.region;
  r.machine_id = HexEncode(identity::Sha256("machine " + box.label)).substr(0, 32);
  r.instance_id = spec.instance_id.value_or(box.instance_id);
  r.release = "0.1.0";
  r.platform = "linux-amd64";
  r.system_channel = "stable";
  r.reported_at = clock_.Now() - spec.age;
  r.hosting = false;
  r.stage = spec.armed ? "guard-ready" : "guard-installed";
  if (spec.guard) {
    identity::GuardFacts g;
    g.installed = spec.installed;
    g.armed = spec.armed;
    g.why_not_armed = spec.why_not_armed;
    if (spec.installed) {
      g.guard_digest = spec.guard_digest;
      g.record_digest = spec.record_digest.value_or(box.record_digest);
      if (spec.invitation_digest) {
        g.invitation_digest = *spec.invitation_digest;
      } else {
        auto inv = Invitation(box.label);
        g.invitation_digest = inv ? inv->digest : "sha256:" + std::string(64, 'b');
      }
    }
    r.guard = g;
  }
  std::string bytes = itest::Must(identity::SignStatusReport(r, spec.signed_by.value_or(box.key)));
  auto put = store_->Put(identity::StatusKey(box.label), bytes, PutOptions{});
  EXPECT_TRUE(put.ok()) << put.status().message();
  if (spec.written_ago > Milliseconds(0)) {
    auto* dir = dynamic_cast<DirStore*>(store_);
    ASSERT_NE(dir, nullptr) << "only the directory store's write time can be set back";
    std::string path = dir->root() + "/" + identity::StatusKey(box.label);
    auto then = std::chrono::system_clock::now() - spec.written_ago;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(then.time_since_epoch()).count();
    struct timespec ts[2] = {{ns / 1'000'000'000, ns % 1'000'000'000},
                             {ns / 1'000'000'000, ns % 1'000'000'000}};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), ts, 0), 0) << path;
  }
}

std::optional<identity::Parsed<identity::Invitation>> World::Invitation(const std::string& label) {
  auto obj = store_->Get(identity::InvitationKey(label));
  if (!obj.ok()) return std::nullopt;
  auto p = identity::ParseInvitation(obj->data);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return std::nullopt;
  return std::move(*p);
}

std::optional<identity::Parsed<identity::Enrollment>> World::Enrollment(const std::string& label) {
  auto obj = store_->Get(identity::EnrollmentKey(label));
  if (!obj.ok()) return std::nullopt;
  auto p = identity::ParseEnrollment(obj->data);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return std::nullopt;
  return std::move(*p);
}

bool World::Has(const std::string& key) { return store_->Get(key).ok(); }

void BackendWorldTest::SetUp() {
  auto store = MakeStore(GetParam(), tmp_.path(), &env_);
  if (!store.ok() && GetParam() == "s3") GTEST_SKIP() << store.status().message();
  ASSERT_TRUE(store.ok()) << store.status().message();
  store_ = std::move(*store);
  world_ = std::make_unique<World>(store_.get());
}

void BackendTest::SetUp() {
  BackendWorldTest::SetUp();
  if (IsSkipped() || HasFatalFailure()) return;
  enroller_ = world_->MakeEnroller(&log_);
}

}  // namespace carlos::enroll::testing
