// Test helpers that play the other actors with the identity library: the
// box (its record), the enroller (invitations, enrollments, retirements,
// signed with a test enrollment key) and root (the guard's files). Shared
// by the unit tests and the agent's integration test.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "base/clock.h"
#include "identity/edges_file.h"
#include "identity/enrollment.h"
#include "identity/guard_files.h"
#include "identity/identity_record.h"
#include "identity/invitation.h"
#include "identity/keys.h"
#include "identity/retirement.h"

namespace carlos::testing {

// A fixed key from a one-letter seed, so that tests are repeatable.
inline identity::PrivateKey Key(char seed) {
  auto k = identity::PrivateKey::FromSeed(std::string(32, seed));
  EXPECT_TRUE(k.ok()) << k.status().ToString();
  return std::move(k).value();
}

// The stored digest of `bytes` of a signed or unsigned document.
template <typename ParseFn>
std::string DigestOf(ParseFn parse, const std::string& bytes) {
  auto p = parse(bytes);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? p->digest : "";
}

inline const SystemTime kT0 = SystemTime(std::chrono::seconds(1'800'000'000));

inline std::string RecordBytes(const std::string& box, const identity::PrivateKey& key,
                               SystemTime at = kT0, const std::string& machine_id = "m-1") {
  identity::IdentityRecord r;
  r.box = box;
  r.region = "eu-1";
  r.machine_id = machine_id;
  r.instance_id = "";
  r.release = "0.1.0";
  r.platform = "linux-amd64";
  r.public_key = key.public_key();
  r.created_at = at;
  auto b = identity::SignIdentityRecord(r, key);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : "";
}

inline std::string InvitationBytes(const std::string& box, const std::string& record_digest,
                                   const identity::PrivateKey& key, SystemTime issued = kT0) {
  identity::Invitation inv =
      identity::NewInvitation(box, record_digest, "eu-1", issued, false, std::nullopt);
  auto b = identity::SignInvitation(inv, key);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : "";
}

inline std::string EnrollmentBytes(const std::string& box, const std::string& record_digest,
                                   const std::string& invitation_digest,
                                   const std::string& guard_digest,
                                   const identity::PrivateKey& key) {
  identity::Enrollment e{box, record_digest, invitation_digest, guard_digest, kT0};
  auto b = identity::SignEnrollment(e, key);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : "";
}

inline std::string RetirementBytes(const std::string& box, const std::string& record_digest,
                                   const identity::PrivateKey& key) {
  identity::Retirement r{box, record_digest, kT0, "decommissioned"};
  auto b = identity::SignRetirement(r, key);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : "";
}

inline std::string EdgesBytes(const std::string& box, const identity::PrivateKey& key) {
  identity::EdgesFile e{box, kT0, {}};
  auto b = identity::SignEdgesFile(e, key);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : "";
}

inline std::string GuardBytes(const std::string& box, const std::string& record_digest,
                              const std::string& invitation_digest) {
  identity::GuardFile g{box, "", "eu-1", record_digest, invitation_digest, {}, kT0};
  auto b = identity::EncodeGuardFile(g);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : "";
}

inline std::string ArmedBytes(const std::string& guard_digest) {
  identity::ArmedFile a{guard_digest, kT0};
  auto b = identity::EncodeArmedFile(a);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : "";
}

// `bytes` with the first `from` replaced by `to` (a forged field that keeps
// the canonical form, so that only the signature catches it).
inline std::string Tamper(std::string bytes, const std::string& from, const std::string& to) {
  size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << bytes;
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  return bytes;
}

}  // namespace carlos::testing
