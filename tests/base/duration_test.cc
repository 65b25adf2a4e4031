#include "base/duration.h"

#include <gtest/gtest.h>

namespace carlos {
namespace {

using std::chrono::nanoseconds;

int64_t Ns(std::string_view s) {
  auto d = ParseDuration(s);
  EXPECT_TRUE(d.ok()) << s << ": " << d.status().ToString();
  return d.ok() ? d->count() : -1;
}

TEST(ParseDuration, GoForms) {
  EXPECT_EQ(Ns("0"), 0);
  EXPECT_EQ(Ns("-0"), 0);
  EXPECT_EQ(Ns("200ms"), 200'000'000);
  EXPECT_EQ(Ns("15s"), 15'000'000'000);
  EXPECT_EQ(Ns("1m"), 60'000'000'000);
  EXPECT_EQ(Ns("2h45m"), (2 * 3600 + 45 * 60) * 1'000'000'000LL);
  EXPECT_EQ(Ns("1.5h"), 5400'000'000'000LL);
  EXPECT_EQ(Ns("-1.5h"), -5400'000'000'000LL);
  EXPECT_EQ(Ns("+3s"), 3'000'000'000);
  EXPECT_EQ(Ns(".5s"), 500'000'000);
  EXPECT_EQ(Ns("1.s"), 1'000'000'000);
  EXPECT_EQ(Ns("1us"), 1000);
  EXPECT_EQ(Ns("1\u00b5s"), 1000);
  EXPECT_EQ(Ns("1\u03bcs"), 1000);
  EXPECT_EQ(Ns("7ns"), 7);
  EXPECT_EQ(Ns("1h1m1s1ms"), 3661'001'000'000LL);
  EXPECT_EQ(Ns("9223372036854775807ns"), INT64_MAX);
  EXPECT_EQ(Ns("-9223372036854775808ns"), INT64_MIN);
}

TEST(ParseDuration, RefusesWithGoMessages) {
  EXPECT_EQ(ParseDuration("").status().message(), "time: invalid duration \"\"");
  EXPECT_EQ(ParseDuration("1").status().message(), "time: missing unit in duration \"1\"");
  EXPECT_EQ(ParseDuration("1d").status().message(), "time: unknown unit \"d\" in duration \"1d\"");
  EXPECT_EQ(ParseDuration("s").status().message(), "time: invalid duration \"s\"");
  EXPECT_EQ(ParseDuration(".s").status().message(), "time: invalid duration \".s\"");
  EXPECT_EQ(ParseDuration("1s ").status().message(),
            "time: unknown unit \"s \" in duration \"1s \"");
  EXPECT_EQ(ParseDuration("-").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ParseDuration("9223372036854775808ns").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ParseDuration("3000000h").status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace carlos
