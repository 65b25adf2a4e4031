#include "dev/region_imds.h"

#include "dev/imds_emulator_signer.h"

namespace carlos::dev {

StatusOr<std::unique_ptr<ImdsEmulator>> StartRegionImds(const RegionLayout& layout, int boxes,
                                                        int base_port, const std::string& region,
                                                        Clock* clock) {
  auto signer = LoadOrMakeSigner(layout.imds_cert(), layout.imds_key());
  if (!signer.ok()) return signer.status().Annotate("the IMDS emulator's certificate");
  ImdsEmulatorOptions o;
  o.host = "127.0.0.1";
  // The emulator numbers its boxes from 0 at base_port; the region's box i
  // (from 1) is at BoxImdsPort(base_port, i).
  o.base_port = BoxImdsPort(base_port, 1);
  o.cert_pem = signer->cert_pem;
  o.key_pem = signer->key_pem;
  o.clock = clock;
  for (int i = 1; i <= boxes; ++i) {
    EmulatedBox b;
    b.instance_id = BoxInstanceId(i);
    b.region = region;
    b.availability_zone = region + "a";
    b.private_ip = "10.0.0." + std::to_string(10 + i);
    o.boxes.push_back(std::move(b));
  }
  auto emulator = ImdsEmulator::Start(std::move(o));
  if (!emulator.ok()) return emulator.status().Annotate("the IMDS emulator");
  return emulator;
}

}  // namespace carlos::dev
