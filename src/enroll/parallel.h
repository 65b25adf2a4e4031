// A bounded fan-out: the enroller's requests in flight are at most its
// worker count, whatever the fleet's size.
//
// Thread-safety: `fn` is called from several threads at once and must be
// safe for that; each index is passed exactly once.
#pragma once

#include <cstddef>
#include <functional>

namespace carlos::enroll {

// Calls fn(i) for every i in [0, n) on at most `workers` threads (the
// calling thread is one of them), and returns once every call has returned.
// With workers <= 1 or n <= 1 everything runs on the calling thread.
void ParallelFor(size_t n, int workers, const std::function<void(size_t)>& fn);

}  // namespace carlos::enroll
