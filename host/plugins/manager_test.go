package plugins

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"demiurge.dev/shared/toolsetv1"
)

// fixtures are real plugin binaries built once for the package's tests.
var fixtures string

// onMainThread runs a function on the process's main thread, which
// TestMain holds (TestAPluginIsNeverConfinedOnTheMainThread).
var onMainThread = make(chan func())

func TestMain(m *testing.M) {
	// The main goroutine keeps the main thread and serves onMainThread
	// while the tests run on other goroutines.
	runtime.LockOSThread()
	ended := make(chan int)
	go func() { ended <- testMain(m) }()
	for {
		select {
		case f := <-onMainThread:
			f()
		case code := <-ended:
			os.Exit(code)
		}
	}
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "demiurge-plugin-fixtures-")
	if err != nil {
		panic(err)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		for name, pkg := range map[string]string{
			"fixture":   "demiurge.dev/sdk/testtoolsets/fixture",
			"garbage":   "demiurge.dev/sdk/testtoolsets/garbage",
			"protocol2": "demiurge.dev/sdk/testtoolsets/protocol2",
			"textstats": "demiurge.dev/sdk/example/textstats",
			"coding":    "demiurge.dev/plugins/coding",
			"hostile":   "demiurge.dev/sdk/testtoolsets/hostile",
			"hostilew":  "demiurge.dev/sdk/testtoolsets/hostile", // its tool declares a write
			"hostilen":  "demiurge.dev/sdk/testtoolsets/hostile", // its tool declares the network
			"hostilex":  "demiurge.dev/sdk/testtoolsets/hostile", // toolset hostile, its tool declares both
		} {
			out := filepath.Join(dir, BinaryPrefix+name)
			if b, err := exec.Command("go", "build", "-ldflags", hostileFlags[name], "-o", out, pkg).CombinedOutput(); err != nil {
				panic("build " + pkg + ": " + err.Error() + "\n" + string(b))
			}
			if _, err := WriteChecksum(out); err != nil {
				panic(err)
			}
		}
		fixtures = dir
		return m.Run()
	}()
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreCurrent(), goleak.IgnoreTopFunction("demiurge.dev/host/plugins.newSpawner.func1"), goleak.IgnoreAnyFunction("demiurge.dev/host/plugins.newSpawner.func1")); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	return code
}

