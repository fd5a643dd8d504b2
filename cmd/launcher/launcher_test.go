package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/catalogsnap"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/plugins/plugintest"
)

// listVariants are every display mode, JSON and every provider, in the
// flag spellings the CLI accepts.
var listVariants = [][]string{
	{"tools", "list"},
	{"--tool-display", "quiet", "tools", "list"},
	{"--tool-display=summary", "tools", "list"},
	{"--tool-display", "full", "tools", "list"},
	{"--tool-display", "FULL", "tools", "list"},
	{"tools", "list", "--json"},
	{"tools", "list", "--provider", "openai"},
	{"tools", "list", "--provider=anthropic"},
	{"tools", "list", "--provider", "gemini", "--json"},
}

// strictCore has overrides that raise, one that tries to lower (a
// diagnostic on stderr) and one naming no tool (another).
const strictCore = `toolsets: [coding]
capabilities: [fs.read, fs.write]
tools:
  metadata:
    read_file: {risk: medium}
    write_file: {approval_policy: auto}
    nope: {risk: high}
`

func writeCore(t *testing.T, dir, yaml string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWarmListIsTheHostsOutput: after one run through the host fills the
// snapshot, the launcher answers every tools list variant itself, byte for
// byte as the host does, on the embedded core and on one with overrides
// and diagnostics.
func TestWarmListIsTheHostsOutput(t *testing.T) {
	r := newRig(t)
	strict := filepath.Join(t.TempDir(), "strict")
	writeCore(t, strict, strictCore)
	// Every variant on the embedded core; the text and JSON forms, which
	// carry the overrides, on the strict one.
	for _, run := range []struct {
		coreArgs []string
		variants [][]string
	}{{nil, listVariants}, {[]string{"--core", strict}, [][]string{listVariants[0], listVariants[3], listVariants[5]}}} {
		coreArgs := run.coreArgs
		if res, ran := r.hostRan(append(coreArgs, "tools", "list")...); !ran || res.code != 0 {
			t.Fatalf("cold run: host ran %v, %s", ran, res)
		}
		for _, v := range run.variants {
			args := append(append([]string(nil), coreArgs...), v...)
			res, ran := r.hostRan(args...)
			if ran {
				t.Errorf("%q: the launcher handed a warm tools list to the host", args)
			}
			if h := r.host(args...); res != h {
				t.Errorf("%q: the launcher and the host differ\nlauncher: %s\nhost: %s", args, res, h)
			}
		}
	}
	// Only the diagnostics core writes to stderr, and it does say so.
	res := r.launcher("--core", strict, "tools", "list")
	if !strings.Contains(res.stderr, `warning: tools.metadata names tool "nope"`) || !strings.Contains(res.stderr, "would weaken") {
		t.Errorf("diagnostics missing from stderr: %s", res)
	}
	if !strings.Contains(res.stdout, "read_file     builtin:coding  medium") {
		t.Errorf("override not applied: %s", res)
	}
	// The state and plugin directory also come from the environment.
	env := r.exec("demiurge", "", []string{"DEMIURGE_STATE=" + r.state, "DEMIURGE_PLUGIN_DIR=" + r.bin}, "tools", "list")
	if want := r.host("tools", "list"); env != want {
		t.Errorf("from the environment: %s\nwant %s", env, want)
	}
}

// stub replaces a binary with a shell script of the same size and
// modification time that records that it ran and exits 3: every snapshot
// key and describe cache entry still matches, so anything that would run
// it is caught.
func stub(t *testing.T, path, marker string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$0\" >> '" + marker + "'\nexit 3\n"
	pad := int(st.Size()) - len(script)
	if pad < 0 {
		t.Fatalf("%s is smaller than the stub", path)
	}
	if err := os.WriteFile(path, []byte(script+strings.Repeat("#", pad)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestWarmListStartsNoProcess replaces the full host and the plugin with
// stubs that would fail: a warm tools list still answers, and runs neither;
// any other command reaches the (stubbed) host.
func TestWarmListStartsNoProcess(t *testing.T) {
	r := newRig(t)
	if res := r.launcher("tools", "list"); res.code != 0 {
		t.Fatalf("cold run: %s", res)
	}
	want := r.launcher("--tool-display", "full", "tools", "list")
	marker := filepath.Join(t.TempDir(), "ran")
	stub(t, filepath.Join(r.bin, HostBinary), marker)
	stub(t, filepath.Join(r.bin, "demiurge-toolset-coding"), marker)

	got := r.launcher("--tool-display", "full", "tools", "list")
	if got != want || got.code != 0 {
		t.Errorf("warm list with stubbed host and plugin:\n%s\nwant\n%s", got, want)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a warm tools list ran %s", b)
	}
	if res := r.launcher("plugins", "list"); res.code != 3 {
		t.Fatalf("plugins list did not reach the host: %s", res)
	}
	if b, err := os.ReadFile(marker); err != nil || !strings.Contains(string(b), "demiurge") {
		t.Fatalf("the stubbed host did not record its run: %q, %v", b, err)
	}
}

// TestEverythingElsePassesThrough: other commands, usage mistakes and the
// cases the launcher is unsure of reach the host with their exit codes
// (0, 1, 2) and streams, stdin included.
func TestEverythingElsePassesThrough(t *testing.T) {
	r := newRig(t)
	r.launcher("tools", "list") // warm, so that a pass-through is a choice
	rel := "relative-ws"
	if err := os.Mkdir(filepath.Join(r.ws, rel), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--help"}, 0},
		{[]string{"tools", "show", "read_file"}, 0},
		{[]string{"tools", "show", "read_file", "--json"}, 0},
		{[]string{"plugins", "verify"}, 0},
		{[]string{"tools", "show", "nope"}, 1},
		{[]string{"--workspace", rel, "tools", "list"}, 1},
		{[]string{"--workspace", "/does/not/exist", "tools", "list"}, 1},
		{[]string{"--core", "/does/not/exist", "tools", "list"}, 1},
		{[]string{"tools", "list", "extra"}, 2},
		{[]string{"tools", "list", "--provider", "openia"}, 2},
		{[]string{"--tool-display", "loud", "tools", "list"}, 2},
		{[]string{"tools", "list", "--jsn"}, 2},
		{[]string{"no-such-command"}, 2},
	}
	for _, tt := range tests {
		res := r.sameAsHost(tt.args...)
		if res.code != tt.code {
			t.Errorf("%q: exit %d, want %d\n%s", tt.args, res.code, tt.code, res)
		}
	}
	// stdin reaches the host: the call's arguments are read from it.
	res := r.exec("demiurge", `{"path":"words.txt"}`, nil, "--state", r.state, "tools", "call", "read_file", "@/dev/stdin")
	if res.code != 0 || !strings.Contains(res.stdout, "one two three") {
		t.Errorf("tools call with arguments on stdin: %s", res)
	}
}

// TestChangesAreMisses changes each input of the snapshot the way an
// operator does; the next tools list goes to the host, shows the change,
// and the one after is warm again.
func TestChangesAreMisses(t *testing.T) {
	r := newRig(t)
	coreDir := filepath.Join(t.TempDir(), "core")
	writeCore(t, coreDir, strictCore)
	list := []string{"--core", coreDir, "tools", "list"}
	installed := filepath.Join(r.state, "plugins")
	textstats := filepath.Join(installed, plugins.BinaryPrefix+"textstats")
	later := time.Now().Add(time.Hour)
	appendTo := func(path, text string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	steps := []struct {
		name   string
		change func()
		check  func(res result) bool
		warm   bool // the host records a new snapshot
	}{
		{"agent.yaml changed", func() { writeCore(t, coreDir, strictCore+"name: renamed\n") },
			func(res result) bool { return res.code == 0 }, true},
		{"override changed", func() { writeCore(t, coreDir, strings.Replace(strictCore, "risk: medium", "risk: high", 1)) },
			func(res result) bool { return strings.Contains(res.stdout, "read_file     builtin:coding  high") }, true},
		// The core names textstats in toolsets: (a core directory gets
		// only the installed toolsets it names).
		{"plugin installed", func() {
			if err := plugintest.Copy(r.examples, installed, "textstats"); err != nil {
				t.Fatal(err)
			}
			writeCore(t, coreDir, strings.Replace(strings.Replace(strictCore, "risk: medium", "risk: high", 1), "toolsets: [coding]", "toolsets: [coding, textstats]", 1))
		}, func(res result) bool { return strings.Contains(res.stdout, "text_stats") }, true},
		{"plugin rebuilt", func() {
			appendTo(textstats, "rebuilt") // bytes after the ELF image: it still runs
			if _, err := plugins.WriteChecksum(textstats); err != nil {
				t.Fatal(err)
			}
		}, func(res result) bool { return strings.Contains(res.stdout, "text_stats") }, true},
		{"built-in plugin touched", func() {
			os.Chtimes(filepath.Join(r.bin, "demiurge-toolset-coding"), later, later)
		}, func(res result) bool { return strings.Contains(res.stdout, "read_file") }, true},
		{"full host rebuilt", func() {
			os.Chtimes(filepath.Join(r.bin, HostBinary), later, later)
		}, func(res result) bool { return strings.Contains(res.stdout, "read_file") }, true},
		{"plugin tampered", func() { appendTo(textstats, "tampered") }, func(res result) bool {
			return !strings.Contains(res.stdout, "text_stats") && strings.Contains(res.stderr, "left out of the catalog")
		}, false},
	}
	if _, ran := r.hostRan(list...); !ran {
		t.Fatal("the first run did not go to the host")
	}
	if _, ran := r.hostRan(list...); ran {
		t.Fatal("the second run is not warm")
	}
	for _, st := range steps {
		st.change()
		res, ran := r.hostRan(list...)
		if !ran {
			t.Fatalf("%s: the launcher answered from a stale snapshot:\n%s", st.name, res)
		}
		if !st.check(res) {
			t.Errorf("%s: the output does not show the change:\n%s", st.name, res)
		}
		again, ran := r.hostRan(list...)
		if ran == st.warm {
			t.Errorf("%s: the run after the change went to the host: %v, want %v", st.name, ran, !st.warm)
		}
		if h := r.host(list...); again != h {
			t.Errorf("%s: launcher and host differ\nlauncher: %s\nhost: %s", st.name, again, h)
		}
	}
	entries, _ := os.ReadDir(catalogsnap.Dir(r.state))
	if len(entries) != 1 {
		t.Errorf("%d snapshot files for one core and host; each new snapshot should replace the last", len(entries))
	}
}

// TestMissingHost names the remedy.
func TestMissingHost(t *testing.T) {
	r := newRig(t)
	if err := os.Remove(filepath.Join(r.bin, HostBinary)); err != nil {
		t.Fatal(err)
	}
	res := r.launcher("plugins", "list")
	if res.code != 1 || !strings.Contains(res.stderr, "make build") || !strings.Contains(res.stderr, HostBinary) {
		t.Fatalf("without the host: %s", res)
	}
}

// TestUncacheableCoresGoToTheHost: a core with slots gets no snapshot.
func TestUncacheableCoresGoToTheHost(t *testing.T) {
	r := newRig(t)
	coreDir := filepath.Join(t.TempDir(), "slots")
	writeCore(t, coreDir, "toolsets: [coding]\nslots:\n  tools: tools\n")
	if err := os.Mkdir(filepath.Join(coreDir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, ran := r.hostRan("--core", coreDir, "tools", "list"); !ran {
			t.Fatalf("run %d of a core with slots.tools did not go to the host", i+1)
		}
	}
}

// TestPackageProblemsAreReadLive: a package whose slot is gone is left out
// with a warning the host prints on every start; the launcher reads the
// lock as the host does and prints the same, from a warm snapshot.
func TestPackageProblemsAreReadLive(t *testing.T) {
	r := newRig(t)
	r.launcher("tools", "list")
	if err := os.MkdirAll(filepath.Join(r.state, "packages"), 0o700); err != nil {
		t.Fatal(err)
	}
	lock := &installed.Lock{Version: installed.Version, Packages: []installed.Locked{{
		Name: "weather", Version: "1.0.0", Protocol: 1, Core: installed.EmbeddedCore, Slot: "weather",
		SlotPath: filepath.Join(r.state, "packages", "default-core", "tools", "weather"), PluginDir: filepath.Join(r.state, "nowhere"),
	}}}
	if err := lock.Write(r.state); err != nil {
		t.Fatal(err)
	}
	res, ran := r.hostRan("tools", "list")
	if ran {
		t.Fatal("a package left out changed nothing the snapshot depends on, yet the launcher handed over")
	}
	if !strings.Contains(res.stderr, "warning: package weather is left out") {
		t.Errorf("the package problem is not shown: %s", res)
	}
	if h := r.host("tools", "list"); res != h {
		t.Errorf("launcher and host differ\nlauncher: %s\nhost: %s", res, h)
	}
}

// TestDefaultStateDirectory: without --state or DEMIURGE_STATE, the state
// is $XDG_STATE_HOME/demiurge, else ~/.local/state/demiurge, as the full
// CLI resolves it; the launcher finds the host's snapshot there.
func TestDefaultStateDirectory(t *testing.T) {
	r := newRig(t)
	xdg := filepath.Join(t.TempDir(), "xdg")
	for _, tc := range []struct {
		env   []string
		state string
	}{
		{[]string{"XDG_STATE_HOME=" + xdg}, filepath.Join(xdg, "demiurge")},
		{nil, filepath.Join(r.home, ".local", "state", "demiurge")},
	} {
		if res := r.exec("demiurge", "", tc.env, "tools", "list"); res.code != 0 {
			t.Fatalf("cold run: %s", res)
		}
		log := filepath.Join(tc.state, "logs", "host.log")
		if err := os.Remove(log); err != nil {
			t.Fatalf("the host did not use %s: %v", tc.state, err)
		}
		res := r.exec("demiurge", "", tc.env, "tools", "list")
		if _, err := os.Stat(log); err == nil || res.code != 0 || !strings.Contains(res.stdout, "read_file") {
			t.Errorf("%v: warm run not answered by the launcher from %s: %s", tc.env, tc.state, res)
		}
	}
}

// TestVersionAndHelpAreAnsweredWithoutTheHost: `--version`, `version`,
// `help`, `--help` and `-h` print exactly what the host prints, with the
// host replaced by a stub that records any run; `version --json` and
// anything else still reach the host.
func TestVersionAndHelpAreAnsweredWithoutTheHost(t *testing.T) {
	r := newRig(t)
	asks := []string{"--version", "version", "help", "--help", "-h"}
	want := map[string]result{}
	for _, a := range asks {
		if want[a] = r.exec(HostBinary, "", nil, a); want[a].code != 0 || want[a].stdout == "" {
			t.Fatalf("the host's %s: %s", a, want[a])
		}
	}
	marker := filepath.Join(t.TempDir(), "ran")
	stub(t, filepath.Join(r.bin, HostBinary), marker)
	for _, a := range asks {
		if got := r.exec("demiurge", "", nil, a); got != want[a] {
			t.Errorf("%s through the launcher:\n%s\nwant the host's\n%s", a, got, want[a])
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the host ran for %s", b)
	}
	for _, args := range [][]string{{"version", "--json"}, {"--version", "--json"}, {"help", "tools"}, {"--state", r.state, "--version"}} {
		if res := r.exec("demiurge", "", nil, args...); res.code != 3 {
			t.Errorf("%q did not reach the host: %s", args, res)
		}
	}
}
