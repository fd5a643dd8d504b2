package shellguard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// The strace oracle: what the guard allows must, run for real, write
// nothing, execute nothing but what the command names, and open no
// socket. Every Allow row of the guard's tables runs in a scratch
// workspace (a small git repository with the files the rows name) under
// strace -f, with a terminal-like environment (HOME an empty temp dir, a
// plain PATH, stdin /dev/null), and its trace is read:
//   - no open/openat/openat2/creat with O_WRONLY, O_RDWR, O_CREAT or O_TRUNC
//     (except /dev/null and /dev/tty), and no call that changes the file
//     system (mkdir, unlink, rename, link, symlink, chmod, chown, truncate,
//     utime, mknod, setxattr and their *at forms), attempted or not;
//   - every successful execve runs the shell or a program named by a word
//     of the row, at the path PATH resolves it to (or a helper of it
//     listed in oracleHelpers);
//   - no socket but AF_UNIX, and an AF_UNIX socket may only connect to the
//     name service (nscd, systemd userdb): a local, read-only lookup of
//     users and groups that ls -l and whoami make.

// allowRows are every Allow row of the guard's tables, for the oracle.
// After a merge, add the other tables' Allow rows here.
func allowRows() []string {
	var out []string
	for _, tab := range [][]row{table, allowNearPayloads} {
		for _, r := range tab {
			if r.decision == Allow {
				out = append(out, r.cmd)
			}
		}
	}
	// The coding session's commands must all be allowed (TestSessionCommandsRunUnasked);
	// they run here too.
	out = append(out, sessionCommands...)
	return out
}

// allowNearPayloads are allowed commands that name a payload without
// running it; the guard must allow them and the oracle must find them
// harmless.
var allowNearPayloads = []row{
	{"echo 'rm -rf /' | cat", Allow, Low},
	{"printf 'rm -rf /\\n'", Allow, Low},
	{"grep -c 'rm -rf' README.md", Allow, Low},
	{"echo 'kill -9 -1'", Allow, Low},
	{"echo ':(){ :|:& };:'", Allow, Low},
	{"cat README.md | grep -v mkfs", Allow, Low},
	{"echo /dev/sda", Allow, Low},
	{"echo 'dd of=/dev/sda' | wc -c", Allow, Low},
}

func TestAllowNearPayloads(t *testing.T) {
	for _, r := range allowNearPayloads {
		if v := Check(r.cmd, tableOptions); v.Decision != r.decision || v.Risk != r.risk {
			t.Errorf("Check(%q) = %v/%v %q, want %v/%v", r.cmd, v.Decision, v.Risk, v.Reasons, r.decision, r.risk)
		}
	}
}

// oracleHelpers are programs a named program runs by design, by base name.
var oracleHelpers = map[string][]string{
	// man formats with the groff pipeline and may decompress the page.
	"man": {"preconv", "tbl", "nroff", "groff", "troff", "grotty", "gtbl", "eqn", "neqn", "pic", "refer", "col", "zsoelim", "gzip", "zcat", "less", "pager", "sh", "bash", "mandb", "manconv", "iconv"},
}

// oracleRunsForever are rows that run until stopped; they are stopped after
// this long and their trace is still read.
var oracleRunsForever = map[string]bool{
	"tail -f app.log": true, "tail -f server.log": true, "tail --pi=1 -f app.log": true, "tail -20f app.log": true, "tail -f -s 2 app.log": true,
}

// knownOracleFailures are rows the guard allows that the oracle finds
// doing more than reading, with why. They are run and
// their violations logged, not failed; an entry whose failure does not
// depend on the machine's state is in knownOracleFailuresStable, and the
// test fails when it passes, so that the list never goes stale.
var knownOracleFailures = map[string]string{}

var knownOracleFailuresStable = map[string]bool{}

func TestStraceOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("the strace oracle runs every allow row for real")
	}
	ran := runOracleOn(t, newOracle(t), allowRows(), tableOptions)
	t.Logf("%d allow rows run under strace", ran)
}

