// The region's IMDS: the IMDS emulator (dev/imds_emulator.h) run
// in the region's own process, one emulated EC2 instance per box, each on
// its own 127.0.0.1 port (region_layout.h), its identity documents signed
// with a certificate kept in DIR/imds so that the enroller, given that
// certificate, checks them as it would check AWS's.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "dev/imds_emulator.h"
#include "dev/region_layout.h"

namespace carlos::dev {

// Loads (or, on a first run, makes) the signer in DIR/imds and starts the
// emulator for boxes 1..`boxes` in `region` (an AWS region; zone
// "<region>a"), box i with instance id BoxInstanceId(i) on port
// BoxImdsPort(base_port, i). `clock` must outlive the emulator. Errors: the
// signer's (dev/imds_emulator_signer.h) and the listeners' (a port in use
// names it).
StatusOr<std::unique_ptr<ImdsEmulator>> StartRegionImds(const RegionLayout& layout, int boxes,
                                                        int base_port, const std::string& region,
                                                        Clock* clock);

// Test-facing IMDS faults at run time (the fault soak, tests/soak/soak.sh;
// docs/region.md, "IMDS faults"). A test writes one line "<kind> <ms>" to
// DIR/imds/fault (RegionLayout::imds_fault; write a temporary file and
// rename it); the region's loop reads and removes it, and for <ms>
// milliseconds (1 to 600000) every box's IMDS:
//   "500"     answers every request 500;
//   "hang"    answers every request only <ms> after it came;
//   "refuse"  is not listening: connections are refused (the listeners are
//             closed, and started again on the same ports afterwards).
// A new line replaces the fault under way. Each start and end is logged
// ("region: IMDS fault: ..."); an unreadable line is logged and ignored.
// Only `carlos dev region` runs this: nothing on a real box reads the file.
// Not thread-safe: the region's loop calls it.
class RegionImdsFaults {
 public:
  // `imds` is the region's emulator, replaced while refusing (null between
  // the close and the restart); the other arguments are StartRegionImds's.
  RegionImdsFaults(const RegionLayout& layout, int boxes, int base_port, std::string region,
                   Clock* clock, std::unique_ptr<ImdsEmulator>* imds, Logf logf);
  // Applies a new fault line, and ends a fault whose time is up.
  void Tick(SystemTime now);

 private:
  void End();

  RegionLayout layout_;
  int boxes_;
  int base_port_;
  std::string region_;
  Clock* clock_;
  std::unique_ptr<ImdsEmulator>* imds_;
  Logf logf_;
  std::string kind_;  // The fault under way, "" for none.
  std::optional<SystemTime> until_;
};

}  // namespace carlos::dev
