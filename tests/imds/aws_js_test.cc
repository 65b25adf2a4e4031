// AWS's own IMDS client for JavaScript (@aws-sdk/ec2-metadata-service,
// pinned in tests/imds/aws-js/package-lock.json) against the real
// `carlos dev imds` process: the token flow, the identity document, a tag.
// `npm ci` runs here; when it fails (no network, no cache) the test fails:
// a test that cannot reach its oracle has not shown anything.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#ifndef CARLOS_AWS_JS_DIR
#error "CARLOS_AWS_JS_DIR must name the build's copy of tests/imds/aws-js"
#endif

namespace {

// Runs `cmd` with sh, returning its exit status and stdout (stderr goes to
// the test's log).
std::pair<int, std::string> RunShell(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, ""};
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int st = ::pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// `carlos dev imds ...` as a child process; its stdout is read until it
// names box 0's endpoint.
class Emulator {
 public:
  explicit Emulator(const std::vector<std::string>& args) {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out_ = ::fdopen(fds[0], "r");
    char line[1024];
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline && std::fgets(line, sizeof line, out_)) {
      std::string l(line);
      output_ += l;
      size_t at = l.find("CARLOS_IMDS_ENDPOINT=");
      if (l.rfind("box 0:", 0) == 0 && at != std::string::npos) {
        endpoint_ = l.substr(at + 21);
        while (!endpoint_.empty() && (endpoint_.back() == '\n' || endpoint_.back() == '\r')) {
          endpoint_.pop_back();
        }
        break;
      }
    }
  }
  ~Emulator() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st;
      ::waitpid(pid_, &st, 0);
    }
    if (out_) std::fclose(out_);
  }
  const std::string& endpoint() const { return endpoint_; }
  const std::string& output() const { return output_; }
  // Waits for the process to exit after SIGTERM; its exit status.
  int Terminate() {
    ::kill(pid_, SIGTERM);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  std::string endpoint_;
  std::string output_;
};

TEST(AwsJsImdsClient, ReadsTheEmulatorWithIMDSv2) {
  const char* bin = std::getenv("CARLOS_BIN");
  ASSERT_NE(bin, nullptr) << "CARLOS_BIN is not set";
  std::string dir = CARLOS_AWS_JS_DIR;
  // npm ci (a clean install from the lock file) once per lock file: the
  // stamp is the lock file as last installed.
  std::string stamp = dir + "/node_modules/.carlos-installed-lock";
  auto [npm_rc, npm_out] = RunShell(
      "cd '" + dir + "' && { cmp -s package-lock.json '" + stamp +
      "' || { npm ci --no-audit --no-fund --loglevel=error 1>&2 && cp package-lock.json '" + stamp +
      "'; }; }");
  ASSERT_EQ(npm_rc, 0) << "npm ci failed in " << dir
                       << ": AWS's JavaScript IMDS client could not be installed (no network?)";

  std::string tmp = ::testing::TempDir() + "/aws-js-" + std::to_string(::getpid());
  std::filesystem::create_directories(tmp);
  Emulator emu({bin, "dev", "imds", "-base-port", "0", "-boxes", "2", "-cert", tmp + "/cert.pem",
                "-key", tmp + "/key.pem", "-group", "web-eu", "-tag", "Name=js box"});
  ASSERT_FALSE(emu.endpoint().empty()) << "no endpoint in: " << emu.output();
  EXPECT_NE(emu.output().find("the certificate that signs the identity documents is " + tmp +
                              "/cert.pem"),
            std::string::npos)
      << emu.output();
  EXPECT_TRUE(std::filesystem::exists(tmp + "/cert.pem"));
  EXPECT_EQ(std::filesystem::status(tmp + "/key.pem").permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  auto [rc, out] =
      RunShell("cd '" + dir + "' && node imds_client.mjs '" + emu.endpoint() + "' carlos:group");
  ASSERT_EQ(rc, 0) << out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << out;
  EXPECT_GE((j["token"].get<std::string>().size()), 20u);
  auto doc = nlohmann::json::parse(j["document"].get<std::string>(), nullptr, false);
  ASSERT_TRUE(doc.is_object()) << j["document"];
  EXPECT_EQ(doc["instanceId"], "i-0de00000000000000");
  EXPECT_EQ(doc["region"], "us-east-1");
  EXPECT_EQ(doc["accountId"], "123456789012");
  EXPECT_EQ(j["instanceId"], "i-0de00000000000000");
  EXPECT_GT((j["rsa2048"].get<std::string>().size()), 1000u);
  EXPECT_EQ(j["tag"], "web-eu");
  EXPECT_EQ(j["tagKeys"], "Name\ncarlos:group");
  EXPECT_EQ(j["withoutToken"], "401");
  EXPECT_EQ(emu.Terminate(), 0);
}

}  // namespace
