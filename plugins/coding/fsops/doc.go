// Package fsops holds the file operations of the coding toolset: bounded
// line-window reads, atomic writes, streaming exact-string patches and a
// parallel content/name search, all confined to a workspace directory.
//
// Every path goes through one boundary (Workspace): paths are resolved
// relative to an os.Root, opened without following a final symlink and
// without blocking, and checked on the opened descriptor (regular file,
// exactly one hard link, real path not a credential reached through a
// symlink). Writes are staged beside the target in a pinned parent
// directory and renamed into place relative to that directory's
// descriptor, so a concurrent rename of a path component cannot redirect
// them. This guards against user-space namespace races, not a hostile
// kernel or file system. The package is Linux-only (it reads /proc/self/fd
// and parses getdents records).
//
// Errors returned for the model's input are *RefusedError values: short,
// actionable, and matchable with errors.Is against the Err* kinds.
package fsops
