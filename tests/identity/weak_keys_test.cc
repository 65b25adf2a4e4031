// Keys and signatures with no private key behind them (keys.h): the eight
// small-order points, non-canonical encodings, points with a small-order
// component, S >= L and a small-order R, each refused with its reason, and a
// forged identity record, status report and edges file built from them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sodium.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fixtures.h"
#include "identity/canonical.h"
#include "identity/document.h"
#include "identity/encoding.h"
#include "identity/refusal.h"

namespace carlos::identity {
namespace {

using ::testing::HasSubstr;
using testing::Must;

std::string Unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i < h.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string KeyText(const std::string& raw) { return "ed25519:" + Base64Encode(raw); }

// The canonical encodings of the eight points of order 1, 2, 4 and 8
// (computed from the curve equation of RFC 8032 §5.1; each P has 8P = 0).
const std::vector<std::string>& SmallOrderPoints() {
  static const std::vector<std::string> points = {
      Unhex("0100000000000000000000000000000000000000000000000000000000000000"),  // identity
      Unhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),  // order 2
      Unhex("0000000000000000000000000000000000000000000000000000000000000000"),  // order 4
      Unhex("0000000000000000000000000000000000000000000000000000000000000080"),  // order 4
      Unhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),  // order 8
      Unhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"),  // order 8
      Unhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),  // order 8
      Unhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"),  // order 8
  };
  return points;
}

// Little-endian 256-bit addition (no overflow for the values used here).
std::string AddLe(const std::string& a, const std::string& b) {
  std::string out(32, '\0');
  unsigned carry = 0;
  for (int i = 0; i < 32; ++i) {
    unsigned v = static_cast<unsigned char>(a[i]) + static_cast<unsigned char>(b[i]) + carry;
    out[i] = static_cast<char>(v & 0xff);
    carry = v >> 8;
  }
  return out;
}

const std::string kGroupOrderLe =
    Unhex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");

TEST(Ed25519Keys, EachOfTheEightSmallOrderPointsIsRefused) {
  ASSERT_EQ(sodium_init() >= 0, true);
  for (const std::string& p : SmallOrderPoints()) {
    // libsodium's own arithmetic says 8P is the identity: the table is right.
    std::string q = p;
    for (int i = 0; i < 3; ++i) {
      std::string twice(32, '\0');
      ASSERT_EQ(crypto_core_ed25519_add(reinterpret_cast<unsigned char*>(twice.data()),
                                        reinterpret_cast<const unsigned char*>(q.data()),
                                        reinterpret_cast<const unsigned char*>(q.data())),
                0);
      q = twice;
    }
    EXPECT_EQ(q, SmallOrderPoints()[0]) << Base64Encode(p);
    EXPECT_EQ(PublicKeyDefect(p), KeyDefect::kSmallOrder) << Base64Encode(p);
    auto raw = PublicKey::FromRaw(p);
    EXPECT_EQ(raw.status().code(), Code::kInvalidArgument);
    auto text = PublicKey::Parse(KeyText(p));
    EXPECT_EQ(text.status().code(), Code::kInvalidArgument);
    if (p != std::string(32, '\0')) {  // All zero has its own message.
      EXPECT_THAT(text.status().message(), HasSubstr("a small-order point")) << KeyText(p);
    }
  }
}

