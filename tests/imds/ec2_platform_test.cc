// Whether a box is on EC2 (imds/ec2_platform.h), from sysfs directories the
// test writes, and what ReadInstanceIdentity makes of each answer when IMDS
// does not answer: unattested only when the box is certainly off EC2.
#include "imds/ec2_platform.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "base/files.h"
#include "fixture.h"
#include "imds/instance_identity.h"

namespace carlos::imds {
namespace {

using namespace std::chrono_literals;
using carlos::testing::ClientOptions;
using carlos::testing::StartEmulator;
using carlos::testing::TestBox;
using carlos::testing::TestT0;

// A sysfs root holding `files` (paths relative to the root).
class Sysfs {
 public:
  explicit Sysfs(const std::map<std::string, std::string>& files) {
    char tmpl[] = "/tmp/imds-sysfs-XXXXXX";
    root_ = mkdtemp(tmpl);
    for (const auto& [rel, data] : files) {
      std::filesystem::path p = std::filesystem::path(root_) / rel;
      std::filesystem::create_directories(p.parent_path());
      EXPECT_TRUE(WriteFileAtomic(p.string(), data + "\n", 0444).ok());
    }
  }
  ~Sysfs() { std::filesystem::remove_all(root_); }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

const std::map<std::string, std::string> kNitro = {
    {"class/dmi/id/sys_vendor", "Amazon EC2"},
    {"class/dmi/id/board_asset_tag", "i-0af01c0123456789a"}};
const std::map<std::string, std::string> kQemu = {
    {"class/dmi/id/sys_vendor", "QEMU"},
    {"class/dmi/id/product_version", "pc-i440fx-7.2"},
    {"class/dmi/id/product_uuid", "5f0e2b4c-8d1a-4f3e-9b2a-0c1d2e3f4a5b"}};

// A loopback port where nothing listens (bound, then released).
int DeadPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

TEST(DetectEc2Platform, EachMarkAwsDocumentsSaysEc2) {
  struct Case {
    std::map<std::string, std::string> files;
    std::string evidence;
  };
  const std::vector<Case> cases = {
      {{{"class/dmi/id/sys_vendor", "Amazon EC2"}}, "DMI sys_vendor is \"Amazon EC2\""},
      {{{"class/dmi/id/sys_vendor", "Other"}, {"class/dmi/id/board_asset_tag", "i-0af01c0123"}},
       "DMI board_asset_tag is the instance id \"i-0af01c0123\""},
      {{{"class/dmi/id/sys_vendor", "Xen"},
        {"class/dmi/id/product_uuid", "EC2E1916-9099-7CAF-FD21-012345ABCDEF"}},
       "DMI product_uuid \"EC2E1916-9099-7CAF-FD21-012345ABCDEF\" is EC2's"},
      // SMBIOS 2.4's little-endian first group: AWS's own example.
      {{{"class/dmi/id/sys_vendor", "Xen"},
        {"class/dmi/id/product_uuid", "45E12AEC-DCD1-B213-94ED-012345ABCDEF"}},
       "DMI product_uuid \"45E12AEC-DCD1-B213-94ED-012345ABCDEF\" is EC2's"},
      {{{"class/dmi/id/sys_vendor", "Xen"}, {"class/dmi/id/product_version", "4.11.amazon"}},
       "DMI product_version is \"4.11.amazon\""},
      {{{"hypervisor/uuid", "ec2e1916-9099-7caf-fd21-012345abcdef"}},
       "/sys/hypervisor/uuid \"ec2e1916-9099-7caf-fd21-012345abcdef\" is EC2's"},
  };
  for (const Case& c : cases) {
    Sysfs sys(c.files);
    Ec2PlatformFacts f = DetectEc2Platform(sys.root());
    EXPECT_EQ(f.platform, Ec2Platform::kEc2) << c.evidence;
    EXPECT_EQ(f.evidence, c.evidence);
  }
}

TEST(DetectEc2Platform, AnotherVendorWithNoMarkIsNotEc2) {
  Sysfs sys(kQemu);
  Ec2PlatformFacts f = DetectEc2Platform(sys.root());
  EXPECT_EQ(f.platform, Ec2Platform::kNotEc2);
  EXPECT_EQ(f.evidence,
            "DMI sys_vendor is \"QEMU\" and no EC2 mark is present (board_asset_tag, "
            "product_uuid, product_version, /sys/hypervisor/uuid)");
  // A uuid that only contains "ec2" further on is no mark.
  Sysfs other({{"class/dmi/id/sys_vendor", "Dell Inc."},
               {"class/dmi/id/product_uuid", "4c4c4544-0ec2-3510-8052-b4c04f4e4d32"}});
  EXPECT_EQ(DetectEc2Platform(other.root()).platform, Ec2Platform::kNotEc2);
}

TEST(DetectEc2Platform, NoFirmwareOrAnUnreadableXenUuidCannotTell) {
  Sysfs empty(std::map<std::string, std::string>{});
  Ec2PlatformFacts f = DetectEc2Platform(empty.root());
  EXPECT_EQ(f.platform, Ec2Platform::kUnknown);
  EXPECT_EQ(f.evidence, "no DMI sys_vendor under " + empty.root() +
                            "/class/dmi/id/ and no EC2 hypervisor uuid");
  Sysfs blank(std::map<std::string, std::string>{{"class/dmi/id/sys_vendor", ""}});
  EXPECT_EQ(DetectEc2Platform(blank.root()).platform, Ec2Platform::kUnknown);
  // An older EC2 type is a Xen guest; without its uuid it cannot be told.
  Sysfs xen({{"class/dmi/id/sys_vendor", "Xen"}, {"class/dmi/id/product_version", "4.2"}});
  f = DetectEc2Platform(xen.root());
  EXPECT_EQ(f.platform, Ec2Platform::kUnknown);
  EXPECT_EQ(f.evidence, "DMI sys_vendor is \"Xen\" and its product_uuid is unreadable");
}

// IMDS refusing connections: unattested only off EC2.
TEST(ReadInstanceIdentity, ImdsNotAnsweringIsRetriedUnlessOffEc2AtAwsEndpoint) {
  FakeClock clock(TestT0());
  const std::string dead = "http://127.0.0.1:" + std::to_string(DeadPort());

  Sysfs off(kQemu);
  ImdsOptions o = ClientOptions(dead);
  o.sysfs_root = off.root();
  ImdsClient off_client(o, &clock);
  // Off EC2, but the operator named an endpoint: an emulator that may
  // start in a moment, so not answering is retried, never recorded.
  auto id = ReadInstanceIdentity(off_client);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Code::kUnavailable);
  EXPECT_NE(id.status().message().find("CARLOS_IMDS_ENDPOINT names an IMDS for this box (DMI "
                                       "sys_vendor is \"QEMU\""),
            std::string::npos)
      << id.status().message();

