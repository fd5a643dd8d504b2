package shellguard

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The programs on this machine are the ground truth for what they accept.
// These tests skip a program that is not installed.

// helpTables are the tables checked against the program's own --help.
var helpTables = map[string]*optTable{
	"ls": lsOptions, "cat": catOptions, "tac": tacOptions, "nl": nlOptions, "head": headOptions, "tail": tailOptions,
	"wc": wcOptions, "grep": grepOptions, "sort": sortOptions, "uniq": uniqOptions, "diff": diffOptions, "cmp": cmpOptions,
	"comm": commOptions, "join": joinOptions, "paste": pasteOptions, "cut": cutOptions, "tr": trOptions, "fold": foldOptions,
	"fmt": fmtOptions, "expand": expandOptions, "unexpand": unexpandOptions, "od": odOptions, "sha256sum": sumOptions,
	"cksum": cksumOptions, "sum": bsdSumOptions, "base64": baseOptions, "stat": statOptions, "du": duOptions, "df": dfOptions,
	"basename": basenameOptions, "dirname": dirnameOptions, "realpath": realpathOptions, "readlink": readlinkOptions,
	"date": dateOptions, "uname": unameOptions, "id": idOptions, "nproc": nprocOptions, "free": freeOptions,
	"tty": ttyOptions, "printenv": printenvOptions, "seq": seqOptions, "column": columnOptions, "hexdump": hexdumpOptions,
	"strings": stringsOptions, "file": fileOptions, "man": manOptions, "hostname": hostnameOptions, "uptime": uptimeOptions,
	"locale": localeOptions, "sed": sedOptions, "jq": jqOptions, "rg": rgOptions, "tree": treeOptions,
}

// helpShort: "  -k, --key=KEYDEF" (a placeholder in capitals means an
// argument; "-p, --indicator-style=slash" names a value, not an argument).
var helpShort = regexp.MustCompile(`(?m)^\s*-([a-zA-Z0-9])(?:[,\s]|$)(?:\s*--([a-zA-Z0-9][-a-zA-Z0-9]*)(=[A-Z])?)?`)

var helpLong = regexp.MustCompile(`(?:^|[\s,\[(])--([a-zA-Z0-9][-a-zA-Z0-9]*)(\[=\]|\[=|=| [A-Z<])?`)

