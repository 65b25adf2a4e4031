#include "protocol/label.h"

#include <gtest/gtest.h>

namespace carlos::protocol {
namespace {

HostName Host(std::string name) {
  return [name]() -> StatusOr<std::string> { return name; };
}

GroupLabel Group(std::string label) {
  return [label]() -> StatusOr<std::string> { return label; };
}

// A group label that must not be asked for.
StatusOr<std::string> NoGroup() {
  ADD_FAILURE() << "the group label was read for a box that is not group-referenced";
  return Internal("not group-referenced");
}

TEST(BoxLabel, FromTheEnvironment) {
  EXPECT_EQ(*BoxLabel(MapGetenv({{"CARLOS_BOX_LABEL", " web-1 "}}), NoGroup, Host("ignored")),
            "web-1");
  auto bad = BoxLabel(MapGetenv({{"CARLOS_BOX_LABEL", "Web_1"}}), NoGroup, Host("x"));
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "CARLOS_BOX_LABEL \"Web_1\" is not a box label: it must be 1-63 of a-z, 0-9 and '-'; "
            "fix it in /etc/carlos/host.env");
}

TEST(BoxLabel, FromTheHostName) {
  EXPECT_EQ(*BoxLabel(MapGetenv({}), NoGroup, Host("web-1")), "web-1");
  EXPECT_EQ(*BoxLabel(MapGetenv({}), NoGroup, Host("Web-2.eu.example.com")), "web-2");
  EXPECT_EQ(*BoxLabel(MapGetenv({}), NoGroup, Host(" web-3\n")), "web-3");
  auto bad = BoxLabel(MapGetenv({}), NoGroup, Host("box_1"));
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "the host name \"box_1\" does not give a box label (1-63 of a-z, 0-9 and '-'): set "
            "CARLOS_BOX_LABEL in /etc/carlos/host.env");
}

TEST(BoxLabel, AHostNameFailureIsReportedNotGuessed) {
  auto err = BoxLabel(MapGetenv({}), NoGroup,
                      []() -> StatusOr<std::string> { return Unavailable("gethostname: failed"); });
  EXPECT_EQ(err.status().code(), Code::kUnavailable);
  EXPECT_EQ(err.status().message(),
            "the host name (the box label when CARLOS_BOX_LABEL is not set): gethostname: failed");
}

TEST(BoxLabel, FromTheGroupReferenceWhateverTheOtherSettings) {
  Getenv env = MapGetenv({{"CARLOS_BOX_REFERENCE", "group"}, {"CARLOS_BOX_LABEL", "web-1"}});
  EXPECT_EQ(*BoxLabel(env, Group("web-i-0abc"), Host("web-9")), "web-i-0abc");
  auto bad = BoxLabel(env, Group("Not_A_Label"), Host("web-9"));
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  auto down = BoxLabel(
      env, []() -> StatusOr<std::string> { return Unavailable("IMDS down"); }, Host("web-9"));
  EXPECT_EQ(down.status().code(), Code::kUnavailable);
  EXPECT_EQ(down.status().message(), "the group reference (CARLOS_BOX_REFERENCE=group): IMDS down");
}

TEST(GroupReferenced, OnlyTheWordGroup) {
  EXPECT_TRUE(GroupReferenced(MapGetenv({{"CARLOS_BOX_REFERENCE", "group"}})));
  EXPECT_TRUE(GroupReferenced(MapGetenv({{"CARLOS_BOX_REFERENCE", " group\n"}})));
  EXPECT_FALSE(GroupReferenced(MapGetenv({{"CARLOS_BOX_REFERENCE", "Group"}})));
  EXPECT_FALSE(GroupReferenced(MapGetenv({})));
}

}  // namespace
}  // namespace carlos::protocol