// TestStraceOracleFuzzCorpus runs the oracle over what the guard allows of
// FuzzCheck's corpus (testdata/fuzz/FuzzCheck), when there is one.
func TestStraceOracleFuzzCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the strace oracle runs commands for real")
	}
	cmds, err := fuzzCorpus(filepath.Join("testdata", "fuzz", "FuzzCheck"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) == 0 {
		t.Skip("no FuzzCheck corpus in testdata/fuzz")
	}
	ran := runOracleOn(t, newOracle(t), cmds, tableOptions)
	t.Logf("%d of %d corpus entries allowed and run under strace", ran, len(cmds))
}

// runOracleOn runs the oracle on every command of cmds the guard allows
// under opts, fails the test on each violation, and returns how many ran.
func runOracleOn(t *testing.T, o *oracle, cmds []string, opts Options) int {
	t.Helper()
	ran := 0
	for _, cmd := range cmds {
		if v := Check(cmd, opts); v.Decision != Allow {
			continue
		}
		if missing := o.missingPrograms(cmd); len(missing) > 0 {
			t.Logf("not run, not installed: %q needs %v", cmd, missing)
			continue
		}
		limit, forever := oracleDeadline, oracleRunsForever[cmd]
		if forever {
			limit = oracleForever
		}
		violations, err := o.run(cmd, limit, forever)
		if err != nil {
			t.Errorf("oracle could not run %q: %v", cmd, err)
			continue
		}
		ran++
		if why, known := knownOracleFailures[cmd]; known {
			if len(violations) == 0 && knownOracleFailuresStable[cmd] {
				t.Errorf("%q passes the oracle now; remove it from knownOracleFailures (%s)", cmd, why)
			} else {
				t.Logf("known failure %q (%s): %v", cmd, why, violations)
			}
			continue
		}
		for _, v := range violations {
			t.Errorf("allowed %q %s", cmd, v)
		}
	}
	return ran
}

