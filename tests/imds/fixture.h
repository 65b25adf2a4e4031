// Shared set-up for the IMDS tests: one signer per test binary (RSA key
// generation is slow) and an emulator started on loopback.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "dev/imds_emulator.h"
#include "dev/imds_emulator_signer.h"
#include "imds/client.h"

namespace carlos::testing {

inline const dev::SignerPem& TestSigner() {
  static const dev::SignerPem signer = [] {
    auto s = identity::MakeEmulatorCertificate("carlos imds test");
    if (!s.ok()) std::abort();
    return *s;
  }();
  return signer;
}

inline SystemTime TestT0() { return SystemTime(std::chrono::seconds(1'800'000'000)); }

inline dev::EmulatedBox TestBox(int i = 0) {
  dev::EmulatedBox b;
  b.instance_id = "i-0de00000000000000" + std::to_string(i);
  b.region = "eu-west-1";
  b.availability_zone = "eu-west-1b";
  b.tags = {{"carlos:group", "Web EU"}, {"Name", "box " + std::to_string(i)}};
  return b;
}

inline std::unique_ptr<dev::ImdsEmulator> StartEmulator(Clock* clock,
                                                        std::vector<dev::EmulatedBox> boxes = {
                                                            TestBox()}) {
  dev::ImdsEmulatorOptions o;
  o.boxes = std::move(boxes);
  o.cert_pem = TestSigner().cert_pem;
  o.key_pem = TestSigner().key_pem;
  o.clock = clock;
  auto e = dev::ImdsEmulator::Start(std::move(o));
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

inline imds::ImdsOptions ClientOptions(const std::string& endpoint) {
  imds::ImdsOptions o;
  o.endpoint = endpoint;
  o.connect_timeout = Milliseconds(500);
  o.request_timeout = Milliseconds(500);
  return o;
}

}  // namespace carlos::testing
