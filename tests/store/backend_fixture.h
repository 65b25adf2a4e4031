// The parameterized fixture the conformance and concurrency suites share:
// each test runs once per backend ("dir", "s3" on Ceph RGW, "awslike" on
// tests/harness/aws-s3-server) on a fresh, empty store.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "test_util.h"

namespace carlos::testing {

class BackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "s3") {
      std::string error;
      S3ServerEnv(&error);
      if (!error.empty()) GTEST_SKIP() << error;
    }
    auto b = MakeBackend(GetParam(), tmp_.path());
    ASSERT_TRUE(b.ok()) << b.status().message();
    backend_ = std::move(b).value();
  }

  Store& store() { return *backend_.store; }

  TempDir tmp_;
  Backend backend_;
};

inline std::string BackendName(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace carlos::testing
