// A file watch as a systemd path unit's PathChanged= (systemd.path(5)):
// carlos-system-join.path starts carlos-system-join.service when the agent
// touches $CARLOS_DATA_DIR/system-join-requested. The region polls: each
// call compares the file's inode, size and modification time (nanoseconds)
// with what the previous call saw, which catches both a write in place and
// an atomic replace (a new inode).
//
// Thread-safety: not thread-safe; one owner calls Changed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace carlos::dev {

class FileWatch {
 public:
  // Watches `path`, taking its present state (absent, or its inode, size
  // and mtime) as seen: a marker left by an earlier run is not a change.
  explicit FileWatch(std::string path);

  // True when the file exists and differs from the last state seen
  // (created, replaced, written, touched). A file that disappears is not a
  // change (there is nothing for root to act on), but its reappearance is.
  bool Changed();

  const std::string& path() const { return path_; }

 private:
  struct Seen {
    bool exists = false;
    ino_t inode = 0;
    off_t size = 0;
    int64_t mtime_ns = 0;
    bool operator==(const Seen&) const = default;
  };
  Seen Look() const;

  std::string path_;
  Seen seen_;
};

}  // namespace carlos::dev
