#include "metrics/measured_store.h"

#ifndef CARLOS_COMMIT
#define CARLOS_COMMIT ""
#endif

namespace carlos::metrics {

void AddBuildInfo(Registry& registry) {
  registry
      .AddGauge("carlos_build_info", "The build: its release and git commit; always 1.",
                {"version", "commit"})
      ->With({CARLOS_RELEASE, CARLOS_COMMIT})
      ->Set(1);
}

}  // namespace carlos::metrics
