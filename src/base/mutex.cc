#include "base/mutex.h"

#include "base/check.h"

namespace carlos {

void Mutex::AssertHeld() const {
  CARLOS_CHECK(holder_.load(std::memory_order_relaxed) == std::this_thread::get_id(),
               "the mutex must be held by this thread");
}

}  // namespace carlos
