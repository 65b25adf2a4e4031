// The emulator's --config file.
#include <gtest/gtest.h>

#include "dev/imds_emulator_config.h"

namespace carlos::dev {
namespace {

EmulatedBox Defaults(size_t i) {
  EmulatedBox b;
  b.instance_id = "i-default" + std::to_string(i);
  b.tags = {{"carlos:group", "flag-group"}};
  return b;
}

TEST(EmulatorConfig, FieldsOverrideTheFlagDefaults) {
  auto boxes = ParseEmulatorConfig(R"({"boxes": [
    {"instance_id": "i-0aaa", "region": "eu-west-1", "tags": {"aws:autoscaling:groupName": "asg"},
     "tags_enabled": false, "fail_first": 2, "hang_first": 1, "hang_delay_ms": 1500,
     "not_found": ["/latest/meta-data/instance-id"], "allow_imdsv1": true,
     "credentials_lifetime_seconds": 900, "role": ""},
    {}
  ]})",
                                   Defaults);
  ASSERT_TRUE(boxes.ok()) << boxes.status().ToString();
  ASSERT_EQ(boxes->size(), 2u);
  const EmulatedBox& a = (*boxes)[0];
  EXPECT_EQ(a.instance_id, "i-0aaa");
  EXPECT_EQ(a.region, "eu-west-1");
  EXPECT_EQ(a.tags, (std::map<std::string, std::string>{{"aws:autoscaling:groupName", "asg"}}));
  EXPECT_FALSE(a.tags_enabled);
  EXPECT_EQ(a.fail_first, 2);
  EXPECT_EQ(a.hang_first, 1);
  EXPECT_EQ(a.hang_delay, Milliseconds(1500));
  EXPECT_EQ(a.not_found, (std::set<std::string>{"/latest/meta-data/instance-id"}));
  EXPECT_TRUE(a.allow_imdsv1);
  EXPECT_EQ(a.credentials_lifetime, Seconds(900));
  EXPECT_EQ(a.role, "");
  const EmulatedBox& b = (*boxes)[1];
  EXPECT_EQ(b.instance_id, "i-default1");
  EXPECT_EQ(b.tags.at("carlos:group"), "flag-group");
}

TEST(EmulatorConfig, RefusesWhatItDoesNotUnderstand) {
  struct Case {
    const char* json;
    const char* says;
  } cases[] = {
      {"not json", "not valid JSON"},
      {"{}", "non-empty \"boxes\" array"},
      {R"({"boxes": []})", "non-empty \"boxes\" array"},
      {R"({"boxes": [{}], "extra": 1})", "unknown field \"extra\""},
      {R"({"boxes": [{"instanceid": "x"}]})", "boxes[0]: unknown field \"instanceid\""},
      {R"({"boxes": [{}, {"fail_first": -1}]})", "boxes[1].fail_first must be a non-negative"},
      {R"({"boxes": [{"tags": {"a": 1}}]})", "boxes[0].tags must be an object of strings"},
      {R"({"boxes": [{"region": 5}]})", "boxes[0].region must be a string"},
  };
  for (const auto& c : cases) {
    auto r = ParseEmulatorConfig(c.json, Defaults);
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.says), std::string::npos)
        << c.json << " -> " << r.status().message();
  }
}

}  // namespace
}  // namespace carlos::dev
