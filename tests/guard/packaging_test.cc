// The packaging (packaging/): every systemd unit passes systemd-analyze
// verify, the tmpfiles.d and sysusers.d files make what docs/operator.md
// says, and the Debian package CPack builds has the right contents,
// permissions and maintainer scripts, and no lintian errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "fixture.h"

namespace carlos::guard_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<std::string> kUnits = {"carlos-edge.service", "carlos-system-join.path",
                                         "carlos-system-join.service"};

std::string Packaging() { return SourceDir() + "/packaging"; }

std::string BuildDir() { return std::filesystem::path(CarlosBin()).parent_path().string(); }

bool Have(const std::string& tool) {
  return RunProcess({"/bin/sh", "-c", "command -v " + tool}, {}).exit_code == 0;
}

TEST(Units, SystemdAnalyzeVerify) {
  if (!Have("systemd-analyze")) GTEST_SKIP() << "systemd-analyze is not installed";
  // verify checks that ExecStart's binary exists: each unit is copied with
  // /usr/bin/carlos pointing at the built binary.
  TempDir dir;
  for (const auto& unit : kUnits) {
    std::string text = ReadFile(Packaging() + "/systemd/" + unit);
    ASSERT_FALSE(text.empty()) << unit;
    text = std::regex_replace(text, std::regex("/usr/bin/carlos"), CarlosBin());
    std::ofstream(dir.path() + "/" + unit) << text;
  }
  for (const auto& unit : kUnits) {
    SCOPED_TRACE(unit);
    auto r = RunProcess({"/usr/bin/systemd-analyze", "verify", "--man=no", dir.path() + "/" + unit},
                        {{"SYSTEMD_LOG_COLOR", "0"}});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    // Warnings about our own files (unknown keys, bad values) fail too;
    // lines about the host's other units do not concern us.
    for (const auto& line : Lines(r.err)) {
      for (const auto& u : kUnits) EXPECT_THAT(line, Not(HasSubstr(u))) << line;
    }
  }
}

TEST(Units, TheAgentUnitIsHardenedAndStartsThroughTheGuard) {
  std::string edge = ReadFile(Packaging() + "/systemd/carlos-edge.service");
  for (const char* want :
       {"ExecStart=/usr/bin/carlos system guard-exec -- /usr/bin/carlos agent", "Restart=always",
        "User=carlos", "NoNewPrivileges=yes", "ProtectSystem=strict", "ReadWritePaths=/data\n",
        "EnvironmentFile=/etc/carlos/host.env", "AmbientCapabilities=CAP_NET_BIND_SERVICE"}) {
    EXPECT_THAT(edge, HasSubstr(want));
  }
  std::string path = ReadFile(Packaging() + "/systemd/carlos-system-join.path");
  EXPECT_THAT(path, HasSubstr("PathChanged=/data/system-join-requested"));
  std::string join = ReadFile(Packaging() + "/systemd/carlos-system-join.service");
  EXPECT_THAT(join, HasSubstr("Type=oneshot"));
  EXPECT_THAT(join, HasSubstr("ExecStart=/usr/bin/carlos system join"));
  EXPECT_THAT(join, Not(HasSubstr("User=")));
}

