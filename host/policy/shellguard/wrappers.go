package shellguard

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// wrapper judges a command that runs another command, by what it runs.
type wrapper func(g *guard, name string, args []string, depth int, f *finding) string

var wrappers map[string]wrapper

// wrapperNames are the wrappers' names, for matching a glob.
var wrapperNames = map[string]bool{}

func init() {
	wrappers = map[string]wrapper{
		"env":     wrapEnv,
		"timeout": unwrapAfter(opts("-s --signal -k --kill-after", "--foreground --preserve-status -v --verbose"), 1, ""),
		"nice":    wrapNice,
		"nohup":   unwrapAfter(opts("", ""), 0, ""),
		"time":    wrapTime,
		"stdbuf":  unwrapAfter(opts("-i -o -e --input --output --error", ""), 0, ""),
		"command": wrapCommand,
		"builtin": unwrapAfter(opts("", ""), 0, ""),
		"exec":    wrapExec,
		"xargs":   wrapXargs,
		"busybox": wrapBusybox,
		"toybox":  wrapBusybox,
		"script":  wrapInlineCode("c", "command"),
		"flock":   wrapInlineCode("c", "command"),
		"runuser": wrapInlineCode("c", "command session-command"),
		"sudo": wrapPrivileged(opts("-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir -r --role -t --type -U --other-user -T --command-timeout -R --chroot",
			"-A --askpass -b --background -E --preserve-env -H --set-home -i --login -k --reset-timestamp -K -n --non-interactive -P --preserve-groups -S --stdin -s --shell -B --bell")),
		"doas":   wrapPrivileged(opts("-u -C", "-n -s -L")),
		"pkexec": wrapPrivileged(opts("--user", "--disable-internal-agent --keep-cwd")),
		"run0":   wrapPrivileged(opts("-u --user -g --group -D --chdir --setenv --unit --property --description --slice --nice", "")),
		"su":     wrapSu,
		"eval":   wrapEval,
		"source": wrapSource,
		".":      wrapSource,
		"watch":  wrapWatch,
		"trap":   wrapTrap,
	}
	for _, sh := range []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "rbash"} {
		wrappers[sh] = wrapShell
	}
	for _, w := range []string{"chroot", "nsenter", "unshare", "setsid", "flock", "ionice", "chrt", "taskset", "strace", "ltrace",
		"firejail", "systemd-run", "parallel", "entr", "numactl", "prlimit", "cgexec", "setpriv", "faketime",
		"catchsegv", "valgrind", "gdb", "expect", "unbuffer", "caffeinate", "torsocks", "proxychains", "proxychains4", "tsp", "at", "batch", "screen", "tmux", "dtach", "nnn", "vim", "vi", "nvim", "emacs", "less", "more", "most"} {
		wrappers[w] = wrapOpaque
	}
	for n := range wrappers {
		wrapperNames[n] = true
	}
}

// Option tables built once; wrappers are judged on every call.
var (
	unwrapNice    = unwrapAfter(opts("-n --adjustment", ""), 0, "")
	unwrapTime    = unwrapAfter(opts("-f --format -o --output", "-p --portability -v --verbose -a --append -q --quiet"), 0, "")
	unwrapCommand = unwrapAfter(opts("", "-p"), 0, "")
	execOpts      = opts("-a", "-c -l")
	xargsOpts     = opts("-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s --max-chars --process-slot-var --max-lines",
		"-0 --null -r --no-run-if-empty -t --verbose -p --interactive -x --exit -o --open-tty --show-limits")
	// xargsGetopt and execGetopt read the options' values (-P, -d, -0;
	// exec -a) as getopt does: clusters, attached or next-word values,
	// long options by a unique prefix. GNU xargs's -e, -i and -l take a
	// value only attached: the rest of their word (-iP0 is -i with P0).
	xargsGetopt = newPayloadOpts("0=null a=arg-file: d=delimiter: E=eof: I=replace: L=max-lines: n=max-args: P=max-procs: s=max-chars: "+
		"e=eof? i=replace? l=max-lines? o=open-tty p=interactive r=no-run-if-empty t=verbose x=exit",
		"null arg-file: delimiter: eof? replace? max-lines? max-args: max-procs: max-chars: process-slot-var: no-run-if-empty verbose interactive exit open-tty show-limits help version", true)
	execGetopt = newPayloadOpts("a=argv0:", "", true) // -c and -l: flags, stepped over
	watchOpts  = opts("-n --interval -q --equexit -s --shotsfile",
		"-b --beep -c --color -C --no-color -d --differences -e --errexit -g --chgexit -p --precise -r --no-rerun -t --no-title -w --no-wrap -x --exec")
)

