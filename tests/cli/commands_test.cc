// The `carlos` command's own behaviour (src/cli/main.cc, args.cc): unknown
// commands, groups alone, --version, help COMMAND, CLI11's errors prefixed,
// exit statuses (cli/exit_status.h). Runs the built binary ($CARLOS_BIN).
#include "cli/commands.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "protocol/version.h"

namespace carlos::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

struct CliRun {
  int code = -1;
  std::string out, err;
};

std::string Slurp(const std::string& path) {
  std::string s;
  if (FILE* f = std::fopen(path.c_str(), "r")) {
    std::array<char, 4096> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) s.append(buf.data(), n);
    std::fclose(f);
  }
  return s;
}

CliRun Carlos(const std::string& args) {
  const char* bin = std::getenv("CARLOS_BIN");
  EXPECT_NE(bin, nullptr) << "CARLOS_BIN is not set";
  CliRun r;
  if (!bin) return r;
  std::string err = "/tmp/carlos-cli-test-" + std::to_string(::getpid()) + ".err";
  FILE* p = ::popen((std::string("'") + bin + "' " + args + " 2>" + err).c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = ::pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.err = Slurp(err);
  ::unlink(err.c_str());
  return r;
}

TEST(NearestName, EditDistanceOrTheOnlyPrefix) {
  std::vector<std::string> boxes = {"keygen", "auto-enroll", "invite", "enroll", "retire", "list"};
  EXPECT_EQ(NearestName("lst", boxes), "list");
  EXPECT_EQ(NearestName("retier", boxes), "retire");
  EXPECT_EQ(NearestName("auto", boxes), "auto-enroll");  // The only prefix.
  EXPECT_EQ(NearestName("zzzzzz", boxes), "");
  EXPECT_EQ(NearestName("x", boxes), "");  // Distance 1 is not less than 1.
}

// Every -h text points only at what the package installs
// (/usr/share/doc/carlos/{operator,enroll,DESIGN}.md: packaging/CPack.cmake),
// never at the source tree, and options show what they take.
TEST(Carlos, HelpPointsOnlyAtShippedDocsAndShowsTypes) {
  CliRun r = Carlos("--help-all");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("docs/"), std::string::npos);
  EXPECT_EQ(r.out.find("src/"), std::string::npos);
  EXPECT_EQ(r.out.find(".h)"), std::string::npos);
  for (size_t at = r.out.find("/usr/share/doc/carlos/"); at != std::string::npos;
       at = r.out.find("/usr/share/doc/carlos/", at + 1)) {
    std::string doc = r.out.substr(at + 22, r.out.find_first_of(" ,;)\n\"", at + 22) - at - 22);
    EXPECT_TRUE(doc == "operator.md" || doc == "enroll.md" || doc == "DESIGN.md") << doc;
  }
  // Every command that talks to the store takes --timeout; a bad one is usage.
  for (const char* cmd : {"store get", "store put", "store ls", "store rm", "boxes list",
                          "boxes invite", "boxes enroll", "boxes retire", "boxes auto-enroll",
                          "boxes rm", "boxes prune", "system join"}) {
    r = Carlos(std::string(cmd) + " -h");
    EXPECT_THAT(r.out, ::testing::ContainsRegex("--timeout DURATION")) << cmd;
  }
  r = Carlos("system join --timeout soon");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--timeout"));
  r = Carlos("boxes auto-enroll -h");
  EXPECT_THAT(r.out, ::testing::ContainsRegex("--every DURATION"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("--workers INT"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("--timeout DURATION"));
}

TEST(Carlos, AnUnknownSubcommandIsNamedWithTheNearest) {
  CliRun r = Carlos("boxes lst");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "carlos boxes: unknown command \"lst\"; did you mean \"list\"? (carlos boxes -h lists "
            "them)\n");
  r = Carlos("frobnicate");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith("carlos: unknown command \"frobnicate\" (carlos -h lists them)"));
}

TEST(Carlos, AGroupAloneListsItsSubcommands) {
  CliRun r = Carlos("boxes");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.out, HasSubstr("list"));
  EXPECT_THAT(r.out, HasSubstr("retire"));
  EXPECT_THAT(r.out, HasSubstr("keygen"));
  EXPECT_THAT(r.err, IsEmpty());
}

TEST(Carlos, VersionFlagAndHelpOfACommand) {
  CliRun r = Carlos("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "carlos " + protocol::Release() + " " + protocol::Platform() + "\n");
  r = Carlos("help boxes");
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("auto-enroll"));
  r = Carlos("help boxes list");
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("--region"));
  r = Carlos("help boxes lst");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("did you mean \"list\""));
}

TEST(Carlos, CliElevensErrorsNameTheCommand) {
  CliRun r = Carlos("store get");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith("carlos store get: "));
  EXPECT_THAT(r.err, HasSubstr("Run 'carlos store get -h' for its options."));
}

}  // namespace
}  // namespace carlos::cli
