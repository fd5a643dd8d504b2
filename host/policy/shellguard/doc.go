// Package shellguard is the terminal's lexical guard: it reads a shell
// command with mvdan.cc/sh's parser and decides whether it may run without
// approval (allow), needs approval (prompt), or must never run (block).
//
// Only a command that is provably literal and made of known read-only
// commands is allowed, and a read-only command only when every option it
// is given is in its program's table (options_*.go) with a read-only
// effect, read as the program reads it (optparse.go: GNU getopt_long with
// abbreviations and permutation, or the program's own parser), and no
// operand is an output file. An unknown or ambiguous option asks. Everything the guard cannot prove harmless asks:
// expansions, substitutions, writes, wrappers it cannot see through,
// unknown programs. Known destructive payloads (rm -rf /, mkfs, fork bombs,
// writes onto block devices, shutdown) are blocked wherever they appear,
// even inside substitutions, shells' -c strings and wrappers.
//
// The raw command is always reviewed as the shell will run it; ANSI-stripped,
// invisible-stripped and NFKC-normalised copies are reviewed as well, and
// the strictest reading wins. The guard is containment, not a sandbox: an
// approved command still runs with the user's rights.
//
// Payloads are read the way the program and the kernel will read them
// (destructive.go, targets.go): options by the program's getopt rules
// (rm --rec --for), targets with braces expanded, tilde and $HOME
// replaced, unknown expansions as empty, paths cleaned lexically
// (/proc/self/root, //, /..), globs matched against the directories they
// reach, relative targets from every directory a cd may have left the
// command in; what a pipe, here-string or here-document feeds a shell or
// xargs is judged as if written out (feeds.go). A payload nested deeper
// than maxDepth, or a command that needs more work than maxWork to
// review, is blocked unreviewed.
//
// The guard looks at the file system only through Options.Files (the real
// one when nil), and only to read: it follows the symlinks of the paths a
// command names (a link to /etc/shadow or out of the workspace asks), walks
// the trees recursive commands read (bounded in entries and time; past the
// bounds it asks), and reads the git repository's configuration, includes
// and hooks (git_repo.go). A path that does not exist is judged as
// written: it cannot be a symlink. What it saw can change before the
// command runs; the host therefore also neutralises git's
// program-running configuration at run time (policy.GuardedGitEnv), and
// the sandbox keeps .git/config and .git/hooks read-only. Beyond the
// file system it has no state but read-only tables.
package shellguard
