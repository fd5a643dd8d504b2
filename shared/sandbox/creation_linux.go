package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"demiurge.dev/shared/pathrules"
)

// A read-only mount can only hold a path that exists. What git would read
// if it appeared (a .git in a workspace that has none, a commondir or
// config.worktree in one that has) is checked instead: the helper notes
// which of these are absent before the command, and after it (and every
// process it left) has ended, moves each one that appeared aside and says
// so on the command's stderr. Nothing is deleted, and nothing is undone
// silently.

// creatableGitPaths are the paths under ws to watch: .git, and the
// entries of a .git directory git reads for configuration, hooks or
// objects elsewhere.
func creatableGitPaths(ws string) []string {
	out := []string{filepath.Join(ws, ".git")}
	for _, e := range gitEntries {
		// A new linked worktree's git directory is read only by git
		// running in that worktree, and its hooks and config are the
		// repository's (held): `git worktree add` stays possible.
		if e != "worktrees" {
			out = append(out, filepath.Join(ws, ".git", e))
		}
	}
	return out
}

// creatableClientConfigs are the MCP and ACP clients' configuration files
// of the workspace (pathrules.ClientConfigs): one a command creates
// chooses how the operator's client next starts demiurge (its --approve
// and --sandbox). Those that exist are held read-only
// (ClientConfigProtected); these are watched for the rest.
func creatableClientConfigs(ws string) []string {
	out := make([]string, 0, len(pathrules.ClientConfigs))
	for _, c := range pathrules.ClientConfigs {
		out = append(out, filepath.Join(ws, filepath.FromSlash(c)))
	}
	return out
}

// absentPaths are those of paths that do not exist now.
func absentPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); os.IsNotExist(err) {
			out = append(out, p)
		}
	}
	return out
}

// watched are paths absent when the command started, with what reads
// them and what the operator should know, for the lines that say one
// was moved aside.
type watched struct {
	paths          []string
	reader, advice string
}

// watchedPaths are the paths of ws a command could create and that are
// read on the operator's behalf: git's, the clients' configuration, and
// the launcher's configured ones (Policy.Watched: what the repository's
// git configuration names).
func watchedPaths(ws string, configured []string) []watched {
	return []watched{
		{absentPaths(creatableGitPaths(ws)), "git reads for configuration, hooks or objects", "git init and similar need the operator (--sandbox off) here"},
		{absentPaths(creatableClientConfigs(ws)), "an MCP or ACP client reads for how to start its servers (demiurge's --approve and --sandbox among them)", "a client's configuration is the operator's to write"},
		{absentPaths(configured), "the repository's git configuration names (an included file, core.attributesFile, the core.hooksPath directory or a program a value names), so git reads or runs it", "git's configuration is the operator's to write"},
	}
}

// quarantineCreated moves each of absent's paths that exists now to a
// name nothing reads, and returns what it did, one line each. A path
// inside one already moved went with it.
func quarantineCreated(absent watched) []string {
	var lines []string
	moved := map[string]string{}
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	for _, p := range absent.paths {
		if _, err := os.Lstat(p); err != nil || underAny(keys(moved), p) {
			continue
		}
		q := p + ".demiurge-quarantine-" + stamp
		if err := os.Rename(p, q); err != nil {
			lines = append(lines, fmt.Sprintf("demiurge-sandbox: the command created %s, which %s, and it could not be moved aside (%v): remove it before it is read", p, absent.reader, err))
			continue
		}
		moved[p] = q
		lines = append(lines, fmt.Sprintf("demiurge-sandbox: the command created %s, which %s (it did not exist when the command started, so the sandbox could not hold it read-only); moved to %s. If it is what you wanted, review it and rename it back; %s.", p, absent.reader, q, absent.advice))
	}
	return lines
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// endLeftovers kills every other process of the pid namespace (this is
// its init) and reaps them, so that none can recreate what is checked.
func endLeftovers() {
	_ = syscall.Kill(-1, syscall.SIGKILL)
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(-1, &ws, 0, nil); err == syscall.ECHILD {
			return
		} else if err != nil && err != syscall.EINTR {
			return
		}
	}
}
