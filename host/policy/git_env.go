package policy

import (
	"slices"
	"strconv"
	"strings"
)

// guardedGitConfig are git settings that switch off every program-running
// key that a fixed name can reach. They go into the environment of a
// command the shell guard allowed (GIT_CONFIG_COUNT/KEY_n/VALUE_n, which
// override every config file and are passed on to git in submodules), so
// that a repository configuration changed between the guard's review and
// the run still runs nothing by these keys. Keys chosen by a name of the
// repository's own (diff.<driver>.command, filter.<driver>.*, textconv)
// and diff.external (git 2.39 runs an empty value) cannot be named here:
// the guard's review of the configuration refuses them, and the sandbox
// keeps .git/config read-only.
var guardedGitConfig = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"core.editor", "false"},
	{"sequence.editor", "false"},
	{"core.sshCommand", "false"},
	{"core.askPass", "false"},
	{"credential.helper", ""},
	{"gpg.program", "false"},
	{"gpg.openpgp.program", "false"},
	{"gpg.x509.program", "false"},
	{"gpg.ssh.program", "false"},
	{"gpg.ssh.defaultKeyCommand", "false"},
	{"log.showSignature", "false"},
	{"protocol.allow", "never"},
	// git status and diff run git in every populated submodule, where
	// that repository's own configuration (unreviewed: nothing in the
	// outer one names it) could run a filter; the run reports submodules
	// as unchanged instead.
	{"diff.ignoreSubmodules", "all"},
	{"status.submoduleSummary", "false"},
	{"submodule.recurse", "false"},
}

// guardedGitVars: no global file (it lies in the command's HOME, the
// runtime home that approved commands can write; the guard reviews only
// the repository's), no optional index write (which runs
// post-index-change), no pager (GIT_PAGER wins over pager.<cmd>), no
// prompt. The system file (/etc/gitconfig) is kept: it is root's, like git
// itself, and containers put safe.directory there.
var guardedGitVars = [][2]string{
	{"GIT_CONFIG_GLOBAL", "/dev/null"},
	{"GIT_OPTIONAL_LOCKS", "0"},
	{"GIT_PAGER", "cat"},
	{"GIT_TERMINAL_PROMPT", "0"},
}

// GuardedGitEnv returns env (a built command environment) with git's
// program-running configuration switched off, for a command the shell
// guard allowed. Any GIT_* entry already in env is replaced. env itself
// is not changed; the result is sorted.
func GuardedGitEnv(env []string) []string {
	out := make([]string, 0, len(env)+len(guardedGitVars)+1+2*len(guardedGitConfig))
	for _, kv := range env {
		if !strings.HasPrefix(strings.ToUpper(kv), "GIT_") {
			out = append(out, kv)
		}
	}
	for _, kv := range guardedGitVars {
		out = append(out, kv[0]+"="+kv[1])
	}
	out = append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(len(guardedGitConfig)))
	for i, kv := range guardedGitConfig {
		n := strconv.Itoa(i)
		out = append(out, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	slices.Sort(out)
	return out
}