// fuzzCorpus reads the string inputs of a Go fuzz corpus directory.
func fuzzCorpus(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if q, ok := strings.CutPrefix(line, "string("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out, nil
}

// TestStraceOracleCatches: the oracle itself sees a write, an exec of an
// unnamed program and a socket, so that a pass means something.
func TestStraceOracleCatches(t *testing.T) {
	o := newOracle(t)
	for cmd, want := range map[string]string{
		"echo hi > out.txt":                           "opens for writing",
		"echo hi >> README.md":                        "opens for writing",
		"mkdir newdir":                                "changes the file system",
		"touch README.md":                             "opens for writing",
		"rm -f a.txt":                                 "changes the file system",
		"git -c alias.x='!id' x":                      "executes",
		`sh -c "i''d"`:                                "executes /usr/bin/id",
		"exec 3<>/dev/tcp/127.0.0.1/9":                "socket",
		"python3 -c 'import socket; socket.socket()'": "socket",
		"git status":                                  "",
		"GIT_OPTIONAL_LOCKS=1 git status":             "opens for writing",
	} {
		if missing := o.missingPrograms(cmd); len(missing) > 0 {
			t.Logf("not run, not installed: %q needs %v", cmd, missing)
			continue
		}
		vs, err := o.run(cmd, oracleDeadline, false)
		if err != nil {
			t.Fatalf("run %q: %v", cmd, err)
		}
		got := strings.Join(vs, "; ")
		switch {
		case want == "" && got != "":
			t.Logf("%q: %s", cmd, got) // informational: git status is judged by TestStraceOracle
		case want != "" && !strings.Contains(got, want):
			t.Errorf("oracle on %q = %q, want a violation %q", cmd, got, want)
		}
	}
}

// oracle runs commands in a scratch workspace under strace.
type oracle struct {
	t               *testing.T
	strace, bash    string
	workspace, home string
	traces          string
	env             []string
	path            string
}

func newOracle(t *testing.T) *oracle {
	t.Helper()
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (make test installs it: scripts/test-deps): the oracle cannot run")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	base := t.TempDir()
	o := &oracle{t: t, strace: strace, bash: bash, workspace: filepath.Join(base, "proj"), home: filepath.Join(base, "home"),
		traces: filepath.Join(base, "traces"), path: "/usr/local/bin:/usr/bin:/bin"}
	for _, d := range []string{o.workspace, o.home, o.traces} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o.env = []string{"PATH=" + o.path, "HOME=" + o.home, "LANG=C.UTF-8", "TERM=dumb", "USER=" + os.Getenv("USER"), "TZ=UTC",
		// The variables of policy.GuardedGitEnv, which dispatch adds for a
		// command the guard allowed (shellguard cannot import policy):
		// without GIT_OPTIONAL_LOCKS=0 git status rewrites .git/index.
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"}
	o.makeWorkspace()
	return o
}

// scratchFiles are the files the rows name.
var scratchFiles = map[string]string{
	"README.md": "# demo\nrm -rf is mentioned here\n", "main.go": "package main\n\nfunc main() {\n\t// TODO: more\n}\n",
	"src/main.go": "package main\n\nfunc main() {}\n", "src/util.go": "package main\n// TODO\n", "log.txt": "one\ntwo\n",
	"app.log": "started\n", "file.txt": "foo\nbar\nfoo bar\n", "names.txt": "b\na\nc\n", "data.txt": "k:1 x\nj:2 y\n",
	"sorted.txt": "a\na\nb\n", "a.txt": "a\n", "b.txt": "b\n", "old.go": "package a\n", "new.go": "package b\n",
	"go.mod": "module demo\n\ngo 1.26\n", "go.sum": "", "package.json": `{"name": "demo"}` + "\n", "main.bin": "\x00\x01\x02binary",
	"notes.txt": "a1\nb22\n",
}

func (o *oracle) makeWorkspace() {
	t := o.t
	for name, body := range scratchFiles {
		p := filepath.Join(o.workspace, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = o.workspace, append(o.env, "GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "Demo")
	git("config", "user.email", "demo@example.invalid")
	git("add", "-A")
	git("commit", "-qm", "first")
	if err := os.WriteFile(filepath.Join(o.workspace, "main.go"), []byte(scratchFiles["main.go"]+"// second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-qam", "second")
	git("tag", "v1.0")
	git("branch", "feat-x")
	git("remote", "add", "origin", "https://example.invalid/demo.git")
	// The index is fresh, so that a read-only git status has nothing to
	// refresh (a stale index would be rewritten by an optional lock).
	git("update-index", "--refresh")
}

// commandWords are the base names of every word of cmd's simple commands.
func commandWords(cmd string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil
	}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			for _, w := range c.Args {
				out = append(out, baseName(readWord(w).text))
			}
		}
		return true
	})
	return out
}

// programs are the words of cmd that name a program on PATH, resolved.
func (o *oracle) programs(cmd string) map[string]string {
	out := map[string]string{}
	for _, w := range commandWords(cmd) {
		if w == "" || strings.ContainsAny(w, " =") {
			continue
		}
		if p, err := lookPathIn(w, o.path); err == nil {
			out[w] = p
		}
	}
	return out
}

// missingPrograms are the row's command names (first words) that neither
// bash nor PATH knows.
func (o *oracle) missingPrograms(cmd string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil
	}
	var missing []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			name := readWord(c.Args[0]).text
			if !bashBuiltins[name] {
				if _, err := lookPathIn(name, o.path); err != nil {
					missing = append(missing, name)
				}
			}
		}
		return true
	})
	return missing
}

var bashBuiltins = map[string]bool{"echo": true, "printf": true, "pwd": true, "test": true, "[": true, "true": true, "false": true,
	"command": true, "builtin": true, "exec": true, "time": true, "cd": true, "type": true, ":": true, "!": true}

