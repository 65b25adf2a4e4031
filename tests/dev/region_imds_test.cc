// The region's test-facing IMDS faults (dev/region_imds.h RegionImdsFaults):
// the control file read at a tick, each kind observed by the project's IMDS
// client over a real socket, and each ended when its time is up (FakeClock).
#include "dev/region_imds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "imds/client.h"

namespace carlos::dev {
namespace {

using ::testing::HasSubstr;

class RegionImdsFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/carlos-region-imds-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    layout_.dir = tmpl;
    std::filesystem::create_directories(layout_.imds_dir());
    // A base port from the pid, so that parallel runs rarely meet.
    base_ = 20000 + (::getpid() % 4000) * 4;
    auto imds = StartRegionImds(layout_, 1, base_, "eu-west-1", &clock_);
    ASSERT_TRUE(imds.ok()) << imds.status().ToString();
    imds_ = std::move(*imds);
    faults_ = std::make_unique<RegionImdsFaults>(
        layout_, 1, base_, "eu-west-1", &clock_, &imds_,
        [this](const std::string& line) { logs_.push_back(line); });
  }
  void TearDown() override {
    faults_.reset();
    imds_.reset();
    std::filesystem::remove_all(layout_.dir);
  }
  void Write(const std::string& line) { std::ofstream(layout_.imds_fault()) << line << "\n"; }
  // A fresh client (no cached token) reading the instance id.
  StatusOr<std::string> InstanceId(Milliseconds timeout = Milliseconds(2000)) {
    imds::ImdsOptions o;
    o.endpoint = "http://127.0.0.1:" + std::to_string(BoxImdsPort(base_, 1));
    o.request_timeout = timeout;
    imds::ImdsClient c(o, &clock_);
    return c.InstanceId();
  }

  FakeClock clock_{SystemTime(std::chrono::seconds(1'800'000'000))};
  RegionLayout layout_;
  int base_ = 0;
  std::unique_ptr<ImdsEmulator> imds_;
  std::unique_ptr<RegionImdsFaults> faults_;
  std::vector<std::string> logs_;
};

TEST_F(RegionImdsFaultsTest, FailsFor500ThenAnswersAgain) {
  ASSERT_EQ(*InstanceId(), BoxInstanceId(1));
  Write("500 3000");
  faults_->Tick(clock_.Now());
  EXPECT_FALSE(std::filesystem::exists(layout_.imds_fault()));  // Consumed.
  auto r = InstanceId();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().ToString(), HasSubstr("500"));
  clock_.Advance(Milliseconds(2999));
  faults_->Tick(clock_.Now());
  EXPECT_FALSE(InstanceId().ok());
  clock_.Advance(Milliseconds(1));
  faults_->Tick(clock_.Now());
  EXPECT_EQ(*InstanceId(), BoxInstanceId(1));
  ASSERT_EQ(logs_.size(), 2u);
  EXPECT_THAT(logs_[0], HasSubstr("region: IMDS fault: 500 for 3s"));
  EXPECT_EQ(logs_[1], "region: IMDS fault: 500 ended; IMDS answers again");
}

TEST_F(RegionImdsFaultsTest, RefusesConnectionsThenListensAgainOnTheSamePort) {
  Write("refuse 1000");
  faults_->Tick(clock_.Now());
  EXPECT_EQ(imds_, nullptr);
  auto r = InstanceId();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnavailable) << r.status().ToString();
  clock_.Advance(Milliseconds(1000));
  faults_->Tick(clock_.Now());
  ASSERT_NE(imds_, nullptr);
  EXPECT_EQ(*InstanceId(), BoxInstanceId(1));
}

TEST_F(RegionImdsFaultsTest, HangsLongerThanTheClientWaits) {
  Write("hang 1500");
  faults_->Tick(clock_.Now());
  auto r = InstanceId(Milliseconds(300));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kDeadlineExceeded) << r.status().ToString();
  clock_.Advance(Milliseconds(1500));
  faults_->Tick(clock_.Now());
  EXPECT_EQ(*InstanceId(), BoxInstanceId(1));
}

TEST_F(RegionImdsFaultsTest, ABadLineIsLoggedAndIgnored) {
  for (std::string bad : {"slow 100", "500", "500 0", "500 600001", "hang 1x", ""}) {
    logs_.clear();
    Write(bad);
    faults_->Tick(clock_.Now());
    ASSERT_EQ(logs_.size(), 1u) << bad;
    EXPECT_THAT(logs_[0], HasSubstr("is not \"500|hang|refuse <1-600000 ms>\"; ignored"));
    EXPECT_EQ(*InstanceId(), BoxInstanceId(1)) << bad;
  }
}

}  // namespace
}  // namespace carlos::dev
