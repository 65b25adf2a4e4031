// Preconditions checked, not only written (as LevelDB's mutex_.AssertHeld()
// and Abseil's CHECK): a header that says "requires X" checks X at the
// function's top with CARLOS_CHECK, so that a caller who breaks the contract
// stops at once with the rule it broke, instead of failing later and far
// away (a null std::function called on another thread, say).
//
// A failed check is a bug in the caller: it prints
// "carlos: precondition failed at <file>:<line>: <what>" to stderr and
// aborts. Checks stay on in release builds; they guard rare entry points,
// never a hot loop.
//
// Thread-safety: safe from any thread.
#pragma once

namespace carlos::internal {

// Prints the failed precondition and aborts.
[[noreturn]] void CheckFailed(const char* file, int line, const char* what);

}  // namespace carlos::internal

// Aborts with `what` (a string literal naming the rule) unless `cond` holds.
#define CARLOS_CHECK(cond, what)                                            \
  do {                                                                      \
    if (!(cond)) ::carlos::internal::CheckFailed(__FILE__, __LINE__, what); \
  } while (0)
