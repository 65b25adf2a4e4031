// Two enrollers at once over the same boxes, as threads of this process and
// as two `carlos boxes auto-enroll` processes, on both backends: exactly one
// invitation and one enrollment per box, all valid, and the loser of each
// race accepts the winner's document.
#include <fcntl.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "identity/encoding.h"
#include "identity/keys.h"
#include "identity/store_keys.h"
#include "world.h"

namespace carlos::enroll::testing {
namespace {

constexpr int kBoxes = 24;

class RaceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto store = MakeStore(GetParam(), tmp_.path(), &env_);
    if (!store.ok() && GetParam() == "s3") GTEST_SKIP() << store.status().message();
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(*store);
    world_ = std::make_unique<World>(store_.get());
    for (int i = 0; i < kBoxes; ++i) boxes_.push_back(world_->AddBox(fmt::format("web-{}", i)));
  }

  // Every box has exactly one valid invitation (one key under
  // control/invitations/ each) and, when `enrolled`, one valid enrollment.
  void ExpectOneValidEach(bool enrolled) {
    auto invitations = ListAll(*store_, identity::kInvitationsPrefix);
    ASSERT_TRUE(invitations.ok());
    EXPECT_EQ(invitations->size(), static_cast<size_t>(kBoxes));
    auto enrollments = ListAll(*store_, identity::kEnrollmentsPrefix);
    ASSERT_TRUE(enrollments.ok());
    EXPECT_EQ(enrollments->size(), enrolled ? static_cast<size_t>(kBoxes) : 0u);
    for (const TestBox& b : boxes_) {
      auto inv = world_->Invitation(b.label);
      ASSERT_TRUE(inv.has_value()) << b.label;
      EXPECT_TRUE(identity::VerifyInvitation(*inv, world_->enrollment_key().public_key(), b.label,
                                             b.record_digest, world_->clock().Now())
                      .ok());
      if (!enrolled) continue;
      auto enr = world_->Enrollment(b.label);
      ASSERT_TRUE(enr.has_value()) << b.label;
      identity::EnrollmentBinding binding{b.label, b.record_digest, inv->digest,
                                          "sha256:" + std::string(64, 'a')};
      EXPECT_TRUE(
          identity::VerifyEnrollment(*enr, world_->enrollment_key().public_key(), binding).ok())
          << b.label;
    }
  }

  TempDir tmp_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<World> world_;
  std::vector<TestBox> boxes_;
};