// unwrapAfter skips the wrapper's options and skipOperands operands, then
// judges the rest; nothing left means the wrapper alone, judged by why
// (empty: allowed, as it only prints).
func unwrapAfter(o optSpec, skipOperands int, why string) wrapper {
	return func(g *guard, name string, args []string, depth int, f *finding) string {
		i, ok := o.skip(args)
		if !ok {
			f.prompt(High, name+" has an option the guard does not know: "+strconv.Quote(args[i]))
			g.scanOperands(args, depth, f)
			return name
		}
		i += skipOperands
		if i >= len(args) {
			if skipOperands > 0 || why != "" {
				f.prompt(High, name+" without a command to run")
			}
			return name
		}
		return g.judge(args[i:], depth+1, f)
	}
}

var envOpts = newPayloadOpts("0=null a=argv0: C=chdir: i=ignore-environment u=unset: S=split-string: v=debug",
	"null argv0: chdir: ignore-environment unset: split-string: debug block-signal? default-signal? ignore-signal? list-signal-handling help version", true)

// wrapEnv judges env by the command it runs, read as GNU env's getopt
// reads it (-iS, --split=, --unset NAME); -S's string is split into a
// command and reviewed as shell.
func wrapEnv(g *guard, name string, args []string, depth int, f *finding) string {
	a := envOpts.parse(args)
	for _, arg := range args[:a.rest] {
		if arg == "--" {
			break
		}
		if strings.HasPrefix(arg, "-") && !envKnownOption(arg) {
			f.prompt(High, "env has an option the guard does not know: "+strconv.Quote(arg))
		}
	}
	rest := args[a.rest:]
	if len(rest) > 0 && rest[0] == "-" {
		a.opts = append(a.opts, optValue{name: "ignore-environment"})
		rest = rest[1:]
	}
	if a.has("ignore-environment") {
		f.prompt(Medium, "env starts from an empty environment")
	}
	if a.has("unset") {
		f.prompt(Medium, "env unsets environment variables")
	}
	if a.has("chdir") {
		f.prompt(Medium, "changes the working directory (env -C)")
	}
	if a.has("argv0") {
		f.prompt(High, "env -a runs a program under another name")
	}
	for len(rest) > 0 && strings.Contains(rest[0], "=") && !strings.HasPrefix(rest[0], "=") {
		f.prompt(High, "sets environment variables inline (env NAME=value)")
		rest = rest[1:]
	}
	if split := a.values("split-string"); len(split) > 0 {
		f.prompt(High, "env -S splits a string into a command")
		g.reviewInner(strings.Join(append(split, rest...), " "), depth, f)
		return name
	}
	if len(rest) == 0 {
		return name // prints the environment
	}
	return g.judge(rest, depth+1, f)
}

// envKnownOption reports an option word envOpts can read whole.
func envKnownOption(a string) bool {
	if strings.HasPrefix(a, "--") {
		given, _, _ := strings.Cut(a[2:], "=")
		_, ok := envOpts.lookupLong(given)
		return ok
	}
	for i := 1; i < len(a); i++ {
		n, ok := envOpts.short[a[i]]
		if !ok {
			return false
		}
		if strings.HasSuffix(n, ":") {
			return true
		}
	}
	return true
}

