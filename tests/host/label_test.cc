#include "host/label.h"

#include <gtest/gtest.h>

namespace carlos {
namespace {

Hostname Host(std::string name) {
  return [name]() -> StatusOr<std::string> { return name; };
}

TEST(BoxLabel, FromTheEnvironment) {
  EXPECT_EQ(*BoxLabel(MapGetenv({{"CARLOS_BOX_LABEL", " web-1 "}}), Host("ignored")), "web-1");
  auto bad = BoxLabel(MapGetenv({{"CARLOS_BOX_LABEL", "Web_1"}}), Host("x"));
  EXPECT_EQ(bad.status().message(),
            "CARLOS_BOX_LABEL \"Web_1\" is not a box label: it must be 1-63 of a-z, 0-9 and '-'");
}

TEST(BoxLabel, FromTheHostName) {
  EXPECT_EQ(*BoxLabel(MapGetenv({}), Host("web-1")), "web-1");
  EXPECT_EQ(*BoxLabel(MapGetenv({}), Host("Web-2.eu.example.com")), "web-2");
  auto bad = BoxLabel(MapGetenv({}), Host("box_1"));
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("set CARLOS_BOX_LABEL"), std::string::npos);
  auto err = BoxLabel(MapGetenv({}),
                      []() -> StatusOr<std::string> { return Unavailable("gethostname: failed"); });
  EXPECT_EQ(err.status().message(), "gethostname: failed");
}

}  // namespace
}  // namespace carlos
