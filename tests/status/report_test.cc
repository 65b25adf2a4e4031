#include "status/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "../host/mem_store.h"
#include "base/files.h"
#include "identity/store_keys.h"
#include "support/documents.h"

namespace carlos::status {
namespace {

using namespace carlos::testing;  // NOLINT

Probes TestProbes() {
  return Probes{"web-1", "eu-1", "m-1", "i-0abc", "0.1.0", "linux-amd64", "stable"};
}

TEST(Report, BuildCarriesTheProbesAndTheGuard) {
  identity::GuardFacts g;
  g.installed = true;
  g.armed = true;
  g.guard_digest = "sha256:" + std::string(64, 'a');
  identity::StatusReport r = BuildReport(TestProbes(), kT0, false, "guard-ready", g);
  EXPECT_EQ(r.box, "web-1");
  EXPECT_EQ(r.region, "eu-1");
  EXPECT_EQ(r.machine_id, "m-1");
  EXPECT_EQ(r.instance_id, "i-0abc");
  EXPECT_EQ(r.system_channel, "stable");
  EXPECT_EQ(r.reported_at, kT0);
  EXPECT_FALSE(r.hosting);
  EXPECT_EQ(r.stage, "guard-ready");
  ASSERT_TRUE(r.guard.has_value());
  EXPECT_TRUE(r.guard->armed);
}

TEST(Report, PublishSignsWithTheBoxKeyAndReplaces) {
  MemStore store;
  identity::PrivateKey key = Key('b');
  ASSERT_TRUE(
      PublishReport(store, key, BuildReport(TestProbes(), kT0, false, "invited", std::nullopt))
          .ok());
  ASSERT_TRUE(
      PublishReport(store, key,
                    BuildReport(TestProbes(), kT0 + Seconds(30), true, "hosting", std::nullopt))
          .ok());
  auto parsed = identity::ParseStatusReport(store.objects.at("status/boxes/web-1.json"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(identity::VerifyStatusReport(*parsed, key.public_key(), "web-1").ok());
  EXPECT_TRUE(parsed->doc.hosting);
  EXPECT_EQ(parsed->doc.reported_at, kT0 + Seconds(30));
}

TEST(Report, PublishErrorsNameTheKey) {
  MemStore store;
  store.put_error = Unavailable("store down");
  Status st = PublishReport(store, Key('b'),
                            BuildReport(TestProbes(), kT0, false, "invited", std::nullopt));
  EXPECT_EQ(st.message(), "publish status/boxes/web-1.json: store down");
  Probes bad = TestProbes();
  bad.region = "Not A Label";
  st = PublishReport(store, Key('b'), BuildReport(bad, kT0, false, "invited", std::nullopt));
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
}

TEST(Report, MachineId) {
  char tmpl[] = "/tmp/machineid-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  ASSERT_TRUE(WriteFileAtomic(dir + "/id", "  0123abcd \nrest\n", 0644).ok());
  EXPECT_EQ(*ReadMachineId(dir + "/id"), "0123abcd");
  ASSERT_TRUE(WriteFileAtomic(dir + "/empty", "\n", 0644).ok());
  EXPECT_EQ(ReadMachineId(dir + "/empty").status().code(), Code::kCorrupt);
  ASSERT_TRUE(WriteFileAtomic(dir + "/long", std::string(129, 'a'), 0644).ok());
  EXPECT_EQ(ReadMachineId(dir + "/long").status().code(), Code::kCorrupt);
  EXPECT_EQ(ReadMachineId(dir + "/absent").status().code(), Code::kNotFound);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(MachineIdPath(MapGetenv({})), "/etc/machine-id");
  EXPECT_EQ(MachineIdPath(MapGetenv({{"CARLOS_MACHINE_ID_FILE", "/x/id"}})), "/x/id");
}

}  // namespace
}  // namespace carlos::status
