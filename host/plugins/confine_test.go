package plugins

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"demiurge.dev/shared/sandbox"
)

// packageManager runs the fixture plugin as an installed package's (its
// sum from the "lock", as a package directory gives it).
func packageManager(t *testing.T, verified string) *Manager {
	t.Helper()
	return packageManagerIn(t, pluginDir(t, "fixture"), verified)
}

func packageManagerIn(t *testing.T, dir, verified string) *Manager {
	t.Helper()
	sum, err := fileSHA256(filepath.Join(dir, BinaryPrefix+"fixture"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{Dirs: []Dir{{Path: dir, Origin: OriginInstalled, Package: "fixture", SHA256: sum}},
		Home: filepath.Join(t.TempDir(), "runtime", "home"), VerifiedDir: verified})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// TestUnconfinablePackageIsRefused: where the kernel cannot confine a
// package's plugin, it is not started, and the error names the operator's
// switch; with the switch in the host's environment it starts.
func TestUnconfinablePackageIsRefused(t *testing.T) {
	saved := kernelSupport
	t.Cleanup(func() { kernelSupport = saved })
	kernelSupport = func() sandbox.Support { return sandbox.Support{LandlockError: "landlock unavailable: pretended"} }
	_, err := packageManager(t, "").Describe(context.Background(), "fixture")
	if err == nil || !strings.Contains(err.Error(), "cannot confine it") || !strings.Contains(err.Error(), EnvAllowUnconfinedPackages+"=1") {
		t.Fatalf("an unconfinable package started, or the refusal does not name the switch: %v", err)
	}
	t.Setenv(EnvAllowUnconfinedPackages, "1")
	if _, err := packageManager(t, "").Describe(context.Background(), "fixture"); err != nil {
		t.Fatalf("with the operator's switch: %v", err)
	}
}

// TestConfinedPackageRunsFromItsVerifiedFile: a package binary whose
// identity is recorded runs from the installed file itself, not a sealed
// copy; the confinement lets it execute that one file.
func TestConfinedPackageRunsFromItsVerifiedFile(t *testing.T) {
	if miss := sandbox.PluginMissing(sandbox.KernelSupport()); len(miss) > 0 {
		t.Skipf("no confinement here: %v", miss)
	}
	verified, dir := t.TempDir(), pluginDir(t, "fixture")
	direct := 0
	testHookImageVerified = func(c Candidate, img *image) {
		if img.direct != nil {
			direct++
		}
	}
	t.Cleanup(func() { testHookImageVerified = nil })
	time.Sleep(minRecordAge + 100*time.Millisecond) // old enough to be recorded
	for i := range 2 {
		m := packageManagerIn(t, dir, verified)
		res, _, err := call(t, m, "fixture", "env_probe", `{}`)
		if err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		if !strings.Contains(res.GetContent(), "HOME") {
			t.Fatalf("start %d: %s", i, res.GetContent())
		}
		m.Close()
	}
	if direct != 1 {
		t.Fatalf("%d starts from the verified file itself, want the second one", direct)
	}
}

// TestConfinedStartTime logs what confinement adds to a start (the same
// fixture, unconfined and as a package, five starts each).
func TestConfinedStartTime(t *testing.T) {
	if miss := sandbox.PluginMissing(sandbox.KernelSupport()); len(miss) > 0 {
		t.Skipf("no confinement here: %v", miss)
	}
	start := func(m *Manager) time.Duration {
		defer m.Close()
		t0 := time.Now()
		if _, err := m.Describe(context.Background(), "fixture"); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	var plain, confined time.Duration
	for range 5 { // alternated, best of each
		if d := start(newManager(t, pluginDir(t, "fixture"), "")); plain == 0 || d < plain {
			plain = d
		}
		if d := start(packageManager(t, "")); confined == 0 || d < confined {
			confined = d
		}
	}
	t.Logf("plugin start (best of 5): unconfined %v, confined %v", plain, confined)
}

// TestAPackageThatDeclaredNoHostHasNoWayOut: a package plugin gets an
// egress proxy only when its package.json declared the hosts it reaches;
// one that declared none gets no proxy (an empty allowlist would let any
// public host through), so with its IP sockets refused it reaches nothing.
func TestAPackageThatDeclaredNoHostHasNoWayOut(t *testing.T) {
	if miss := sandbox.PluginMissing(sandbox.KernelSupport()); len(miss) > 0 {
		t.Skipf("no confinement here: %v", miss)
	}
	dir := pluginDir(t, "fixture")
	sum, err := fileSHA256(filepath.Join(dir, BinaryPrefix+"fixture"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		egress []string
		proxy  bool
	}{{nil, false}, {[]string{"api.example.com"}, true}} {
		m, err := New(Config{Dirs: []Dir{{Path: dir, Origin: OriginInstalled, Package: "fixture", SHA256: sum, Egress: tc.egress}},
			Home: filepath.Join(t.TempDir(), "runtime", "home")})
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := call(t, m, "fixture", "env_probe", `{}`)
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(strings.Split(res.GetContent(), "\n"), "DEMIURGE_EGRESS_SOCKET"); got != tc.proxy {
			t.Errorf("declared %v: an egress proxy given = %v, want %v", tc.egress, got, tc.proxy)
		}
	}
}

// TestAPluginIsNeverConfinedOnTheMainThread: a plugin started from the
// process's main thread is confined and forked on another thread. On the
// main thread its Landlock domain would hold the host's leader, so the
// plugin could signal the host and read its /proc entries (seen once in a
// few runs of TestPackagePluginIsConfined, whenever the starting
// goroutine happened to run on the main thread), and the main thread
// would stay confined for good.
func TestAPluginIsNeverConfinedOnTheMainThread(t *testing.T) {
	if miss := sandbox.PluginMissing(sandbox.KernelSupport()); len(miss) > 0 {
		t.Skipf("no confinement here: %v", miss)
	}
	tmp, home := t.TempDir(), t.TempDir()
	bin, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	bin, _ = filepath.EvalSymlinks(bin)
	conf := &confinement{policy: sandbox.PluginPolicy{Private: home, Tmp: tmp, Binary: bin}, support: sandbox.KernelSupport(), home: home, tmp: tmp}
	r, err := newConfinedRunner(exec.Command(bin), conf)
	if err != nil {
		t.Fatal(err)
	}
	var on []int
	testHookConfinedOn = func(tid int) { on = append(on, tid) }
	t.Cleanup(func() { testHookConfinedOn = nil })
	started := make(chan error, 1)
	var mainTID int
	onMainThread <- func() {
		mainTID = unix.Gettid()
		r.confinedStart(started, nil)
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	r.Wait(context.Background())
	if mainTID != unix.Getpid() {
		t.Skipf("TestMain's goroutine is not on the main thread (%d, pid %d)", mainTID, unix.Getpid())
	}
	if len(on) != 1 || on[0] == unix.Getpid() {
		t.Fatalf("confined on threads %v; the main thread is %d", on, unix.Getpid())
	}
}