TEST(Ed25519Keys, NonCanonicalEncodingsAreRefused) {
  std::vector<std::string> bad;
  // y = p + k for k = 0..18 (every y >= p that fits in 255 bits), both signs.
  std::string p = Unhex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  for (int k = 0; k <= 18; ++k) {
    std::string y = p;
    y[0] = static_cast<char>(0xed + k);
    bad.push_back(y);
    y[31] = static_cast<char>(0xff);
    bad.push_back(y);
  }
  // x = 0 with the sign bit set: y = 1 and y = p - 1.
  bad.push_back(Unhex("0100000000000000000000000000000000000000000000000000000000000080"));
  bad.push_back(Unhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"));
  for (const std::string& b : bad) {
    EXPECT_EQ(PublicKeyDefect(b), KeyDefect::kNotCanonical) << Base64Encode(b);
    auto key = PublicKey::Parse(KeyText(b));
    EXPECT_EQ(key.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(key.status().message(), HasSubstr("not a canonical encoding")) << KeyText(b);
  }
  EXPECT_EQ(PublicKeyDefect(std::string(31, '\1')), KeyDefect::kNotCanonical);  // 31 bytes
}

TEST(Ed25519Keys, OffCurveAndMixedOrderPointsAreRefused) {
  // y = 2: (y^2 - 1) / (d y^2 + 1) is not a square, so no x exists.
  std::string off = Unhex("0200000000000000000000000000000000000000000000000000000000000000");
  EXPECT_EQ(PublicKeyDefect(off), KeyDefect::kNotPrimeOrderPoint);
  EXPECT_THAT(PublicKey::Parse(KeyText(off)).status().message(),
              HasSubstr("not a point of the prime-order subgroup"));
  // An honest key plus a point of order 8: on the curve, not in the
  // prime-order subgroup; a signature made for the honest key could be
  // replayed against it by anyone.
  std::string honest = testing::BoxKey().public_key().raw();
  for (size_t i = 4; i < SmallOrderPoints().size(); ++i) {
    std::string mixed(32, '\0');
    ASSERT_EQ(crypto_core_ed25519_add(
                  reinterpret_cast<unsigned char*>(mixed.data()),
                  reinterpret_cast<const unsigned char*>(honest.data()),
                  reinterpret_cast<const unsigned char*>(SmallOrderPoints()[i].data())),
              0);
    ASSERT_NE(mixed, honest);
    EXPECT_EQ(PublicKeyDefect(mixed), KeyDefect::kNotPrimeOrderPoint) << Base64Encode(mixed);
    EXPECT_EQ(PublicKey::FromRaw(mixed).status().code(), Code::kInvalidArgument);
  }
}

TEST(Ed25519Keys, GeneratedAndRfc8032KeysAreAccepted) {
  for (int i = 0; i < 64; ++i) {
    PrivateKey k = Must(PrivateKey::Generate());
    EXPECT_EQ(PublicKeyDefect(k.public_key().raw()), std::nullopt);
    EXPECT_TRUE(Must(PublicKey::Parse(k.public_key().ToString())) == k.public_key());
  }
  std::string rfc = Unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  EXPECT_EQ(PublicKeyDefect(rfc), std::nullopt);
}

TEST(Ed25519Signatures, SAtOrAboveTheGroupOrderIsRefused) {
  PrivateKey key = testing::BoxKey();
  std::string sig = Must(key.Sign("message"));
  ASSERT_EQ(key.public_key().CheckSignature("message", sig), std::nullopt);
  // S + L is the same scalar mod L: the equation still holds, so only the
  // S < L rule (RFC 8032 §5.1.7) refuses it.
  std::string malleated = sig.substr(0, 32) + AddLe(sig.substr(32), kGroupOrderLe);
  EXPECT_EQ(key.public_key().CheckSignature("message", malleated), SignatureDefect::kSNotCanonical);
  Status st = key.public_key().Verify("message", malleated);
  EXPECT_EQ(st.code(), Code::kCorrupt);
  EXPECT_THAT(st.message(), HasSubstr("S is not below the group order L"));
  // S = L exactly, and S with the top bits set.
  EXPECT_EQ(key.public_key().CheckSignature("message", sig.substr(0, 32) + kGroupOrderLe),
            SignatureDefect::kSNotCanonical);
  std::string high = sig;
  high[63] = static_cast<char>(high[63] | 0xe0);
  EXPECT_EQ(key.public_key().CheckSignature("message", high), SignatureDefect::kSNotCanonical);
  EXPECT_EQ(key.public_key().CheckSignature("message", sig.substr(0, 63)),
            SignatureDefect::kWrongLength);
  std::string bent = sig;
  bent[5] ^= 1;
  EXPECT_EQ(key.public_key().CheckSignature("message", bent), SignatureDefect::kDoesNotVerify);
}

TEST(Ed25519Signatures, SmallOrderRIsRefused) {
  PublicKey key = testing::BoxKey().public_key();
  for (const std::string& r : SmallOrderPoints()) {
    for (std::string s : {std::string(32, '\0'), std::string("\1") + std::string(31, '\0')}) {
      EXPECT_EQ(key.CheckSignature("message", r + s), SignatureDefect::kRSmallOrder)
          << Base64Encode(r);
    }
  }
  EXPECT_THAT(key.Verify("m", SmallOrderPoints()[0] + std::string(32, '\0')).message(),
              HasSubstr("R is a small-order point"));
}

// The case as found: a record whose key and signer are the identity point,
// "signed" with 0x01 followed by 63 zero bytes. Under RFC 8032's equation
// alone ([S]B = R + [k]A with A = R = identity, S = 0) it verifies for any
// message.
constexpr const char* kIdentityPointKey = "ed25519:AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

std::string ForgedSignature() { return std::string("\1") + std::string(63, '\0'); }

std::string Forge(nlohmann::json o) {
  o["signer"] = kIdentityPointKey;
  o["signature"] = Base64Encode(ForgedSignature());
  return Must(Canonicalize(o));
}

TEST(Ed25519Forgery, IdentityPointRecordIsRefused) {
  IdentityRecord r = testing::SampleRecord(/*attested=*/false);
  // Start from a genuine record and swap in the identity point.
  nlohmann::json o = nlohmann::json::parse(Must(SignIdentityRecord(r, testing::BoxKey())));
  o.erase("signature");
  o.erase("signer");
  o["public_key"] = kIdentityPointKey;
  auto parsed = ParseIdentityRecord(Forge(o));
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(RefusalOf(parsed.status()), Refusal::kMalformed);
  EXPECT_THAT(parsed.status().message(), HasSubstr("a small-order point"));

  EXPECT_EQ(PublicKey::Parse(kIdentityPointKey).status().code(), Code::kInvalidArgument);
  // And the forged signature under an honest key names R.
  EXPECT_EQ(testing::BoxKey().public_key().CheckSignature("anything", ForgedSignature()),
            SignatureDefect::kRSmallOrder);
}

TEST(Ed25519Forgery, IdentityPointReportAndEdgesAreRefused) {
  nlohmann::json report =
      nlohmann::json::parse(Must(SignStatusReport(testing::SampleReport(true), testing::BoxKey())));
  report.erase("signature");
  report.erase("signer");
  auto rep = ParseStatusReport(Forge(report));
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(RefusalOf(rep.status()), Refusal::kMalformed);
  EXPECT_THAT(rep.status().message(), HasSubstr("\"signer\" is not a valid public key"));

  nlohmann::json edges =
      nlohmann::json::parse(Must(SignEdgesFile(testing::SampleEdges(), testing::BoxKey())));
  edges.erase("signature");
  edges.erase("signer");
  auto e = ParseEdgesFile(Forge(edges));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(RefusalOf(e.status()), Refusal::kMalformed);
  EXPECT_THAT(e.status().message(), HasSubstr("a small-order point"));
}

TEST(Ed25519Forgery, MalleatedSignatureOnADocumentIsBadSignature) {
  std::string bytes = Must(SignEdgesFile(testing::SampleEdges(), testing::BoxKey()));
  nlohmann::json o = nlohmann::json::parse(bytes);
  std::string sig = Must(Base64Decode(o["signature"].get<std::string>()));
  o["signature"] = Base64Encode(sig.substr(0, 32) + AddLe(sig.substr(32), kGroupOrderLe));
  auto parsed = Must(ParseEdgesFile(Must(Canonicalize(o))));
  Status st = VerifyEdgesFile(parsed, testing::BoxKey().public_key(), testing::SampleEdges().box);
  EXPECT_EQ(RefusalOf(st), Refusal::kBadSignature);
  EXPECT_THAT(st.message(), HasSubstr("S is not below the group order L"));
  // The genuine one verifies.
  EXPECT_TRUE(VerifyEdgesFile(Must(ParseEdgesFile(bytes)), testing::BoxKey().public_key(),
                              testing::SampleEdges().box)
                  .ok());
}

}  // namespace
}  // namespace carlos::identity