TEST_P(RaceTest, TwoEnrollerThreadsWriteOneInvitationAndOneEnrollmentPerBox) {
  LogSink log_a, log_b;
  // Separate store objects, as two enrollers would have.
  std::map<std::string, std::string> env = env_;
  auto other = OpenStore(MapGetenv(env));
  ASSERT_TRUE(other.ok()) << other.status().message();
  auto a = world_->MakeEnroller(&log_a);
  // Its own clock, a millisecond ahead, as a second enroller's would be: its
  // documents differ from the first's in their times. (With one shared fake
  // clock both would sign byte-identical documents, and RGW lets racing PUTs
  // of identical bytes all succeed: docs/store.md. The store then holds one
  // document either way.)
  FakeClock clock_b(world_->clock().Now() + Milliseconds(1));
  Enroller b_enroller(other->get(), &clock_b, log_b.logf(), world_->Settings());
  Enroller* b = &b_enroller;

  auto race = [&] {
    StatusOr<PassSummary> ra = Internal(""), rb = Internal("");
    std::thread ta([&] { ra = a->Pass(); });
    std::thread tb([&] { rb = b->Pass(); });
    ta.join();
    tb.join();
    EXPECT_TRUE(ra.ok() && rb.ok());
    EXPECT_EQ(ra->errors + rb->errors, 0);
    return std::make_pair(*ra, *rb);
  };

  auto [ia, ib] = race();
  ExpectOneValidEach(false);
  // Each box was invited by exactly one of them; the other either saw the
  // invitation already there or lost the race and accepted it.
  EXPECT_EQ(ia.invited + ib.invited, kBoxes);
  size_t lost = log_a.Matching("another enroller invited it first").size() +
                log_b.Matching("another enroller invited it first").size();
  EXPECT_EQ(ia.invited + ib.invited + static_cast<int>(lost) +
                static_cast<int>(log_a.Matching("not enrolled: no report").size() +
                                 log_b.Matching("not enrolled: no report").size()),
            2 * kBoxes);

  for (const TestBox& box : boxes_) world_->PutReport(box);
  auto [ea, eb] = race();
  EXPECT_EQ(ea.enrolled + eb.enrolled, kBoxes);
  ExpectOneValidEach(true);

  // Expired invitations of enrolled boxes are left alone; of invited ones
  // replaced once, by one compare-and-swap winner.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(store_->Delete(identity::EnrollmentKey(boxes_[i].label)).ok());
  }
  world_->clock().Advance(Milliseconds(25 * 3600'000));
  clock_b.Advance(Milliseconds(25 * 3600'000));
  log_a.Clear();
  log_b.Clear();
  auto [ra, rb] = race();
  EXPECT_EQ(ra.invited + rb.invited, 4);
  EXPECT_EQ(log_a.Matching("invited again").size() + log_b.Matching("invited again").size(), 4u);
}

// Runs `carlos boxes auto-enroll` with `env` and returns its exit code;
// stderr goes to `err_path`.
pid_t StartCarlos(const std::vector<std::string>& args,
                  const std::map<std::string, std::string>& env, const std::string& err_path) {
  const char* bin_env = std::getenv("CARLOS_BIN");
  std::string bin = bin_env && *bin_env ? bin_env : CARLOS_BIN_DEFAULT;
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    std::vector<std::string> envs;
    for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
    std::vector<char*> argv{bin.data()}, envp;
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    execve(bin.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_P(RaceTest, TwoEnrollerProcessesWriteOneInvitationAndOneEnrollmentPerBox) {
  std::string key_path = tmp_.path() + "/enrollment.key";
  ASSERT_TRUE(identity::WriteNewPrivateKeyFile(key_path, world_->enrollment_key()).ok());
  std::string cert_path = tmp_.path() + "/aws.pem";
  {
    std::ofstream out(cert_path);
    out << world_->Settings().iid_certificates.any_region_pem;
  }
  std::map<std::string, std::string> env = env_;
  env["CARLOS_ENROLLMENT_KEY"] = key_path;
  env["CARLOS_AWS_IID_CERT"] = cert_path;

  auto run_both = [&] {
    pid_t a = StartCarlos({"boxes", "auto-enroll"}, env, tmp_.path() + "/a.err");
    pid_t b = StartCarlos({"boxes", "auto-enroll"}, env, tmp_.path() + "/b.err");
    EXPECT_EQ(Wait(a), 0) << Slurp(tmp_.path() + "/a.err");
    EXPECT_EQ(Wait(b), 0) << Slurp(tmp_.path() + "/b.err");
    return Slurp(tmp_.path() + "/a.err") + Slurp(tmp_.path() + "/b.err");
  };
  std::string logs = run_both();
  ExpectOneValidEach(false);
  // Real time, not the fake clock: reports dated now.
  world_->clock().Advance(
      std::chrono::duration_cast<Milliseconds>(RealClock()->Now() - world_->clock().Now()));
  for (const TestBox& box : boxes_) world_->PutReport(box, {.age = Milliseconds(0)});
  logs = run_both();
  ExpectOneValidEach(true);
  size_t enrolled = 0;
  for (size_t at = 0; (at = logs.find(": enrolled (record ", at)) != std::string::npos; ++at) {
    ++enrolled;
  }
  EXPECT_EQ(enrolled, static_cast<size_t>(kBoxes)) << logs;
}

INSTANTIATE_TEST_SUITE_P(Backends, RaceTest, ::testing::Values("dir", "s3"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace carlos::enroll::testing
