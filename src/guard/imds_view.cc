#include "guard/imds_view.h"

#include <fmt/format.h>

#include "base/strings.h"

namespace carlos::guard {

StatusOr<ImdsView> ReadImdsView(imds::ImdsClient& client) {
  ImdsView view;
  view.endpoint = client.options().endpoint;
  if (client.off()) {
    view.off = true;
    return view;
  }
  if (Status st = client.Reachable(); !st.ok()) {
    return Status(st.code(),
                  fmt::format("IMDS at {} did not answer: {}", view.endpoint, st.message()));
  }
  auto id = client.InstanceId();
  if (!id.ok()) return id.status().Annotate(fmt::format("IMDS at {}", view.endpoint));
  auto region = client.Region();
  if (!region.ok()) return region.status().Annotate(fmt::format("IMDS at {}", view.endpoint));
  view.instance_id = TrimSpace(*id);
  view.region = TrimSpace(*region);
  return view;
}

}  // namespace carlos::guard