var niceNumber = regexp.MustCompile(`^-[0-9]+$`)

func wrapNice(g *guard, name string, args []string, depth int, f *finding) string {
	if len(args) > 0 && niceNumber.MatchString(args[0]) {
		args = args[1:]
	}
	return unwrapNice(g, name, args, depth, f)
}

func wrapTime(g *guard, name string, args []string, depth int, f *finding) string {
	if timeWrites(args) {
		f.prompt(High, "time -o writes a file")
	}
	return unwrapTime(g, name, args, depth, f)
}

// timeWrites reports -o or --output among GNU time's options, read past
// the values of -f and -o (time -f FMT -o FILE CMD): hasOpt stops at the
// first word that is no option, which FMT is.
func timeWrites(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return false
		}
		if optMatches(a, "-o") || optMatches(a, "--output") {
			return true
		}
		if strings.HasPrefix(a, "--") {
			if (optMatches(a, "--format") || a == "--f") && !strings.Contains(a, "=") {
				i++
			}
			continue
		}
		// A short cluster: -f takes the rest of the word, or the next.
		if j := strings.IndexByte(a, 'f'); j > 0 && j == len(a)-1 {
			i++
		}
	}
	return false
}

func wrapCommand(g *guard, name string, args []string, depth int, f *finding) string {
	if hasOpt(args, "-v", "-V") {
		return name // looks a name up; runs nothing
	}
	return unwrapCommand(g, name, args, depth, f)
}

func wrapExec(g *guard, name string, args []string, depth int, f *finding) string {
	i, ok := execOpts.skip(args)
	if !ok || i >= len(args) {
		f.prompt(Medium, "exec without a command changes the shell itself")
		return name
	}
	if hasOpt(args[:i], "-a") {
		// A multi-call program picks what it runs by its argv[0]
		// (exec -a rm busybox -f x removes x), like env -a.
		f.prompt(High, "exec -a runs a program under another name")
		if b := baseName(args[i]); b == "busybox" || b == "toybox" {
			for _, argv0 := range execArgv0s(args[:i]) {
				argv := append([]string{baseName(argv0)}, args[i+1:]...)
				g.blocksOnly(f, func(tmp *finding) { g.judge(argv, depth+1, tmp) })
			}
		}
	}
	return g.judge(args[i:], depth+1, f)
}

func wrapXargs(g *guard, name string, args []string, depth int, f *finding) string {
	o := xargsOpts
	if hasOpt(args, "-a", "--arg-file") {
		f.prompt(High, "xargs reads its arguments from a file")
	}
	f.prompt(Medium, "xargs adds arguments read from its input, which the guard cannot see")
	g.consumer.xargs = append([]string{}, args...)
	i, ok := o.skip(args)
	// Every argument: xargs's getopt stops at the command, where the skip
	// above may have stopped earlier, at an option it does not know
	// (--max-p=0, -i{}) that xargs reads.
	if v, unbounded := xargsUnbounded(args); unbounded {
		f.block("fork bomb: xargs -P " + v + " starts processes without a bound")
	}
	if !ok {
		// -e, -i and -l take optional attached values; anything else is
		// unknown.
		f.prompt(High, "xargs has an option the guard does not know: "+strconv.Quote(args[i]))
		g.scanOperands(args, depth, f)
		return name
	}
	if i >= len(args) {
		return g.judge([]string{"echo"}, depth+1, f)
	}
	return g.judge(args[i:], depth+1, f)
}

