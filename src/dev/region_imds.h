// The region's IMDS: the IMDS emulator (dev/imds_emulator.h) run
// in the region's own process, one emulated EC2 instance per box, each on
// its own 127.0.0.1 port (region_layout.h), its identity documents signed
// with a certificate kept in DIR/imds so that the enroller, given that
// certificate, checks them as it would check AWS's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
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

}  // namespace carlos::dev
