// `carlos dev region`'s exit statuses (cli/exit_status.h): bad options are
// usage (2), as CLI11's own errors are.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
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

// A previous run's process still listening on a port of the region: the
// region refuses to start, naming the port, what it is for and what holds
// it (here this test process), instead of reporting that process's health
// as its own box's.
TEST(DevRegionCli, RefusesToStartWhileAPortIsHeld) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  int port = ntohs(addr.sin_port);
  std::string dir = std::filesystem::temp_directory_path() /
                    ("carlos-region-ports-" + std::to_string(::getpid()));
  CliRun r = Carlos("dev region --boxes 1 --table off --base-port " + std::to_string(port - 1) +
                    " --dir '" + dir + "'");
  ::close(fd);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, ::testing::HasSubstr("carlos dev region: 127.0.0.1:" + std::to_string(port) +
                                          " (box-1's health check) is held by pid " +
                                          std::to_string(::getpid()) + " ("));
  EXPECT_THAT(r.out,
              ::testing::HasSubstr("a process of a previous run? stop it (kill " +
                                   std::to_string(::getpid()) + "), or use another --base-port"));
  // Nothing was started: no box data dir, no agent.
  EXPECT_FALSE(std::filesystem::exists(dir + "/boxes/box-1/box.key"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace carlos::dev