// execArgv0s are the names exec -a gives, from exec's options (exec -ca
// rm: the flag c, then a and its value). bash takes the last of several;
// each is judged, so that no reading of them is missed.
func execArgv0s(opts []string) []string {
	var names []string
	for _, n := range execGetopt.parse(opts).values("argv0") {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}

// multiCallListings are the options with which busybox and toybox only
// print (their applets, help, version); any other option asks: busybox
// --install [-s] DIR makes a link for every applet in DIR.
var multiCallListings = map[string]bool{"--list": true, "--list-full": true, "--help": true, "--long": true, "--version": true}

func wrapBusybox(g *guard, name string, args []string, depth int, f *finding) string {
	if len(args) == 0 || len(args) == 1 && multiCallListings[args[0]] {
		return name // lists applets
	}
	if strings.HasPrefix(args[0], "-") {
		f.prompt(High, name+" "+strconv.Quote(args[0])+" is not known to only print (busybox --install writes links)")
		g.scanOperands(args, depth, f)
		return name
	}
	return g.judge(args, depth+1, f)
}

func wrapPrivileged(o optSpec) wrapper {
	return func(g *guard, name string, args []string, depth int, f *finding) string {
		f.prompt(High, name+" runs a command with elevated privileges")
		i, ok := o.skip(args)
		if !ok || i >= len(args) {
			if ok {
				g.consumer.shell = true // a shell, reading its input
			}
			g.scanOperands(args, depth, f)
			return name
		}
		return g.judge(args[i:], depth+1, f)
	}
}

func wrapSu(g *guard, name string, args []string, depth int, f *finding) string {
	f.prompt(High, "su runs a command as another user")
	codes := inlineCode(args, "c", "command session-command")
	for _, code := range codes {
		g.reviewInner(code, depth, f)
	}
	if len(codes) == 0 {
		g.consumer.shell = true // a login shell, reading its input
	}
	return name
}

// wrapInlineCode is for programs that run other programs and take shell
// code in an option (script -c, flock -c, runuser -c): the code is
// reviewed, the operands scanned.
func wrapInlineCode(short, long string) wrapper {
	return func(g *guard, name string, args []string, depth int, f *finding) string {
		f.prompt(High, name+" runs other programs")
		codes := inlineCode(args, short, long)
		for _, code := range codes {
			g.reviewInner(code, depth, f)
		}
		if len(codes) == 0 && name == "script" {
			g.consumer.shell = true // script runs a shell on its input
		}
		g.scanOperands(args, depth, f)
		return name
	}
}

// inlineCode finds the values of the options that hold shell code: the
// short letter alone, attached or last in a cluster (-lc CODE, -cCODE),
// and the long names by any prefix of three letters or more (--comm=CODE).
func inlineCode(args []string, short, long string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			given, value, hasValue := strings.Cut(a[2:], "=")
			for _, l := range strings.Fields(long) {
				if given == l || (len(given) >= 3 && strings.HasPrefix(l, given)) {
					if !hasValue && i+1 < len(args) {
						i++
						value = args[i]
					}
					out = append(out, value)
					break
				}
			}
			continue
		}
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			continue
		}
		if j := strings.Index(a[1:], short); j >= 0 {
			if v := a[j+2:]; v != "" {
				out = append(out, v)
			} else if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		}
	}
	return out
}

func wrapEval(g *guard, name string, args []string, depth int, f *finding) string {
	f.prompt(High, "eval runs its arguments as shell code")
	g.reviewInner(strings.Join(args, " "), depth, f)
	return name
}

func wrapTrap(g *guard, name string, args []string, depth int, f *finding) string {
	f.prompt(High, "trap runs shell code when a signal arrives")
	if ops := operands(args); len(ops) > 0 {
		g.reviewInner(ops[0], depth, f)
	}
	return name
}

func wrapSource(g *guard, name string, args []string, depth int, f *finding) string {
	f.prompt(High, "reads and runs a command file ("+name+")")
	if len(args) > 0 && isStdinPath(args[0]) {
		g.consumer.shell = true
	}
	return name
}

func wrapWatch(g *guard, name string, args []string, depth int, f *finding) string {
	f.prompt(High, "watch runs a command repeatedly")
	i, _ := watchOpts.skip(args)
	if i < len(args) {
		g.reviewInner(strings.Join(args[i:], " "), depth, f)
	}
	return name
}