TEST(Units, SysusersAndTmpfilesMakeTheUserAndDirectories) {
  if (!Have("systemd-sysusers") || !Have("systemd-tmpfiles")) GTEST_SKIP() << "no systemd tools";
  if (::geteuid() != 0) GTEST_SKIP() << "tmpfiles --root chowns: needs root";
  TempDir root;
  ASSERT_EQ(::mkdir((root.path() + "/etc").c_str(), 0755), 0);
  auto r = RunProcess({"/usr/bin/systemd-sysusers", "--root=" + root.path(),
                       Packaging() + "/sysusers.d/carlos.conf"},
                      {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string passwd = ReadFile(root.path() + "/etc/passwd");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(passwd, m, std::regex("carlos:x:([0-9]+):([0-9]+):"))) << passwd;
  unsigned uid = std::stoul(m[1]);
  EXPECT_NE(uid, 0u);
  r = RunProcess({"/usr/bin/systemd-tmpfiles", "--create", "--root=" + root.path(),
                  Packaging() + "/tmpfiles.d/carlos.conf"},
                 {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat((root.path() + "/data").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, uid);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((root.path() + "/data/hostguard").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_gid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0755u);

  // A /data that exists already, someone else's and 0700, is left as it
  // is: not taken over, not widened (tmpfiles.d(5), ":" prefixes).
  ASSERT_EQ(::chown((root.path() + "/data").c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod((root.path() + "/data").c_str(), 0700), 0);
  r = RunProcess({"/usr/bin/systemd-tmpfiles", "--create", "--root=" + root.path(),
                  Packaging() + "/tmpfiles.d/carlos.conf"},
                 {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(::stat((root.path() + "/data").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
}

TEST(HostEnv, ShipsBothSwitchesSet) {
  std::string example = ReadFile(Packaging() + "/host.env.example");
  // Set, not commented out: a box installed from the example joins.
  EXPECT_THAT(example, HasSubstr("\nCARLOS_HOST_CLAIM=1\n"));
  EXPECT_THAT(example, HasSubstr("\nCARLOS_REGION_HA=1\n"));
}

TEST(HostEnv, ListsEveryVariableTheCodeReads) {
  std::string example = ReadFile(Packaging() + "/host.env.example");
  auto r = RunProcess(
      {"/bin/sh", "-c",
       "grep -rhoE '\"(CARLOS|AWS)_[A-Z0-9_]+\"' '" + SourceDir() + "/src' | tr -d '\"' | sort -u"},
      {});
  ASSERT_EQ(r.exit_code, 0);
  auto vars = Lines(r.out);
  EXPECT_GT(vars.size(), 10u);
  for (const auto& v : vars) EXPECT_THAT(example, HasSubstr(v + "=")) << v;
}

class Package : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!Have("cpack") || !Have("dpkg-deb")) return;
    out_ = new TempDir();
    auto r = RunProcess(
        {"/bin/sh", "-c", "cd '" + BuildDir() + "' && cpack -G DEB -B '" + out_->path() + "' 2>&1"},
        {});
    build_log_ = r.out + r.err;
    for (const auto& e : std::filesystem::directory_iterator(out_->path())) {
      if (e.path().extension() == ".deb") deb_ = e.path().string();
    }
  }
  static void TearDownTestSuite() {
    delete out_;
    out_ = nullptr;
  }
  void SetUp() override {
    if (!Have("cpack") || !Have("dpkg-deb")) GTEST_SKIP() << "cpack or dpkg-deb missing";
    ASSERT_FALSE(deb_.empty()) << "cpack made no .deb:\n" << build_log_;
  }
  static TempDir* out_;
  static std::string deb_, build_log_;
};
TempDir* Package::out_ = nullptr;
std::string Package::deb_, Package::build_log_;

TEST_F(Package, ContentsAndPermissions) {
  auto r = RunProcess({"/usr/bin/dpkg-deb", "-c", deb_}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "-rwxr-xr-x root/root  123 2026-11-29 19:00 ./usr/bin/carlos"
  std::map<std::string, std::string> entries;
  for (const auto& line : Lines(r.out)) {
    std::smatch m;
    if (std::regex_search(line, m, std::regex("^(\\S+) (\\S+) .* \\./(\\S*)$"))) {
      entries[m[3]] = m[1].str() + " " + m[2].str();
    }
  }
  std::map<std::string, std::string> want = {
      {"usr/bin/carlos", "-rwxr-xr-x root/root"},
      {"lib/systemd/system/carlos-edge.service", "-rw-r--r-- root/root"},
      {"lib/systemd/system/carlos-system-join.path", "-rw-r--r-- root/root"},
      {"lib/systemd/system/carlos-system-join.service", "-rw-r--r-- root/root"},
      {"usr/lib/tmpfiles.d/carlos.conf", "-rw-r--r-- root/root"},
      {"usr/lib/sysusers.d/carlos.conf", "-rw-r--r-- root/root"},
      {"usr/share/doc/carlos/host.env.example", "-rw-r--r-- root/root"},
      {"usr/share/doc/carlos/operator.md", "-rw-r--r-- root/root"},
      {"usr/share/doc/carlos/DESIGN.md", "-rw-r--r-- root/root"},
      {"usr/share/doc/carlos/enroll.md", "-rw-r--r-- root/root"},
      {"usr/share/man/man1/carlos.1.gz", "-rw-r--r-- root/root"},
      {"usr/share/lintian/overrides/carlos", "-rw-r--r-- root/root"},
      {"usr/share/doc/carlos/copyright", "-rw-r--r-- root/root"},
      {"usr/share/doc/carlos/changelog.gz", "-rw-r--r-- root/root"},
  };
  for (const auto& [path, perms] : want) {
    ASSERT_TRUE(entries.count(path)) << path << " is not in the package:\n" << r.out;
    EXPECT_EQ(entries[path], perms) << path;
  }
  for (const auto& [path, perms] : entries) {
    EXPECT_EQ(perms.substr(perms.find(' ') + 1), "root/root") << path;
    // Nothing of the box's state or configuration is shipped.
    EXPECT_THAT(path, Not(HasSubstr("data/"))) << path;
    EXPECT_THAT(path, Not(HasSubstr("etc/carlos/host.env"))) << path;
  }
}

TEST_F(Package, ControlAndMaintainerScriptsEnableNothing) {
  auto r = RunProcess({"/usr/bin/dpkg-deb", "-I", deb_}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Package: carlos"));
  EXPECT_THAT(r.out, HasSubstr("libc6"));
  EXPECT_THAT(r.out, HasSubstr("postinst"));
  TempDir ctl;
  ASSERT_EQ(RunProcess({"/usr/bin/dpkg-deb", "-e", deb_, ctl.path() + "/DEBIAN"}, {}).exit_code, 0);
  std::string postinst = ReadFile(ctl.path() + "/DEBIAN/postinst");
  EXPECT_THAT(postinst, HasSubstr("systemd-sysusers"));
  EXPECT_THAT(postinst, HasSubstr("systemd-tmpfiles --create"));
  // Removal disables what the operator enabled, so no link dangles.
  EXPECT_THAT(ReadFile(ctl.path() + "/DEBIAN/prerm"),
              HasSubstr("disable carlos-system-join.path carlos-edge.service"));
  for (const char* script : {"postinst", "prerm", "postrm"}) {
    std::string text = ReadFile(ctl.path() + "/DEBIAN/" + script);
    ASSERT_FALSE(text.empty()) << script;
    // No command (comments aside) enables, starts or restarts a unit.
    for (const auto& line : Lines(text)) {
      if (line.find_first_not_of(" \t") != std::string::npos &&
          line[line.find_first_not_of(" \t")] == '#') {
        continue;
      }
      EXPECT_FALSE(std::regex_search(line, std::regex("(^|\\s)(enable|start|restart|try-restart|"
                                                      "reload-or-restart)(\\s|$)")))
          << script << ": " << line;
    }
    struct stat st {};
    ASSERT_EQ(::stat((ctl.path() + "/DEBIAN/" + script).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0755u) << script;
  }
}

TEST_F(Package, LintianReportsNoErrors) {
  if (!Have("lintian")) GTEST_SKIP() << "lintian is not installed";
  auto r = RunProcess({"/usr/bin/lintian", "--allow-root", "--tag-display-limit", "0", deb_}, {});
  for (const auto& line : Lines(r.out + r.err)) {
    EXPECT_THAT(line, Not(::testing::StartsWith("E:"))) << line;
  }
}

}  // namespace
}  // namespace carlos::guard_test