func lookPathIn(name, pathList string) (string, error) {
	if strings.Contains(name, "/") {
		return "", errors.New("a path")
	}
	for _, dir := range filepath.SplitList(pathList) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// oracleDeadline bounds one row; a row in oracleRunsForever is stopped
// after oracleForever.
const (
	oracleDeadline = 30 * time.Second
	oracleForever  = 2 * time.Second
)

// run traces cmd and returns its violations. A command still running at
// limit is an error unless forever says it runs until stopped; its trace
// is read either way.
func (o *oracle) run(cmd string, limit time.Duration, forever bool) ([]string, error) {
	trace := filepath.Join(o.traces, fmt.Sprintf("t%d.txt", time.Now().UnixNano()))
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := exec.CommandContext(ctx, o.strace, "-f", "-qq", "-s", "256", "-e", "trace=%file,%process,%network,creat", "-o", trace, o.bash, "-c", cmd)
	c.Dir, c.Env = o.workspace, o.env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 5 * time.Second
	out, err := c.CombinedOutput()
	if ctx.Err() != nil && !forever {
		return nil, fmt.Errorf("did not finish within %v: %s", limit, out)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && ctx.Err() == nil {
		return nil, fmt.Errorf("strace: %v: %s", err, out)
	}
	f, err := os.Open(trace)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return o.judgeTrace(cmd, f)
}

var (
	traceLine    = regexp.MustCompile(`^(\d+)\s+(.*)$`)
	callName     = regexp.MustCompile(`^([a-z0-9_]+)\(`)
	firstString  = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	writeFlags   = regexp.MustCompile(`O_WRONLY|O_RDWR|O_CREAT|O_TRUNC`)
	changingCall = map[string]bool{"mkdir": true, "mkdirat": true, "rmdir": true, "unlink": true, "unlinkat": true, "rename": true,
		"renameat": true, "renameat2": true, "link": true, "linkat": true, "symlink": true, "symlinkat": true, "chmod": true,
		"fchmodat": true, "fchmodat2": true, "chown": true, "lchown": true, "fchownat": true, "truncate": true, "utime": true,
		"utimes": true, "utimensat": true, "futimesat": true, "mknod": true, "mknodat": true, "setxattr": true, "lsetxattr": true,
		"removexattr": true, "lremovexattr": true, "creat": true, "mount": true, "umount2": true, "pivot_root": true, "chroot": true, "swapon": true}
	harmlessWrite = map[string]bool{"/dev/null": true, "/dev/tty": true}
	nameService   = []string{"/var/run/nscd/socket", "/run/nscd/socket", "/run/systemd/userdb/"}
)

// judgeTrace reads strace -f output. Calls split by another process's
// line (<unfinished ...> then <... resumed>) are joined per pid.
func (o *oracle) judgeTrace(cmd string, f *os.File) ([]string, error) {
	allowed := map[string]bool{o.bash: true}
	named := o.programs(cmd)
	for _, p := range named {
		allowed[p] = true
	}
	var helpers []string
	for w := range named {
		helpers = append(helpers, oracleHelpers[w]...)
	}
	pending := map[string]string{}
	var out []string
	add := func(v string) {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := traceLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		pid, line := m[1], m[2]
		if head, ok := strings.CutSuffix(line, " <unfinished ...>"); ok {
			pending[pid] = head
			continue
		}
		if strings.HasPrefix(line, "<... ") {
			_, rest, _ := strings.Cut(line, " resumed>")
			line = pending[pid] + rest
			delete(pending, pid)
		}
		cm := callName.FindStringSubmatch(line)
		if cm == nil {
			continue
		}
		call := cm[1]
		arg := ""
		if s := firstString.FindStringSubmatch(line); s != nil {
			arg = s[1]
		}
		switch {
		case call == "open" || call == "openat" || call == "openat2":
			if writeFlags.MatchString(line) && !harmlessWrite[arg] {
				add(fmt.Sprintf("opens for writing: %s", line))
			}
		case changingCall[call]:
			add(fmt.Sprintf("changes the file system: %s", line))
		case call == "execve" || call == "execveat":
			if !strings.HasSuffix(line, "= 0") {
				continue // a failed attempt of a PATH search
			}
			if !allowed[arg] && !slices.Contains(helpers, filepath.Base(arg)) {
				add(fmt.Sprintf("executes %s, which the command does not name", arg))
			}
		case call == "socket" || call == "socketpair":
			if !strings.Contains(line, "AF_UNIX") {
				add(fmt.Sprintf("opens a socket: %s", line))
			}
		case call == "connect" || call == "bind" || call == "sendto" || call == "sendmsg":
			if !strings.Contains(line, "AF_UNIX") {
				if strings.Contains(line, "sa_family") {
					add(fmt.Sprintf("uses a socket: %s", line))
				}
				continue
			}
			ok := call == "connect"
			if ok {
				ok = false
				for _, ns := range nameService {
					if strings.Contains(line, `sun_path="`+ns) {
						ok = true
					}
				}
			}
			if !ok {
				add(fmt.Sprintf("uses a local socket: %s", line))
			}
		}
	}
	return out, sc.Err()
}