// wrapShell judges a shell: inline code (-c) is reviewed as well, and
// always needs approval; a script file or standard input cannot be seen.
func wrapShell(g *guard, name string, args []string, depth int, f *finding) string {
	inline := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			i = len(args)
		case a == "--rcfile" || a == "--init-file" || a == "-O" || a == "-o" || a == "+O" || a == "+o":
			if a == "--rcfile" || a == "--init-file" {
				f.prompt(High, name+" reads a command file ("+a+")")
			}
			i++
		case strings.HasPrefix(a, "--"):
		case (strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+")) && len(a) > 1:
			if strings.ContainsRune(a[1:], 'c') {
				inline = true
			}
		case inline:
			f.prompt(High, name+" -c runs inline shell code")
			outer := g.positional
			g.positional = args[i+1:] // $0, $1, ... of the code
			g.reviewInner(a, depth, f)
			g.positional = outer
			return name
		default:
			f.prompt(High, name+" runs the script file "+strconv.Quote(a))
			g.consumer.shell = g.consumer.shell || isStdinPath(a)
			return name
		}
	}
	if inline {
		f.prompt(High, name+" -c runs inline shell code")
	} else {
		f.prompt(High, name+" runs shell commands read from its input")
		g.consumer.shell = true
	}
	return name
}

// wrapOpaque is for programs that run other programs (or let a user do
// so) in ways the guard does not unwrap: they need approval, and their
// operands are still scanned for destructive payloads.
func wrapOpaque(g *guard, name string, args []string, depth int, f *finding) string {
	f.prompt(High, name+" runs other programs")
	if name == "at" || name == "batch" {
		g.consumer.shell = true // runs the commands it reads, later
	}
	if name == "parallel" && !slices.Contains(args, ":::") {
		g.consumer.xargs = append([]string{}, args...) // reads arguments like xargs
	}
	g.scanOperands(args, depth, f)
	return name
}

// isStdinPath names the standard input as a file.
func isStdinPath(p string) bool {
	switch p {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0", "-":
		return true
	}
	return false
}

// globProgram: a command name that is a glob (/bin/r?, /???/rm) runs
// whatever it matches; every known destructive program or wrapper it can
// match is judged for blocks.
func (g *guard) globProgram(pattern string, args []string, depth int, f *finding) {
	for _, names := range []map[string]bool{destructiveNames, wrapperNames} {
		for n := range names {
			if ok, _ := path.Match(pattern, n); ok {
				argv := append([]string{n}, args...)
				g.blocksOnly(f, func(tmp *finding) { g.judge(argv, depth+1, tmp) })
			}
		}
	}
}

// reviewInner reviews shell code held in an argument (sh -c, eval, su -c)
// and takes everything it finds.
func (g *guard) reviewInner(src string, depth int, f *finding) {
	if g.work += 16; g.work > maxWork {
		f.block("the command holds more shell code than the guard reviews")
		return
	}
	inner, _ := g.review(src, depth+1, false)
	f.merge(inner)
}

// scanOperands looks for a destructive command anywhere among args, for
// wrappers whose options the guard cannot parse for sure.
func (g *guard) scanOperands(args []string, depth int, f *finding) {
	checked := 0
	for i, a := range args {
		// An operand holding a space may be shell code the program runs
		// (tmux new 'rm -rf /', screen -X stuff).
		if strings.ContainsAny(a, " \t\n;|&") && !strings.HasPrefix(a, "-") {
			g.blocksOnly(f, func(tmp *finding) { g.reviewInner(a, depth, tmp) })
		}
		b := baseName(a)
		if !destructiveNames[b] && wrappers[b] == nil {
			continue
		}
		var tmp finding
		g.judge(args[i:], depth+1, &tmp)
		for _, r := range tmp.blocks {
			f.block(r)
		}
		// One wrapper is followed (it scans its own operands); two
		// destructive names are enough, and bound the work.
		if checked++; wrappers[b] != nil || checked >= 2 {
			return
		}
	}
}
