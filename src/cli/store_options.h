// How a command run by a person opens the deployment store: `--timeout
// DURATION` (the most one store call waits, retries included) and, on a
// terminal, one progress line while a call is retried, so that a dead
// endpoint is not 20 s of silence (docs/operator.md, "Exit statuses").
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "store/store.h"

namespace carlos::cli {

// Adds `--timeout DURATION` to `cmd`: a Go duration above 0 ("30s", "2m"),
// checked by CLI11 (a bad one is a usage error, exit 2), stored in
// `*timeout` as typed ("" when not given).
void AddTimeoutFlag(CLI::App* cmd, std::string* timeout);

// The store options for `command` ("carlos boxes list"): the deadline of
// `timeout` (AddTimeoutFlag's string; "" keeps the backend's default) and,
// when stderr is a terminal (isatty(3)), a retry observer that keeps one
// progress line on stderr, redrawn in place ("\r", erase to the end of the
// line) at each retry and erased when the call ends. Not a terminal (a
// script, the journal): nothing is drawn.
StoreOpenOptions CommandStoreOptions(std::string_view command, const std::string& timeout);

// The progress line for `note` (not ended): "<command>: <what>: attempt 3
// failed: <cause>; next try in 400ms", cut to `width` bytes (0: not cut).
std::string ProgressLine(std::string_view command, const RetryNote& note, size_t width);

}  // namespace carlos::cli
