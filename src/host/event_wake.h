// The production wake source of the joining loop (host/wake.h): inotify(7)
// on the directories where what this box waits for appears, and an eventfd
// for Notify and the stop.
//
// A watch is a directory and the names in it that matter (empty: every
// name). A directory that does not exist yet is watched from the moment it
// does: each Wait adds the watches it can (inotify_add_watch on a directory
// already watched changes nothing), and its parent should be watched for
// its name, so that its creation ends the wait; the next Wait then watches
// it and ends at once (kEvent), since what the caller waits for may have
// landed in it before the watch. Events: created, written and closed, renamed in or out, deleted —
// what an atomic rename (root's guard files, the directory store's writes)
// and link(2) (create-only) produce.
//
// Thread-safety: Wait from one thread at a time; Notify from any.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "host/wake.h"

namespace carlos::host {

class EventWake {
 public:
  struct Watch {
    std::string dir;
    std::set<std::string> names;  // Empty: any name in `dir`.
  };

  // Opens the inotify instance and the eventfd (both close-on-exec).
  // Errors: kUnavailable when the kernel refuses either (inotify instance
  // limit, descriptors).
  static StatusOr<std::unique_ptr<EventWake>> Open(std::vector<Watch> watches);
  ~EventWake();
  EventWake(const EventWake&) = delete;
  EventWake& operator=(const EventWake&) = delete;

  // Waits up to `d` of real time (Wake::wait).
  Woke Wait(Milliseconds d, const Stop& stop);
  // Ends the current or next Wait with kEvent.
  void Notify();
  // This object as the joining loop's Wake; it must outlive the result.
  Wake AsWake();

  // The directories watched now (tests).
  int watching() const;

 private:
  EventWake(int inotify_fd, int event_fd, std::vector<Watch> watches);
  // Watches every directory it can; true when one was not watched before.
  bool AddWatches();
  // Reads what inotify has; true when an event names a watched name.
  bool Drain();

  int inotify_fd_;
  int event_fd_;
  std::vector<Watch> watches_;
  std::vector<int> wds_;  // Per watch: its descriptor, or -1.
};

}  // namespace carlos::host
