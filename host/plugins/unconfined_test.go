package plugins

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The operator's choice to run a plugin installed by path unconfined
// (plugins install --unconfined, plugins access --unconfined), the
// records written before the access was, and attacks on the record.

func (b *attackBed) plugins() string { return filepath.Join(b.state, "plugins") }

func (b *attackBed) bin(name string) string { return filepath.Join(b.plugins(), BinaryPrefix+name) }

func (b *attackBed) install(t *testing.T, fixture, name string, unconfined bool) Installed {
	t.Helper()
	rec, err := Install(context.Background(), InstallOptions{Source: filepath.Join(fixtures, BinaryPrefix+fixture), Name: name, Dir: b.plugins(), Home: filepath.Join(b.state, "runtime", "home"), Unconfined: unconfined})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// restart is a fresh manager on the bed's plugins, as the next host run.
func (b *attackBed) restart(t *testing.T) {
	t.Helper()
	m, err := New(Config{Dirs: []Dir{{Path: b.plugins(), Origin: OriginInstalled}}, Home: filepath.Join(b.state, "runtime", "home"), StateDir: b.state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	m.SetWorkDir(b.ws)
	b.m = m
}

func (b *attackBed) confinement(t *testing.T) string {
	t.Helper()
	for _, s := range b.m.Statuses() {
		if s.Name == b.name {
			return s.Confinement
		}
	}
	t.Fatalf("%s is not listed", b.name)
	return ""
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o700); err != nil {
		t.Fatal(err)
	}
}

// TestAnUnconfinedInstallRunsAsTheHostDoes: the operator's choice at
// install lifts the confinement of that plugin (its home's configuration,
// files outside the workspace, writes it never declared), says so in
// plugins list, and only for it.
func TestAnUnconfinedInstallRunsAsTheHostDoes(t *testing.T) {
	b := newAttackBed(t, "hostile", false, false)
	if rec := b.install(t, "hostile", "hostile", true); !rec.Unconfined {
		t.Fatalf("the record does not say unconfined: %+v", rec)
	}
	b.install(t, "hostilew", "", false)
	b.restart(t)
	if c := b.confinement(t); !strings.HasPrefix(c, "UNCONFINED (the operator's choice at install") {
		t.Errorf("plugins list says %q", c)
	}
	b.mustAllow(t, "read", filepath.Join(b.home, ".ssh", "id_ed25519"), "", "SECRET-KEY")
	b.mustAllow(t, "read", b.outside, "", "OUTSIDE")
	b.mustAllow(t, "write", "new", "", "")
	// The other plugin is still confined.
	b.name = "hostilew"
	if c := b.confinement(t); !strings.HasPrefix(c, "confined") {
		t.Errorf("plugins list says %q of a plugin installed without --unconfined", c)
	}
	b.mustRefuse(t, "read", filepath.Join(b.home, ".ssh", "id_ed25519"), "")
	// Installing it again without the flag confines it again.
	b.name = "hostile"
	b.install(t, "hostile", "hostile", false)
	b.restart(t)
	b.mustRefuse(t, "read", filepath.Join(b.home, ".ssh", "id_ed25519"), "")
}

// TestReplacingAnUnconfinedBinaryVoidsTheTrust: the trust is for the
// binary whose sha256 the record holds. A binary swapped in with its
// checksum rewritten to match runs confined and gets nothing its record
// granted, not even what its own tools now declare; a swap that leaves
// the checksum is refused outright.
func TestReplacingAnUnconfinedBinaryVoidsTheTrust(t *testing.T) {
	b := newAttackBed(t, "hostile", false, false)
	b.install(t, "hostile", "hostile", true)
	copyFile(t, filepath.Join(fixtures, BinaryPrefix+"hostilex"), b.bin("hostile"))
	b.restart(t)
	if _, err := b.m.Describe(context.Background(), "hostile"); err == nil || !strings.Contains(err.Error(), "was recorded") {
		t.Fatalf("a swapped binary started: %v", err)
	}
	sum, err := WriteChecksum(b.bin("hostile"))
	if err != nil {
		t.Fatal(err)
	}
	b.restart(t)
	if c := b.confinement(t); !strings.HasPrefix(c, "confined") || !strings.Contains(c, "no install record for this binary") {
		t.Errorf("plugins list says %q of a swapped binary (sha256 %s)", c, sum)
	}
	b.mustRefuse(t, "read", filepath.Join(b.home, ".ssh", "id_ed25519"), "")
	b.mustRefuse(t, "read", b.outside, "")
	b.mustRefuse(t, "write", "new", "") // its tool declares a write now: not granted
	b.mustAllow(t, "read", "file", "", "WS-FILE")
	if env := b.attempt(t, "env", "", ""); strings.Contains(env, "DEMIURGE_EGRESS_SOCKET=") {
		t.Errorf("a swapped binary that declares the network got the egress proxy:\n%s", env)
	}
}

// TestAToolsetsToolsDeclaringMoreAfterASwapGetNothingExtra: a confined
// install whose binary is swapped for one whose tools declare a write and
// the network (its checksum rewritten) gets neither.
func TestAToolsetsToolsDeclaringMoreAfterASwapGetNothingExtra(t *testing.T) {
	b := newAttackBed(t, "hostile", false, true)
	copyFile(t, filepath.Join(fixtures, BinaryPrefix+"hostilex"), b.bin("hostile"))
	if _, err := WriteChecksum(b.bin("hostile")); err != nil {
		t.Fatal(err)
	}
	b.restart(t)
	b.mustRefuse(t, "write", "new", "")
	ln := listenLoopback(t)
	b.mustRefuse(t, "tcp", "", ln)
	if env := b.attempt(t, "env", "", ""); strings.Contains(env, "DEMIURGE_EGRESS_SOCKET=") {
		t.Errorf("a swapped binary that declares the network got the egress proxy:\n%s", env)
	}
}

// TestAnUnconfinedRecordCopiedFromAnotherPluginIsRefused: a record is
// for one sha256 and one name. Another plugin's unconfined record copied
// over this one's (another binary) grants nothing, nor does a record of
// this very binary trusted under another name.
func TestAnUnconfinedRecordCopiedFromAnotherPluginIsRefused(t *testing.T) {
	b := newAttackBed(t, "hostile", false, true)
	b.install(t, "hostilew", "", true)
	own, err := os.ReadFile(b.bin("hostile") + RecordSuffix)
	if err != nil {
		t.Fatal(err)
	}
	var twin Installed
	if err := json.Unmarshal(own, &twin); err != nil {
		t.Fatal(err)
	}
	twin.Name, twin.Unconfined = "twin", true
	data, _ := json.Marshal(twin)
	twinRecord := filepath.Join(b.root, "twin.json")
	if err := os.WriteFile(twinRecord, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{b.bin("hostilew") + RecordSuffix, twinRecord} {
		copyFile(t, from, b.bin("hostile")+RecordSuffix)
		b.restart(t)
		if c := b.confinement(t); !strings.HasPrefix(c, "confined") {
			t.Errorf("with %s, plugins list says %q", from, c)
		}
		b.mustRefuse(t, "read", filepath.Join(b.home, ".ssh", "id_ed25519"), "")
		b.mustRefuse(t, "read", b.outside, "")
	}
	// Its own record, trusted, is honoured: the refusals above are the
	// copies'.
	twin.Name = "hostile"
	data, _ = json.Marshal(twin)
	if err := os.WriteFile(b.bin("hostile")+RecordSuffix, data, 0o600); err != nil {
		t.Fatal(err)
	}
	b.restart(t)
	b.mustAllow(t, "read", b.outside, "", "OUTSIDE")
}

// TestASymlinkedRecordIsNotFollowed: a record that is a link, even to a
// record valid for this binary and name, grants nothing.
func TestASymlinkedRecordIsNotFollowed(t *testing.T) {
	b := newAttackBed(t, "hostile", false, false)
	rec := b.install(t, "hostile", "hostile", true)
	elsewhere := filepath.Join(b.root, "record.json")
	if err := os.Rename(b.bin("hostile")+RecordSuffix, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, b.bin("hostile")+RecordSuffix); err != nil {
		t.Fatal(err)
	}
	b.restart(t)
	if c := b.confinement(t); !strings.HasPrefix(c, "confined") {
		t.Errorf("with a linked record (sha256 %s), plugins list says %q", rec.SHA256, c)
	}
	b.mustRefuse(t, "read", b.outside, "")
	// The same file in place is followed: the refusal above is the link's.
	if err := os.Remove(b.bin("hostile") + RecordSuffix); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(elsewhere, b.bin("hostile")+RecordSuffix); err != nil {
		t.Fatal(err)
	}
	b.restart(t)
	b.mustAllow(t, "read", b.outside, "", "OUTSIDE")
}

// TestARecordWrittenBeforeTheAccessIsRefreshed: a plugin installed before
// the record held its access reads its workspace only; plugins list says
// how to record it, and Rerecord (plugins access NAME) does, from the
// installed binary, keeping its source.
func TestARecordWrittenBeforeTheAccessIsRefreshed(t *testing.T) {
	b := newAttackBed(t, "hostilew", false, true)
	file := b.bin("hostilew") + RecordSuffix
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var old map[string]any
	if err := json.Unmarshal(data, &old); err != nil {
		t.Fatal(err)
	}
	delete(old, "access") // the record's old form
	old["source"] = "/where/it/came/from"
	data, _ = json.Marshal(old)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	b.restart(t)
	if c := b.confinement(t); !strings.Contains(c, "predates") || !strings.Contains(c, "plugins access hostilew") {
		t.Errorf("plugins list says %q of a record in the old form", c)
	}
	b.mustRefuse(t, "write", "new", "")
	b.m.Close()
	rec, err := Rerecord(context.Background(), InstallOptions{Name: "hostilew", Dir: b.plugins(), Home: filepath.Join(b.state, "runtime", "home")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Access.WorkspaceWrite || rec.Unconfined || rec.Source != "/where/it/came/from" {
		t.Errorf("recorded %+v", rec)
	}
	b.restart(t)
	if c := b.confinement(t); strings.Contains(c, "predates") || !strings.HasPrefix(c, "confined") {
		t.Errorf("plugins list says %q after the record was refreshed", c)
	}
	b.mustAllow(t, "write", "new", "", "")
	// The operator trusts it, then confines it again, without its source.
	yes, no := true, false
	if rec, err = Rerecord(context.Background(), InstallOptions{Name: "hostilew", Dir: b.plugins()}, &yes); err != nil || !rec.Unconfined {
		t.Fatalf("%+v %v", rec, err)
	}
	b.restart(t)
	b.mustAllow(t, "read", b.outside, "", "OUTSIDE")
	if rec, err = Rerecord(context.Background(), InstallOptions{Name: "hostilew", Dir: b.plugins()}, nil); err != nil || !rec.Unconfined {
		t.Fatalf("without a choice the recorded one changed: %+v %v", rec, err)
	}
	if rec, err = Rerecord(context.Background(), InstallOptions{Name: "hostilew", Dir: b.plugins()}, &no); err != nil || rec.Unconfined {
		t.Fatalf("%+v %v", rec, err)
	}
	b.restart(t)
	b.mustRefuse(t, "read", b.outside, "")
}

// TestRerecordRefusesASwappedBinary: the refresh records what the
// installed binary declares only while it is the one installed.
func TestRerecordRefusesASwappedBinary(t *testing.T) {
	b := newAttackBed(t, "hostile", false, true)
	copyFile(t, filepath.Join(fixtures, BinaryPrefix+"hostilex"), b.bin("hostile"))
	yes := true
	if _, err := Rerecord(context.Background(), InstallOptions{Name: "hostile", Dir: b.plugins()}, &yes); err == nil || !strings.Contains(err.Error(), "reinstall it from its source") {
		t.Fatalf("a swapped binary was recorded: %v", err)
	}
	b.restart(t)
	if _, err := b.m.Describe(context.Background(), "hostile"); err == nil {
		t.Fatal("the swapped binary started")
	}
	if _, err := Rerecord(context.Background(), InstallOptions{Name: "nothere", Dir: b.plugins()}, nil); err == nil {
		t.Fatal("a name not installed was recorded")
	}
}

// listenLoopback is a loopback TCP listener's address, closed with the test.
func listenLoopback(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}
