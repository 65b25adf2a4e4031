// A mutex whose guarded state the compiler checks (Clang's thread-safety
// analysis, -Wthread-safety: clang.llvm.org/docs/ThreadSafetyAnalysis.html),
// and whose holder the code can assert at run time (LevelDB's
// mutex_.AssertHeld()).
//
//   Mutex mu_;
//   int count_ CARLOS_GUARDED_BY(mu_);
//   void Bump() CARLOS_REQUIRES(mu_) { mu_.AssertHeld(); ++count_; }
//   ... { MutexLock lock(&mu_); Bump(); }
//
// With GCC the annotations compile to nothing; scripts/test.sh runs Clang's
// analysis over every file that uses this header (tests/base, the
// thread-safety check), so a read of guarded state without its mutex fails
// the tests.
//
// Thread-safety: a Mutex is for many threads; AssertHeld is exact (it
// records the holder).
#pragma once

#include <atomic>
#include <mutex>
#include <thread>

#if defined(__clang__)
#define CARLOS_THREAD_ANNOTATION_(x) __attribute__((x))
#else
#define CARLOS_THREAD_ANNOTATION_(x)
#endif

#define CARLOS_CAPABILITY(x) CARLOS_THREAD_ANNOTATION_(capability(x))
#define CARLOS_SCOPED_CAPABILITY CARLOS_THREAD_ANNOTATION_(scoped_lockable)
#define CARLOS_GUARDED_BY(x) CARLOS_THREAD_ANNOTATION_(guarded_by(x))
#define CARLOS_PT_GUARDED_BY(x) CARLOS_THREAD_ANNOTATION_(pt_guarded_by(x))
#define CARLOS_REQUIRES(...) CARLOS_THREAD_ANNOTATION_(requires_capability(__VA_ARGS__))
#define CARLOS_EXCLUDES(...) CARLOS_THREAD_ANNOTATION_(locks_excluded(__VA_ARGS__))
#define CARLOS_ACQUIRES(...) CARLOS_THREAD_ANNOTATION_(acquire_capability(__VA_ARGS__))
#define CARLOS_RELEASES(...) CARLOS_THREAD_ANNOTATION_(release_capability(__VA_ARGS__))
#define CARLOS_ASSERT_CAPABILITY(x) CARLOS_THREAD_ANNOTATION_(assert_capability(x))
#define CARLOS_NO_THREAD_SAFETY_ANALYSIS CARLOS_THREAD_ANNOTATION_(no_thread_safety_analysis)

namespace carlos {

class CARLOS_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() CARLOS_ACQUIRES() {
    mu_.lock();
    holder_.store(std::this_thread::get_id(), std::memory_order_relaxed);
  }
  void Unlock() CARLOS_RELEASES() {
    holder_.store(std::thread::id(), std::memory_order_relaxed);
    mu_.unlock();
  }
  // Aborts unless the calling thread holds the mutex (a "REQUIRES: mu is
  // held" precondition, checked).
  void AssertHeld() const CARLOS_ASSERT_CAPABILITY(this);

  // BasicLockable, for std::condition_variable_any and std::unique_lock.
  void lock() CARLOS_ACQUIRES() { Lock(); }
  void unlock() CARLOS_RELEASES() { Unlock(); }

 private:
  std::mutex mu_;
  std::atomic<std::thread::id> holder_{};
};

// Holds a Mutex for its scope.
class CARLOS_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) CARLOS_ACQUIRES(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() CARLOS_RELEASES() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* mu_;
};

}  // namespace carlos
