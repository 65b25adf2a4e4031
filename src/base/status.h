// Status and StatusOr: the project's error model, after Abseil's.
//
// Every fallible operation returns a Status (or a StatusOr<T> when it also
// produces a value). A Status is a code from the small closed set below plus
// one human-readable message that names what failed and, where it can, what
// to do about it; callers branch on the code, operators read the message.
// Where code must act on more than the code (why a document was refused,
// say), the Status carries a typed payload, as Abseil's Status payloads do:
// a value of one C++ type that callers read back with Payload<T>(), never by
// parsing the message.
//
// Thread-safety: Status and StatusOr are values; distinct objects may be used
// from distinct threads freely, one object needs external synchronisation.
#pragma once

#include <any>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace carlos {

// The codes. The store's typed errors (DESIGN.md, "The deployment store")
// map one to one onto kNotFound, kPreconditionFailed, kUnavailable, kDenied
// and kInvalidArgument; the rest are for the other parts.
enum class Code {
  kOk = 0,
  kNotFound,            // The key, file or document does not exist.
  kPreconditionFailed,  // A create-only or compare-and-swap condition did not hold.
  kUnavailable,         // Transient: the store, IMDS or network did not answer; retry.
  kDenied,              // Credentials or permissions refused the operation.
  kInvalidArgument,     // The caller's input is malformed (a bad key, a bad flag).
  kCorrupt,             // Stored or received data is malformed, forged, or oversized.
  kDeadlineExceeded,    // The operation's deadline passed before it finished.
  kCancelled,           // The caller asked to stop (SIGTERM, SIGINT).
  kUnknownOutcome,      // A write may or may not have happened and could not be resolved.
  kInternal,            // A bug or an impossible state; the message says which.
};

// Returns the code's stable lower-case name, e.g. "not found".
std::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  // An OK status.
  Status() = default;
  // A status with `code` and `message`; `code` may be kOk only with an empty
  // message.
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "<message>" for an error, "ok" for OK: the form log lines use.
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>", same code and
  // payload; OK stays OK.
  Status Annotate(std::string_view prefix) const;

  // Returns a copy with `message` in place of the message, same code and
  // payload (for callers that rephrase an error and must keep its payload).
  // OK stays OK.
  Status WithMessage(std::string message) const;

  // Returns a copy carrying `payload` (replacing any payload it had). An OK
  // status carries none: OK is returned unchanged. `T` is a copyable value
  // type; each reader names the same `T`.
  template <typename T>
  Status WithPayload(T payload) const {
    if (ok()) return *this;
    Status s = *this;
    s.payload_ = std::move(payload);
    return s;
  }

  // The payload of type `T`, or nullptr when the status carries none or one
  // of another type. The pointer lives as long as this Status.
  template <typename T>
  const T* Payload() const {
    return std::any_cast<T>(&payload_);
  }

  // Equal code and message (the payload is not compared: it restates the
  // message's facts as a value).
  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
  std::any payload_;  // Empty, or one typed value (see WithPayload).
};

inline Status OkStatus() { return Status(); }
inline Status NotFound(std::string m) { return Status(Code::kNotFound, std::move(m)); }
inline Status PreconditionFailed(std::string m) {
  return Status(Code::kPreconditionFailed, std::move(m));
}
inline Status Unavailable(std::string m) { return Status(Code::kUnavailable, std::move(m)); }
inline Status Denied(std::string m) { return Status(Code::kDenied, std::move(m)); }
inline Status InvalidArgument(std::string m) {
  return Status(Code::kInvalidArgument, std::move(m));
}
inline Status Corrupt(std::string m) { return Status(Code::kCorrupt, std::move(m)); }
inline Status DeadlineExceeded(std::string m) {
  return Status(Code::kDeadlineExceeded, std::move(m));
}
inline Status Cancelled(std::string m) { return Status(Code::kCancelled, std::move(m)); }
inline Status UnknownOutcome(std::string m) { return Status(Code::kUnknownOutcome, std::move(m)); }
inline Status Internal(std::string m) { return Status(Code::kInternal, std::move(m)); }

// StatusOr<T> holds either a T or a non-OK Status. Accessing value() of an
// error is a bug and aborts the process (as Abseil's does).
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design.
  StatusOr(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design.
    if (std::get<Status>(v_).ok()) v_ = Status(Code::kInternal, "StatusOr built from OK status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace carlos

// Returns `expr`'s status from the enclosing function when it is not OK.
#define CARLOS_RETURN_IF_ERROR(expr)         \
  do {                                       \
    ::carlos::Status _carlos_st = (expr);    \
    if (!_carlos_st.ok()) return _carlos_st; \
  } while (0)

#define CARLOS_CONCAT_INNER_(a, b) a##b
#define CARLOS_CONCAT_(a, b) CARLOS_CONCAT_INNER_(a, b)
// `lhs = value of expr`, or returns expr's status from the enclosing function.
#define CARLOS_ASSIGN_OR_RETURN(lhs, expr)                  \
  auto CARLOS_CONCAT_(_carlos_sor_, __LINE__) = (expr);     \
  if (!CARLOS_CONCAT_(_carlos_sor_, __LINE__).ok())         \
    return CARLOS_CONCAT_(_carlos_sor_, __LINE__).status(); \
  lhs = std::move(CARLOS_CONCAT_(_carlos_sor_, __LINE__)).value()