// pluginDir copies the named fixtures into a fresh directory, so a test
// may tamper with them.
func pluginDir(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		for _, suffix := range []string{"", ".sha256"} {
			b, err := os.ReadFile(filepath.Join(fixtures, BinaryPrefix+n+suffix))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, BinaryPrefix+n+suffix), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func newManager(t *testing.T, dir, cache string) *Manager {
	t.Helper()
	m, err := New(Config{Dirs: []Dir{{Path: dir, Origin: OriginBuiltin}}, CacheDir: cache, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func call(t *testing.T, m *Manager, plugin, tool, args string) (*toolsetv1.ToolResult, []*toolsetv1.InvokeEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var events []*toolsetv1.InvokeEvent
	res, err := m.Invoke(ctx, plugin, &toolsetv1.EffectRequest{
		InvocationId: t.Name() + tool + time.Now().String(), Tool: tool, Arguments: []byte(args), Workspace: t.TempDir(),
	}, Hooks{}, func(ev *toolsetv1.InvokeEvent) error { events = append(events, ev); return nil })
	return res, events, err
}

func TestInvokeStreamsEventsAndResult(t *testing.T) {
	m := newManager(t, pluginDir(t, "fixture"), "")
	res, events, err := call(t, m, "fixture", "echo", `{"text":"hello"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.GetContent() != "hello" || res.GetIsError() {
		t.Fatalf("result = %+v", res)
	}
	if len(events) != 1 || string(events[0].GetOutput().GetData()) != "hello" {
		t.Fatalf("events = %v", events)
	}
}

func TestDescribeCacheAvoidsStartingPlugins(t *testing.T) {
	dir, cache := pluginDir(t, "fixture"), t.TempDir()
	m1 := newManager(t, dir, cache)
	d, err := m1.Describe(context.Background(), "fixture")
	if err != nil || d.Cached || d.Protocol != 1 || len(d.GetTools()) == 0 {
		t.Fatalf("first describe: %+v, %v", d, err)
	}
	m1.Close()

	m2 := newManager(t, dir, cache)
	d, err = m2.Describe(context.Background(), "fixture")
	if err != nil || !d.Cached || d.GetVersion() != "0.0.1" {
		t.Fatalf("second describe should come from the cache: %+v, %v", d, err)
	}
	if st := m2.Statuses()[0]; st.State == "running" || st.PID != 0 {
		t.Fatalf("a cached describe started the plugin: %+v", st)
	}
	// Touching the binary invalidates the entry.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(dir, BinaryPrefix+"fixture"), later, later); err != nil {
		t.Fatal(err)
	}
	m3 := newManager(t, dir, cache)
	if d, err := m3.Describe(context.Background(), "fixture"); err != nil || d.Cached {
		t.Fatalf("a changed binary must not be served from the cache: %+v, %v", d, err)
	}
}

func TestCrashMidCallFailsThatCallOnly(t *testing.T) {
	m := newManager(t, pluginDir(t, "fixture"), "")
	if _, _, err := call(t, m, "fixture", "echo", `{"text":"before"}`); err != nil {
		t.Fatal(err)
	}
	_, _, err := call(t, m, "fixture", "crash", `{}`)
	if err == nil || !strings.Contains(err.Error(), "exited during the call") {
		t.Fatalf("crash error = %v", err)
	}
	res, _, err := call(t, m, "fixture", "echo", `{"text":"after"}`)
	if err != nil || res.GetContent() != "after" {
		t.Fatalf("call after crash: %v, %v", res, err)
	}
}

func TestChecksumMismatchIsRefusedBeforeStart(t *testing.T) {
	dir := pluginDir(t, "fixture")
	bin := filepath.Join(dir, BinaryPrefix+"fixture")
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("tampered"))
	f.Close()
	m := newManager(t, dir, "")
	_, _, err = call(t, m, "fixture", "echo", `{"text":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "refused and was not started") {
		t.Fatalf("tampered plugin: %v", err)
	}
	if st := m.Statuses()[0]; st.State != "refused" {
		t.Fatalf("status = %+v", st)
	}
	if _, ok, _ := m.Verify("fixture"); ok {
		t.Fatal("Verify passed a tampered binary")
	}
}

func TestMissingChecksumIsRefused(t *testing.T) {
	dir := pluginDir(t, "fixture")
	os.Remove(filepath.Join(dir, BinaryPrefix+"fixture.sha256"))
	m := newManager(t, dir, "")
	_, _, err := call(t, m, "fixture", "echo", `{"text":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "no recorded checksum") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadPluginsAreRefusedClearly(t *testing.T) {
	for _, tc := range []struct{ plugin, want string }{
		{"garbage", "wrote to stdout before its handshake"},
		{"protocol2", "speaks toolset protocol 2; this host speaks protocol 1"},
	} {
		t.Run(tc.plugin, func(t *testing.T) {
			m := newManager(t, pluginDir(t, tc.plugin), "")
			_, err := m.Describe(context.Background(), tc.plugin)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestPluginProcessIsIsolated(t *testing.T) {
	t.Setenv("DEMIURGE_TEST_API_KEY", "sk-should-not-leak")
	m := newManager(t, pluginDir(t, "fixture"), "")
	res, _, err := call(t, m, "fixture", "stdin_probe", `{}`)
	if err != nil || res.GetContent() != "/dev/null" {
		t.Fatalf("plugin stdin = %q, %v; want /dev/null", res.GetContent(), err)
	}
	res, _, err = call(t, m, "fixture", "env_probe", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Split(res.GetContent(), "\n") {
		if strings.Contains(k, "API_KEY") {
			t.Fatalf("plugin environment has %s", k)
		}
		if k == "HOME" {
			continue
		}
	}
}

func TestCancellationReachesThePlugin(t *testing.T) {
	m := newManager(t, pluginDir(t, "fixture"), "")
	// Started first, so that the deadline below covers the call only, not
	// a plugin launch on a loaded machine.
	if _, _, err := call(t, m, "fixture", "echo", `{"text":"warm"}`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.Invoke(ctx, "fixture", &toolsetv1.EffectRequest{InvocationId: "sleepy", Tool: "sleep", Arguments: []byte(`{"millis":60000}`)}, Hooks{}, nil)
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("cancellation did not stop the call")
	}
	// The plugin is still healthy afterwards.
	if res, _, err := call(t, m, "fixture", "echo", `{"text":"ok"}`); err != nil || res.GetContent() != "ok" {
		t.Fatalf("after cancel: %v %v", res, err)
	}
}

func TestHostServicesAnswerForActiveCallsOnly(t *testing.T) {
	m := newManager(t, pluginDir(t, "fixture"), "")
	hooks := Hooks{Capability: func(_ context.Context, c string, require bool) (bool, string) {
		return c == "fs.read" && require, "only fs.read"
	}}
	ctx := context.Background()
	res, err := m.Invoke(ctx, "fixture", &toolsetv1.EffectRequest{InvocationId: "cap-1", Tool: "require_capability", Arguments: []byte(`{"capability":"fs.read"}`)}, hooks, nil)
	if err != nil || res.GetIsError() || res.GetContent() != "granted fs.read" {
		t.Fatalf("granted: %+v %v", res, err)
	}
	res, err = m.Invoke(ctx, "fixture", &toolsetv1.EffectRequest{InvocationId: "cap-2", Tool: "require_capability", Arguments: []byte(`{"capability":"fs.write"}`)}, hooks, nil)
	if err != nil || !res.GetIsError() || !strings.Contains(res.GetContent(), "not granted") {
		t.Fatalf("refused: %+v %v", res, err)
	}
	hs := newHostServices()
	if _, err := hs.Capability(ctx, &toolsetv1.CapabilityRequest{InvocationId: "never-issued", Capability: "fs.read"}); err == nil {
		t.Fatal("an invocation id the host never issued was answered")
	}
}

func TestCloseKillsPluginProcesses(t *testing.T) {
	m := newManager(t, pluginDir(t, "fixture", "textstats"), "")
	if _, errs := m.DescribeAll(context.Background(), []string{"fixture", "textstats"}); len(errs) > 0 {
		t.Fatal(errs)
	}
	var pids []int
	for _, st := range m.Statuses() {
		if st.State != "running" || st.PID == 0 {
			t.Fatalf("not running: %+v", st)
		}
		pids = append(pids, st.PID)
	}
	m.Close()
	for _, pid := range pids {
		deadline := time.Now().Add(5 * time.Second)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			t.Fatalf("plugin process %d survived Close", pid)
		}
	}
	if _, _, err := call(t, m, "fixture", "echo", `{"text":"x"}`); err == nil {
		t.Fatal("call after Close succeeded")
	}
}

func TestRestartDelayGrows(t *testing.T) {
	if restartDelay(1) != 0 {
		t.Fatal("the first restart must be immediate")
	}
	if !(restartDelay(2) < restartDelay(3) && restartDelay(20) == 10*time.Second) {
		t.Fatalf("delays: %v %v %v", restartDelay(2), restartDelay(3), restartDelay(20))
	}
}