  Sysfs on(kNitro);
  o.sysfs_root = on.root();
  ImdsClient on_client(o, &clock);
  auto on_ec2 = ReadInstanceIdentity(on_client);
  ASSERT_FALSE(on_ec2.ok());
  EXPECT_EQ(on_ec2.status().code(), Code::kUnavailable);
  EXPECT_NE(on_ec2.status().message().find(
                "this box is on EC2 (DMI sys_vendor is \"Amazon EC2\"), so it is not recorded "
                "as unattested: asking again"),
            std::string::npos)
      << on_ec2.status().message();

  Sysfs none(std::map<std::string, std::string>{});
  o.sysfs_root = none.root();
  ImdsClient unknown_client(o, &clock);
  auto unknown = ReadInstanceIdentity(unknown_client);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Code::kUnavailable);
  EXPECT_NE(unknown.status().message().find("whether this box is on EC2 cannot be told"),
            std::string::npos)
      << unknown.status().message();
}

// IMDS slower than the client's timeout (the emulator's hang): never
// unattested on EC2; attested as soon as it answers in time.
TEST(ReadInstanceIdentity, SlowImdsOnEc2IsAnErrorThenAttested) {
  FakeClock clock(TestT0());
  auto box = TestBox();
  box.hang_first = 1;
  box.hang_delay = 1500ms;
  auto emu = StartEmulator(&clock, {box});
  ASSERT_NE(emu, nullptr);
  Sysfs on(kNitro);
  ImdsOptions o = ClientOptions(emu->endpoint(0));
  o.request_timeout = 200ms;
  o.sysfs_root = on.root();
  ImdsClient c(o, &clock);
  auto slow = ReadInstanceIdentity(c);
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().code(), Code::kDeadlineExceeded);
  EXPECT_NE(slow.status().message().find("did not answer within 200ms"), std::string::npos)
      << slow.status().message();
  auto again = ReadInstanceIdentity(c);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->attested());
  EXPECT_EQ(again->instance_id, "i-0de000000000000000");
}

// Off EC2 by its marks, with AWS's own endpoint: unattested at once, and
// nothing is sent to 169.254.169.254.
TEST(ReadInstanceIdentity, OffEc2WithAwsEndpointSendsNothing) {
  FakeClock clock(TestT0());
  Sysfs off(kQemu);
  ImdsOptions o;  // AWS's endpoint.
  o.sysfs_root = off.root();
  ImdsClient c(o, &clock);
  int exchanges = 0;
  c.SetObserver([&](std::string_view, long, const Status&, double) { ++exchanges; });
  auto id = ReadInstanceIdentity(c);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(id->unattested, Unattested::kNotOnEc2);
  EXPECT_EQ(id->unattested_reason,
            "not on EC2: DMI sys_vendor is \"QEMU\" and no EC2 mark is present (board_asset_tag, "
            "product_uuid, product_version, /sys/hypervisor/uuid), so there is no IMDS at "
            "http://169.254.169.254");
  EXPECT_EQ(exchanges, 0);
}

// Off EC2 by its marks, with an emulator that answers: attested.
TEST(ReadInstanceIdentity, OffEc2WithAnAnsweringEmulatorIsAttested) {
  FakeClock clock(TestT0());
  auto emu = StartEmulator(&clock);
  ASSERT_NE(emu, nullptr);
  Sysfs off(kQemu);
  ImdsOptions o = ClientOptions(emu->endpoint(0));
  o.sysfs_root = off.root();
  ImdsClient c(o, &clock);
  auto id = ReadInstanceIdentity(c);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_TRUE(id->attested());
}

TEST(ImdsOptionsFromEnv, SysfsRootFromTheEnvironment) {
  EXPECT_EQ(ImdsOptionsFromEnv(MapGetenv({})).sysfs_root, "/sys");
  EXPECT_EQ(ImdsOptionsFromEnv(MapGetenv({{"CARLOS_SYSFS_ROOT", "/tmp/x"}})).sysfs_root, "/tmp/x");
}

}  // namespace
}  // namespace carlos::imds
