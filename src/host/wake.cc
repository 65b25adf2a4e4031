#include "host/wake.h"

#include <algorithm>

namespace carlos::host {

Milliseconds NextCheckIn(SystemTime now, std::optional<SystemTime> expecting_since,
                         Milliseconds join_every, const FastPoll& fast) {
  if (fast.every > Milliseconds(0) && expecting_since && now < *expecting_since + fast.bound) {
    return std::min(fast.every, join_every);
  }
  return join_every;
}

}  // namespace carlos::host
