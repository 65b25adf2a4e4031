#include "identity/canonical.h"

#include <gtest/gtest.h>

#include "identity/encoding.h"
#include "identity/refusal.h"

namespace carlos::identity {
namespace {

std::string Canon(const std::string& json_text) {
  StatusOr<std::string> out = Canonicalize(nlohmann::json::parse(json_text));
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : "";
}

// RFC 8785 §3.2.3's sorting example: the emoji (U+1F600, UTF-16 D83D DE00)
// sorts before U+FB33 by UTF-16 code units although it is after it by code
// point and by UTF-8 bytes.
TEST(Canonicalize, SortsMembersByUtf16CodeUnitsAsRfc8785Example) {
  std::string in = R"({
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis"
  })";
  std::string want =
      "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\xc2\x80\":\"Control\",\"\xc3\xb6\":\"Latin "
      "Small Letter O With Diaeresis\",\"\xe2\x82\xac\":\"Euro "
      "Sign\",\"\xf0\x9f\x98\x80\":\"Emoji: "
      "Grinning Face\",\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}";
  EXPECT_EQ(Canon(in), want);
}

// RFC 8785 §3.2.2.2's string example.
TEST(Canonicalize, EscapesStringsAsRfc8785Example) {
  std::string in = R"(["\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/"])";
  EXPECT_EQ(Canon(in), "[\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"]");
}

TEST(Canonicalize, WritesLiteralsIntegersAndNesting) {
  EXPECT_EQ(Canon(R"( { "b" : [ true , false , null ] , "a" : { "z" : -12 , "y" : 0 } } )"),
            R"({"a":{"y":0,"z":-12},"b":[true,false,null]})");
  EXPECT_EQ(Canon("9007199254740991"), "9007199254740991");
  EXPECT_EQ(Canon("-9007199254740991"), "-9007199254740991");
  EXPECT_EQ(Canon("\"\\b\\f\\t\\u0001\\u007f\""), "\"\\b\\f\\t\\u0001\x7f\"");
}

TEST(Canonicalize, RefusesFloatsHugeIntegersAndDeepNesting) {
  EXPECT_EQ(Canonicalize(nlohmann::json::parse("1.5")).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Canonicalize(nlohmann::json::parse("1e3")).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Canonicalize(nlohmann::json::parse("9007199254740992")).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(Canonicalize(nlohmann::json::parse("-9007199254740992")).status().code(),
            Code::kInvalidArgument);
  std::string deep(kMaxJsonDepth + 1, '[');
  deep += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_EQ(Canonicalize(nlohmann::json::parse(deep)).status().code(), Code::kInvalidArgument);
  std::string ok(kMaxJsonDepth, '[');
  ok += std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(Canonicalize(nlohmann::json::parse(ok)).ok());
}

TEST(Canonicalize, RefusesInvalidUtf8BuiltInCode) {
  nlohmann::json bad = std::string("\xc3\x28");
  EXPECT_EQ(Canonicalize(bad).status().code(), Code::kInvalidArgument);
  nlohmann::json surrogate = std::string("\xed\xa0\x80");  // U+D800 encoded: not UTF-8.
  EXPECT_EQ(Canonicalize(surrogate).status().code(), Code::kInvalidArgument);
  nlohmann::json overlong = std::string("\xc0\xaf");
  EXPECT_EQ(Canonicalize(overlong).status().code(), Code::kInvalidArgument);
}

TEST(ParseCanonical, AcceptsExactlyTheCanonicalBytes) {
  auto v = ParseCanonical(R"({"a":1,"b":"x"})", "t");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)["b"], "x");
}

TEST(ParseCanonical, RefusesEveryOtherSpellingAsNotCanonical) {
  for (const char* in : {
           R"({"b":1,"a":2})",  // Member order.
           R"({"a": 1})",       // White space.
           "{\"a\":1}\n",       // A trailing newline.
           R"({"a":1,"a":1})",  // A duplicate member.
           R"(["\u0061"])",     // An unnecessary escape.
           R"(["\/"])",         // An escaped slash.
           R"([-0])",           // Negative zero.
           R"(["\u001F"])",     // Upper-case hex in an escape.
       }) {
    auto v = ParseCanonical(in, "the test input");
    EXPECT_EQ(RefusalOf(v.status()), Refusal::kNotCanonical) << in << ": " << v.status().ToString();
  }
}

TEST(ParseCanonical, RefusesNonJsonAndFloatsAsMalformed) {
  for (std::string in :
       {std::string(""), std::string("{"), std::string("[1,]"), std::string("[1.0]"),
        std::string("[\"\xff\"]"), std::string("[1e2]"), std::string("{\"a\":1}x")}) {
    auto v = ParseCanonical(in, "the test input");
    EXPECT_EQ(RefusalOf(v.status()), Refusal::kMalformed) << in << ": " << v.status().ToString();
    EXPECT_NE(v.status().message().find("the test input is refused: malformed"), std::string::npos);
  }
}

TEST(Encoding, Base64IsStrictAndCanonical) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(*Base64Decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(*Base64Decode("Zg=="), "f");
  EXPECT_FALSE(Base64Decode("Zh==").ok());  // Non-zero trailing bits.
  EXPECT_FALSE(Base64Decode("Zm9=").ok());
  EXPECT_FALSE(Base64Decode("Zg").ok());  // Missing padding.
  EXPECT_FALSE(Base64Decode("Zg=\n").ok());
  EXPECT_FALSE(Base64Decode("Z===").ok());
  EXPECT_FALSE(Base64Decode("Zg==Zg==").ok());  // Padding inside.
  EXPECT_FALSE(Base64Decode("Zm-v").ok());
  EXPECT_EQ(*Base64DecodeWrapped("Zm9v\nYmFy\n"), "foobar");
}

TEST(Encoding, DigestsAreSha256Hex) {
  EXPECT_EQ(Sha256Digest("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_TRUE(IsDigest(Sha256Digest("")));
  EXPECT_FALSE(IsDigest("sha256:BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"));
  EXPECT_FALSE(IsDigest("sha256:ba78"));
  EXPECT_FALSE(IsDigest("sha1:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
}

TEST(Refusal, TravelsAsDataEvenWhenAnnotated) {
  Status st =
      Refuse(Refusal::kBoundToAnotherDigest, "the invitation for web-1", "it is bound to x");
  EXPECT_EQ(st.code(), Code::kCorrupt);
  EXPECT_EQ(st.message(),
            "the invitation for web-1 is refused: bound to another digest: it is bound to x");
  EXPECT_EQ(RefusalOf(st), Refusal::kBoundToAnotherDigest);
  EXPECT_EQ(RefusalOf(st.Annotate("control/invitations/web-1.json")),
            Refusal::kBoundToAnotherDigest);
  const Status annotated = st.Annotate("control/invitations/web-1.json");
  const RefusalInfo* info = RefusalInfoOf(annotated);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->what, "the invitation for web-1");
  EXPECT_EQ(info->detail, "it is bound to x");
  // A message that only reads like a refusal is not one: nothing is parsed.
  EXPECT_EQ(RefusalOf(Corrupt("x is refused: expired: at noon")), std::nullopt);
  EXPECT_EQ(RefusalOf(Corrupt("something else")), std::nullopt);
  EXPECT_EQ(RefusalOf(OkStatus()), std::nullopt);
}

}  // namespace
}  // namespace carlos::identity
