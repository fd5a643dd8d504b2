package shellguard

import (
	"regexp"
	"strconv"
	"strings"
)

// checkKill blocks kill of process id -1 (every process the user may
// signal) in any numeric spelling: -1, -01, -0x1, " -1". The first
// option-like word is the signal (bash and procps read it so: kill -1
// alone is SIGHUP to nothing); -s and -n take the next word.
func checkKill(g *guard, name string, args []string, _ int, f *finding) {
	i, sawSignal := 0, false
options:
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i++
			break options
		case a == "-l" || a == "-L" || a == "--list" || a == "--table":
			return // lists signals
		case a == "-s" || a == "-n" || a == "--signal" || a == "-q" || a == "--queue":
			i++
			sawSignal = true
		case strings.HasPrefix(a, "--signal=") || strings.HasPrefix(a, "--queue="):
			sawSignal = true
		case strings.HasPrefix(a, "-") && len(a) > 1 && !sawSignal:
			sawSignal = true
		default:
			break options
		}
	}
	for _, a := range args[min(i, len(args)):] {
		if isMinusOne(a) {
			f.block(name + " " + strings.Join(args, " ") + " signals every process (pid -1)")
			return
		}
	}
}

// isMinusOne reads a pid the way strtol does (base 10, or with a base
// prefix), spaces around allowed.
func isMinusOne(a string) bool {
	a = strings.TrimSpace(a)
	if !strings.HasPrefix(a, "-") {
		return false
	}
	for _, base := range []int{10, 0} {
		if n, err := strconv.ParseInt(a, base, 64); err == nil && n == -1 {
			return true
		}
	}
	return false
}

var pkillOpts = newPayloadOpts("c=count d=delimiter: e=echo f=full g=pgroup: G=group: i=ignore-case l n=newest o=oldest O=older: P=parent: s=session: t=terminal: u=euid: U=uid: v=inverse x=exact F=pidfile: L=logpidfile r=runstates: A=ignore-ancestors H=require-handler q=queue: w=lightweight",
	"count delimiter: echo full pgroup: group: ignore-case list-name list-full newest oldest older: parent: session: signal: terminal: euid: uid: inverse lightweight exact pidfile: logpidfile runstates: ignore-ancestors cgroup: ns: nslist: env: require-handler queue: help version", false)

// everyName are process names a pattern must all match to match every
// process.
var everyName = []string{"systemd", "init", "bash", "sshd", "kthreadd", "x", "1", "Xorg", "go", "python3"}

// matchesEverything reports a process-name pattern (an extended regular
// expression) that every process matches.
func matchesEverything(pattern string, fold bool) bool {
	if fold {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return false
	}
	for _, n := range everyName {
		if !re.MatchString(n) {
			return false
		}
	}
	return true
}

// checkPkill blocks pkill that selects every process: a pattern every
// name matches (., ^, ”), an inverted match, or a whole user or group
// without a pattern.
func checkPkill(g *guard, name string, args []string, _ int, f *finding) {
	if why, ok := selectsEveryProcess(args); ok {
		f.block(name + " " + why + ": it signals every process")
	}
}

// selectsEveryProcess reads pkill's (and pgrep's) selection: a pattern
// every name matches, an inverted match, or a whole user or group
// without a pattern.
func selectsEveryProcess(args []string) (string, bool) {
	// A leading -SIGNAL (pkill -9, pkill -KILL) is the signal.
	if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && !strings.HasPrefix(args[0], "--") && pkillSignal(args[0][1:]) {
		args = args[1:]
	}
	a := pkillOpts.parse(args)
	switch {
	case a.has("inverse"):
		return "-v selects what does not match", true
	case len(a.operands) == 0 && a.has("euid", "uid", "group"):
		return "without a pattern selects a whole user or group", true
	}
	for _, p := range a.operands {
		if matchesEverything(p, a.has("ignore-case")) {
			return strconvQuote(p) + " matches every name", true
		}
	}
	return "", false
}

// pkillSignal reports a signal name or number (9, KILL, SIGKILL, RTMIN+1).
func pkillSignal(s string) bool {
	if _, err := strconv.Atoi(s); err == nil {
		return true
	}
	s = strings.TrimPrefix(s, "SIG")
	if len(s) < 2 { // single letters are options (-U, -P), not signals
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '+' && c != '-' {
			return false
		}
	}
	return true
}

var killallOpts = newPayloadOpts("e=exact g=process-group i=interactive I=ignore-case l=list n=ns: o=older-than: q=quiet r=regexp s=signal: u=user: v=verbose V=version w=wait y=younger-than: Z=context: Y=ignore-ancestors",
	"exact process-group interactive ignore-case list ns: older-than: quiet regexp signal: user: verbose version wait younger-than: context:", false)

// checkKillall blocks killall -r with a pattern every name matches, and
// killall -u without names (every process of the user).
func checkKillall(g *guard, name string, args []string, _ int, f *finding) {
	if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && !strings.HasPrefix(args[0], "--") && pkillSignal(args[0][1:]) && args[0] != "-I" && args[0] != "-V" {
		args = args[1:]
	}
	a := killallOpts.parse(args)
	switch {
	case a.has("list", "version"):
	case len(a.operands) == 0 && a.has("user"):
		f.block(name + " -u without a name signals every process of the user")
	case a.has("regexp"):
		for _, p := range a.operands {
			if matchesEverything(p, a.has("ignore-case")) {
				f.block(name + " -r " + strconvQuote(p) + " matches every process")
				return
			}
		}
	}
}

// checkKillall5: killall5 signals every process outside its session.
func checkKillall5(g *guard, name string, args []string, _ int, f *finding) {
	f.block(name + " signals every process")
}

func strconvQuote(s string) string { return strconv.Quote(s) }
