// The process's limit on open files. A box agent holds one descriptor per
// connection to its health check, and the load balancer, a scanner or a
// slow client can hold thousands (DESIGN.md, "Health check": it must keep
// answering under many idle or slow connections); the soft limit systemd
// and most shells give, 1024, is spent long before the hard one.
#pragma once

#include <cstdint>

#include "base/status.h"

namespace carlos {

// Raises this process's soft RLIMIT_NOFILE to its hard limit, as Go's
// runtime does for every Go program since Go 1.19 (so the seed's agent ran
// with it). Returns the soft limit now in force, in descriptors (unchanged
// when it already was the hard limit). Errors: kInternal, naming the call
// and the system's reason, when getrlimit or setrlimit fails; the limit is
// then unchanged. Thread-safe (one system call each); affects the whole
// process and the children it starts afterwards.
StatusOr<uint64_t> RaiseOpenFileLimit();

}  // namespace carlos