// TestTablesKnowEveryDocumentedOption: every long option a program's
// --help documents is in its table, so that an abbreviation resolves
// among the same names the program resolves it among, and the argument
// modes agree: --name[=X] is optional (attached only), --name=X required.
func TestTablesKnowEveryDocumentedOption(t *testing.T) {
	// Words --help shows that are not options of the program itself.
	notOptions := map[string]bool{"color=auto": true, "color=never": true, "sort=none": true, "sort=time": true,
		"indicator-style=slash": true, "time-style=full": true, "follow=name": true, "check=diagnose": true,
		"check=quiet": true, "check=silent": true, "directories=recurse": true, "binary-files=text": true,
		"binary-files=without": true, "radix=o": true,
		"print0": true} // rg --help names find's --print0
	for prog, tab := range helpTables {
		path, err := exec.LookPath(prog)
		if err != nil {
			t.Logf("%s is not installed; its table is not checked", prog)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, _ := exec.CommandContext(ctx, path, "--help").CombinedOutput()
		cancel()
		if ctx.Err() == context.DeadlineExceeded {
			t.Fatalf("%s --help did not finish within 10s", prog)
		}
		for _, m := range helpShort.FindAllStringSubmatch(string(out), -1) {
			c, long, required := m[1][0], m[2], m[3] != ""
			o := tab.short[c]
			if o == nil {
				if prog == "cut" && c == 'M' {
					continue // "-M  from first to M'th": a range, not an option
				}
				t.Errorf("%s --help documents -%c, which its table lacks", prog, c)
				continue
			}
			if long != "" && required && o.arg == argNone {
				t.Errorf("%s -%c takes an argument (--help: -%c, --%s=...), the table says none", prog, c, c, long)
			}
		}
		for _, m := range helpLong.FindAllStringSubmatch(string(out), -1) {
			name, form := m[1], m[2]
			if strings.HasPrefix(name, "GTYPE") || strings.HasPrefix(name, "LTYPE") {
				continue // diff's placeholders for its format options
			}
			o := tab.long[name]
			if o == nil {
				if !notOptions[name] {
					t.Errorf("%s --help documents --%s, which its table lacks", prog, name)
				}
				continue
			}
			switch {
			case form == "[=" && o.arg != argOptional:
				t.Errorf("%s --%s takes an optional argument (--help: --%s[=...]), the table says %d", prog, name, name, o.arg)
			case (form == "=" || form == "[=]") && o.arg == argNone: // tree's --sort[=]X: the = is optional
				t.Errorf("%s --%s takes an argument (--help: --%s=...), the table says none", prog, name, name)
			}
		}
	}
}

// TestRealProgramsReadOptionsAsTheEngine runs the real programs: what the
// engine reads as an abbreviation of a writing option writes, what it reads
// as ambiguous the program refuses as ambiguous.
func TestRealProgramsReadOptionsAsTheEngine(t *testing.T) {
	cases := []struct {
		prog string
		args []string
		// wrote is a file the program must have created; ambiguous: the
		// program must refuse the option as ambiguous.
		wrote     string
		ambiguous bool
	}{
		{prog: "sort", args: []string{"--ou=x1", "in.txt"}, wrote: "x1"},
		{prog: "sort", args: []string{"--o", "x2", "in.txt"}, wrote: "x2"},
		{prog: "sort", args: []string{"in.txt", "-o", "x3"}, wrote: "x3"},
		{prog: "sort", args: []string{"-ruox4", "in.txt"}, wrote: "x4"},
		{prog: "uniq", args: []string{"in.txt", "-c", "x5"}, wrote: "x5"},
		{prog: "xxd", args: []string{"-c8", "in.txt", "x6"}, wrote: "x6"},
		{prog: "xxd", args: []string{"-cols", "8", "in.txt", "x7"}, wrote: "x7"},
		{prog: "file", args: []string{"--comp", "-m", "magic"}, wrote: "magic.mgc"},
		{prog: "tree", args: []string{"-ao", "x8", "."}, wrote: "x8"},
		{prog: "rg", args: []string{"--pre", "./pre.sh", "a", "in.txt"}, wrote: "ran-pre"},
		{prog: "sort", args: []string{"--s", "in.txt"}, ambiguous: true},
		{prog: "sort", args: []string{"--random-so=in.txt", "in.txt"}, ambiguous: true},
		{prog: "ls", args: []string{"--ti=ctime"}, ambiguous: true},
		{prog: "ls", args: []string{"--al"}, ambiguous: true},
		{prog: "grep", args: []string{"--no", "a", "in.txt"}, ambiguous: true},
		{prog: "man", args: []string{"--pa=cat", "ls"}, ambiguous: true},
	}
	dir := t.TempDir()
	for name, body := range map[string]string{"in.txt": "b\na\na\n", "magic": "", "pre.sh": "#!/bin/sh\ntouch ran-pre\ncat \"$1\"\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ws := Options{WorkspaceRoot: dir}
	for _, c := range cases {
		cmdline := c.prog + " " + strings.Join(c.args, " ")
		// The guard's reading first.
		v := Check(cmdline, ws)
		if v.Decision == Allow {
			t.Errorf("guard allows %q", cmdline)
		}
		if c.ambiguous && !strings.Contains(strings.Join(v.Reasons, "; "), "ambiguous") {
			t.Errorf("guard reasons for %q = %q, want an ambiguous option", cmdline, v.Reasons)
		}
		path, err := exec.LookPath(c.prog)
		if err != nil {
			t.Logf("%s is not installed; %q is not run", c.prog, cmdline)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, path, c.args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "MANPAGER=cat", "PAGER=cat"}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		runErr := cmd.Run()
		cancel()
		if ctx.Err() == context.DeadlineExceeded {
			t.Fatalf("%q did not finish within 10s", cmdline)
		}
		if c.wrote != "" {
			if _, err := os.Stat(filepath.Join(dir, c.wrote)); err != nil {
				t.Errorf("%q did not write %s (%v, stderr %q): the engine's reading is not the program's", cmdline, c.wrote, runErr, stderr.String())
			}
		}
		if c.ambiguous && !strings.Contains(stderr.String(), "ambiguous") {
			t.Errorf("%q: stderr %q, want the program to refuse an ambiguous option", cmdline, stderr.String())
		}
	}
}

// TestRealProgramsResolvePrefixesAsTheEngine: for every long option of
// the getopt_long programs, the shortest prefix the engine reads as that
// option is read by the program as the same option (glibc names the option
// it resolved when refusing "--prefix=x" for a switch, or a missing
// argument), and the prefix one letter shorter, when the engine finds it
// ambiguous, is ambiguous to the program too. Both spellings make the
// program exit at once with a usage error, so nothing runs. A hidden option
// of the program that the table lacks shows here.
func TestRealProgramsResolvePrefixesAsTheEngine(t *testing.T) {
	skip := map[string]bool{"man": true, "jq": true, "locale": true} // argp or their own parsers
	dir := t.TempDir()
	for prog, tab := range helpTables {
		if skip[prog] || !tab.grammar.abbrev {
			continue
		}
		path, err := exec.LookPath(prog)
		if err != nil {
			continue
		}
		for _, long := range tab.names {
			o := tab.long[long]
			if o.arg == argOptional || strings.HasPrefix(long, "-") || o.longs[0] != long {
				continue
			}
			k := 1
			for ; k < len(long); k++ {
				if got, _ := tab.lookupLong(long[:k]); got == o {
					break
				}
			}
			prefix := long[:k]
			arg, want := "--"+prefix+"=x", "doesn't allow an argument"
			if o.arg == argRequired {
				arg, want = "--"+prefix, "requires an argument"
			}
			stderr := runUsageError(t, dir, path, arg)
			named := false
			for _, l := range o.longs {
				named = named || strings.Contains(stderr, "'--"+l+"' "+want)
			}
			if !named {
				t.Errorf("%s %s: the engine reads --%s, the program says %q", prog, arg, long, stderr)
			}
			if k > 1 {
				if _, problem := tab.lookupLong(long[:k-1]); strings.Contains(problem, "ambiguous") {
					if stderr := runUsageError(t, dir, path, "--"+long[:k-1]); !strings.Contains(stderr, "ambiguous") {
						t.Errorf("%s --%s: the engine finds it ambiguous, the program says %q", prog, long[:k-1], stderr)
					}
				}
			}
		}
	}
}

// runUsageError runs a program with one argument that it must refuse, and
// returns the first line of its standard error.
func runUsageError(t *testing.T, dir, path, arg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, arg)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("%s %s did not finish within 10s", path, arg)
	}
	if err == nil {
		t.Errorf("%s %s succeeded; it must be refused as a usage error", path, arg)
	}
	line, _, _ := strings.Cut(stderr.String(), "\n")
	return line
}
