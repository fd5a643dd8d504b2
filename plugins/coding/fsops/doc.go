// Package fsops holds the file operations of the coding toolset: bounded
// line-window reads, atomic writes, streaming exact-string patches and a
// parallel content/name search, all confined to a workspace directory.
//
// Every path goes through one boundary (Workspace): paths are resolved
// relative to an os.Root and opened without blocking. A read follows a
// symlink only while it stays inside the workspace (os.Root refuses an
// escape), and whatever it reaches is checked on the opened descriptor as
// a path named directly would be: a regular file with exactly one hard
// link, and a real path that is not a credential unless the path asked
// for is one. A granted path outside the workspace is the exact file
// approved: a symlink there is not followed. Writes follow no symlink in
// any component; they are staged beside the target in a pinned parent
// directory and swapped into place relative to that directory's
// descriptor (renameat2 RENAME_EXCHANGE or RENAME_NOREPLACE, then a check
// that the file displaced is the one inspected), so neither a concurrent
// rename of a path component nor a concurrent replacement of the target
// is lost or redirected. Staged files are anonymous (O_TMPFILE) until
// published and flock'ed while live; a write sweeps dead ones from its
// directory. This guards against user-space namespace races, not a hostile
// kernel or file system. The package is Linux-only (it reads /proc/self/fd
// and parses getdents records).
//
// Errors returned for the model's input are *RefusedError values: short,
// actionable, and matchable with errors.Is against the Err* kinds.
package fsops
