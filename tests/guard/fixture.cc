#include "fixture.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/files.h"
#include "identity/encoding.h"
#include "identity/enrollment.h"
#include "identity/identity_record.h"
#include "identity/invitation.h"
#include "identity/retirement.h"
#include "identity/store_keys.h"

namespace carlos::guard_test {

TempDir::TempDir() {
  char tmpl[] = "/tmp/carlos-guard-XXXXXX";
  char* p = ::mkdtemp(tmpl);
  if (p == nullptr) std::abort();
  path_ = p;
  ::chmod(path_.c_str(), 0755);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

long long MtimeNs(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

namespace {

template <typename T>
T Must(StatusOr<T> v) {
  if (!v.ok()) {
    ADD_FAILURE() << "fixture: " << v.status().message();
    std::abort();
  }
  return std::move(v).value();
}

identity::PrivateKey Seeded(char c) {
  return Must(identity::PrivateKey::FromSeed(std::string(32, c)));
}

}  // namespace

World::World() : enrollment_key(Seeded('E')), box_key(Seeded('B')) {
  data_dir = root.path() + "/data";
  store_dir = root.path() + "/store";
  ::mkdir(data_dir.c_str(), 0755);
  ::mkdir(store_dir.c_str(), 0755);
  store = Must(DirStore::Open(store_dir));
  Status st = identity::WriteNewPrivateKeyFile(identity::BoxKeyPath(data_dir), box_key);
  if (!st.ok()) ADD_FAILURE() << "fixture: box key: " << st.message();
  // Whole seconds: the documents keep RFC 3339 times.
  now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
}

std::string World::PutRecord(bool attested, std::optional<identity::PrivateKey> key,
                             std::optional<std::string> region_override,
                             std::optional<std::string> instance_override) {
  const identity::PrivateKey& k = key.has_value() ? *key : box_key;
  identity::IdentityRecord r;
  r.box = box;
  r.region = region_override.value_or(region);
  r.machine_id = "0123456789abcdef0123456789abcdef";
  r.instance_id = instance_override.value_or(attested ? instance_id : "");
  r.release = "0.1.0";
  r.platform = "linux-amd64";
  r.public_key = k.public_key();
  r.created_at = now - std::chrono::hours(1);
  if (attested) {
    identity::InstanceAttestation a;
    a.document = fmt::format(
        "{{\n  \"accountId\" : \"123456789012\",\n  \"instanceId\" : \"{}\",\n  \"region\" : "
        "\"{}\"\n}}",
        r.instance_id, r.region);
    a.rsa2048 = identity::Base64Encode("not a real signature");
    r.attestation = a;
  }
  std::string bytes = Must(identity::SignIdentityRecord(r, k));
  Must(store->Put(identity::RecordKey(box), bytes, {}));
  return identity::Sha256Digest(bytes);
}

std::string World::PutInvitation(const std::string& record_digest, SystemTime issued,
                                 std::optional<std::string> floor,
                                 std::optional<identity::PrivateKey> signer,
                                 std::optional<std::string> region_override) {
  identity::Invitation inv = identity::NewInvitation(
      box, record_digest, region_override.value_or(region), issued, false, floor);
  std::string bytes =
      Must(identity::SignInvitation(inv, signer.has_value() ? *signer : enrollment_key));
  Must(store->Put(identity::InvitationKey(box), bytes, {}));
  return identity::Sha256Digest(bytes);
}

std::string World::PutEnrollment(const std::string& record_digest,
                                 const std::string& invitation_digest,
                                 const std::string& guard_digest) {
  identity::Enrollment e{box, record_digest, invitation_digest, guard_digest, now};
  std::string bytes = Must(identity::SignEnrollment(e, enrollment_key));
  Must(store->Put(identity::EnrollmentKey(box), bytes, {}));
  return identity::Sha256Digest(bytes);
}

std::string World::PutRetirement(const std::string& record_digest) {
  identity::Retirement r{box, record_digest, now, "decommissioned by the test"};
  std::string bytes = Must(identity::SignRetirement(r, enrollment_key));
  Must(store->Put(identity::RetiredKey(box), bytes, {}));
  return identity::Sha256Digest(bytes);
}

void World::Remove(const std::string& key) {
  Status st = store->Delete(key);
  if (!st.ok()) ADD_FAILURE() << st.message();
}

std::map<std::string, std::string> World::Env() const {
  return {{"CARLOS_HOST_CLAIM", "1"},
          {"CARLOS_REGION_HA", "1"},
          {"CARLOS_DATA_DIR", data_dir},
          {"CARLOS_DEPLOYMENT_DIR", store_dir},
          {"CARLOS_ENROLLMENT_PUBKEY", enrollment_key.public_key().ToString()},
          {"CARLOS_BOX_LABEL", box},
          {"CARLOS_REGION", region},
          {"CARLOS_IMDS_ENDPOINT", "off"}};
}

std::string World::GuardPath() const { return identity::GuardFilePath(data_dir); }
std::string World::ArmedPath() const { return identity::ArmedFilePath(data_dir); }

FakeImds::FakeImds(std::string instance_id, std::string region,
                   std::map<std::string, std::string> tags) {
  net::HttpServer::Options o;
  o.address = "127.0.0.1:0";
  auto handler = [instance_id, region, tags](const net::HttpRequest& r) {
    net::HttpResponse resp;
    if (r.method == "PUT" && r.path == "/latest/api/token") {
      resp.body = "fake-token";
      resp.headers.push_back({"X-aws-ec2-metadata-token-ttl-seconds", "21600"});
      return resp;
    }
    if (r.Header("X-aws-ec2-metadata-token") != "fake-token") {
      resp.status = 401;
      return resp;
    }
    if (r.path == "/latest/meta-data/instance-id") {
      resp.body = instance_id;
    } else if (r.path == "/latest/meta-data/placement/region") {
      resp.body = region;
    } else if (r.path == "/latest/meta-data/tags/instance/" ||
               r.path == "/latest/meta-data/tags/instance") {
      std::string keys;
      for (const auto& [k, v] : tags) keys += k + "\n";
      resp.body = keys;
    } else if (r.path.rfind("/latest/meta-data/tags/instance/", 0) == 0) {
      auto it = tags.find(r.path.substr(std::string("/latest/meta-data/tags/instance/").size()));
      if (it == tags.end()) {
        resp.status = 404;
      } else {
        resp.body = it->second;
      }
    } else {
      resp.status = 404;
    }
    return resp;
  };
  server_ = Must(net::HttpServer::Start(o, handler));
}

FakeImds::~FakeImds() { server_->Shutdown(); }

std::string FakeImds::endpoint() const {
  return fmt::format("http://127.0.0.1:{}", server_->port());
}

ImdsEmulator::ImdsEmulator(const std::string& region, const std::string& group) {
  std::string out = dir_.path() + "/out";
  std::vector<std::string> argv = {CarlosBin(),
                                   "dev",
                                   "imds",
                                   "--base-port",
                                   "0",
                                   "--region",
                                   region,
                                   "--group",
                                   group,
                                   "--cert",
                                   dir_.path() + "/cert.pem",
                                   "--key",
                                   dir_.path() + "/key.pem"};
  pid_ = ::fork();
  if (pid_ == 0) {
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(o, 2);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    ::execv(cargv[0], cargv.data());
    ::_exit(126);
  }
  // "box 0: i-de00000000000000 on CARLOS_IMDS_ENDPOINT=http://127.0.0.1:NNNN"
  std::regex line("box 0: (i-[0-9a-f]+) on CARLOS_IMDS_ENDPOINT=(\\S+)");
  for (int i = 0; i < 300 && endpoint_.empty(); ++i) {
    std::smatch m;
    std::string text = ReadFile(out);
    if (std::regex_search(text, m, line)) {
      instance_id_ = m[1];
      endpoint_ = m[2];
      break;
    }
    ::usleep(50'000);  // The emulator's start, not a timing under test.
  }
  if (endpoint_.empty()) ADD_FAILURE() << "carlos dev imds did not start: " << ReadFile(out);
}

ImdsEmulator::~ImdsEmulator() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env) {
  TempDir io;
  std::string out_path = io.path() + "/out", err_path = io.path() + "/err";
  std::vector<std::string> envs;
  envs.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(e, 2);
    int n = ::open("/dev/null", O_RDONLY);
    ::dup2(n, 0);
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(126);
  }
  ProcessResult r;
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.exit_code = -WTERMSIG(status);
  r.out = ReadFile(out_path);
  r.err = ReadFile(err_path);
  return r;
}

std::string CarlosBin() {
  const char* b = std::getenv("CARLOS_BIN");
  return b != nullptr ? b : "carlos";
}

std::string SourceDir() {
  const char* s = std::getenv("CARLOS_SOURCE_DIR");
  return s != nullptr ? s : ".";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

}  // namespace carlos::guard_test
