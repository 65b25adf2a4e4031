// Files on the box's own disk: whole-file reads with a size cap and atomic
// whole-file writes. Every document the protocol keeps on disk (the box key,
// the guard, the marker, the directory store's objects) goes through these,
// so that a crash or a full disk leaves the old file or the new one, never a
// torn one.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "base/status.h"

namespace carlos {

// Maps an errno from operation `what` on `path` to a Status:
// ENOENT -> kNotFound; EACCES, EPERM, EROFS -> kDenied; ENOSPC, EDQUOT ->
// kUnavailable ("disk full"); EEXIST -> kPreconditionFailed; anything else
// -> kUnavailable. The message is "<what> <path>: <strerror>".
Status ErrnoStatus(int err, std::string_view what, std::string_view path);

// Reads the whole file at `path`. Errors: kNotFound when it does not exist;
// kCorrupt when it is larger than `max_bytes` (nothing more is read); others
// as ErrnoStatus.
StatusOr<std::string> ReadFileLimited(const std::string& path, size_t max_bytes);

// Replaces (or creates) the file at `path` with `data`, with permission bits
// `mode`: writes a temporary file in the same directory, fsyncs it, renames it
// over `path` and fsyncs the directory. On any failure the temporary file is
// removed and `path` is as it was. Errors as ErrnoStatus (a full disk is
// kUnavailable with "disk full" in the message). Thread-safe across threads
// and processes (rename is atomic); concurrent writers: the last rename wins.
Status WriteFileAtomic(const std::string& path, std::string_view data, mode_t mode);

// Like WriteFileAtomic but never replaces an existing file: the new file is
// linked into place with link(2), which fails atomically when `path` exists.
// Errors: kPreconditionFailed when `path` already exists; others as
// ErrnoStatus. Correct across processes.
Status CreateFileExclusive(const std::string& path, std::string_view data, mode_t mode);

// Creates `path` and its missing parents with `mode` (like mkdir -p). OK when
// it already exists as a directory.
Status MakeDirs(const std::string& path, mode_t mode);

// Fsyncs the directory `dir` so that a rename or link in it is durable.
Status SyncDir(const std::string& dir);

}  // namespace carlos
