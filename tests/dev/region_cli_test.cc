// `carlos dev region`'s exit statuses (cli/exit_status.h): bad options are
// usage (2), as CLI11's own errors are.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace carlos::dev {
namespace {

struct CliRun {
  int code = -1;
  std::string out;  // stdout and stderr.
};

CliRun Carlos(const std::string& args) {
  const char* bin = std::getenv("CARLOS_BIN");
  EXPECT_NE(bin, nullptr) << "CARLOS_BIN is not set";
  CliRun r;
  if (!bin) return r;
  FILE* p = ::popen((std::string("'") + bin + "' " + args + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = ::pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(DevRegionCli, ZeroBoxesIsAUsageError) {
  std::string dir =
      std::filesystem::temp_directory_path() / ("carlos-region-cli-" + std::to_string(::getpid()));
  CliRun r = Carlos("dev region --boxes 0 --dir '" + dir + "'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, ::testing::HasSubstr("carlos dev region: --boxes must be 1 to 99, not 0"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace carlos::dev
