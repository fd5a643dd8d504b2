package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"demiurge.dev/catalog"
)

// Installed is what `demiurge plugins install` records beside the binary
// it places, as BinaryPrefix+NAME+RecordSuffix.
type Installed struct {
	Name          string   `json:"name"`
	Version       string   `json:"version"`
	Protocol      int      `json:"protocol"`
	ProtocolMinor uint32   `json:"protocol_minor"`
	SHA256        string   `json:"sha256"`
	Tools         []string `json:"tools"`
	// Access is what its tools declared they need beyond reading the
	// workspace, which its confinement grants (access.go).
	Access Access `json:"access"`
	// Unconfined is the operator's choice at install (plugins install
	// --unconfined, plugins access --unconfined): this binary, and only
	// while its sha256 is SHA256, runs as the host does. Nothing else
	// sets it: the record lives under STATE/plugins, outside every core
	// and workspace.
	Unconfined  bool      `json:"unconfined,omitempty"`
	Source      string    `json:"source"`
	Path        string    `json:"path"`
	InstalledAt time.Time `json:"installed_at"`
	// legacy: the record predates Access (it has no "access" field), so
	// its plugin is granted only to read its workspace until the
	// operator records what its tools declare (plugins access NAME).
	legacy bool
}

// RecordSuffix ends the install record's file name; the "." keeps
// Discover from taking it for a plugin.
const RecordSuffix = ".install.json"

// InstallOptions say what to install and where.
type InstallOptions struct {
	// Source is the plugin binary. Its file name gives the toolset name
	// (BinaryPrefix+NAME) unless Name is set.
	Source, Name string
	// Dir is the installed-plugin directory (toolhost.InstalledPluginDir).
	Dir string
	// Reserved are names the install may not take (the built-in toolsets).
	Reserved []string
	// Home is the HOME the plugin gets while it is described.
	Home   string
	Logger hclog.Logger
	// Unconfined records the operator's choice to trust this binary
	// fully: it then runs (its trial start as well) as the host does.
	Unconfined bool
	// source, when set, is recorded as the binary's source instead of
	// Source, and want is the sha256 the copy must have (Rerecord, which
	// copies the installed binary).
	source, want string
}

// Install copies a plugin binary into opts.Dir with its sha256 recorded,
// after starting it once (the handshake, the health check and Describe,
// as every launch does) to learn its protocol, version and tools. A
// binary that does not start as a toolset plugin is not installed.
func Install(ctx context.Context, opts InstallOptions) (Installed, error) {
	name := opts.Name
	if name == "" {
		var ok bool
		if name, ok = strings.CutPrefix(filepath.Base(opts.Source), BinaryPrefix); !ok {
			return Installed{}, fmt.Errorf("%s: a plugin binary is named %sNAME; rename it or pass --name", opts.Source, BinaryPrefix)
		}
	}
	if err := catalog.ValidToolsetName(name); err != nil {
		return Installed{}, err
	}
	for _, r := range opts.Reserved {
		if r == name {
			return Installed{}, fmt.Errorf("%s is a built-in toolset's name; choose another name for yours", name)
		}
	}
	src, err := filepath.Abs(opts.Source)
	if err != nil {
		return Installed{}, err
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return Installed{}, fmt.Errorf("installed plugin directory: %w", err)
	}
	staging, err := os.MkdirTemp(opts.Dir, ".install-")
	if err != nil {
		return Installed{}, err
	}
	defer os.RemoveAll(staging)
	bin := BinaryPrefix + name
	sum, err := copyExecutable(src, filepath.Join(staging, bin))
	if err != nil {
		return Installed{}, err
	}
	if opts.want != "" && sum != opts.want {
		return Installed{}, fmt.Errorf("%s changed while it was copied (sha256 %s, recorded %s): reinstall it from its source with plugins install", src, sum, opts.want)
	}
	if err := os.WriteFile(filepath.Join(staging, bin+".sha256"), []byte(sum+"  "+bin+"\n"), 0o600); err != nil {
		return Installed{}, err
	}
	if opts.Unconfined {
		// The operator trusts it: its trial start runs as it will (a
		// plugin that reads its configuration in ~ at start would not
		// start confined).
		if err := writeRecord(staging, bin, Installed{Name: name, SHA256: sum, Unconfined: true}); err != nil {
			return Installed{}, err
		}
	}
	desc, err := describeOnce(ctx, staging, name, opts)
	if err != nil {
		return Installed{}, fmt.Errorf("%s did not start as a toolset plugin, so it is not installed: %w", opts.Source, err)
	}
	if opts.source != "" {
		src = opts.source
	}
	rec := Installed{Name: name, Version: desc.GetVersion(), Protocol: desc.Protocol, ProtocolMinor: desc.GetProtocolMinor(),
		SHA256: sum, Unconfined: opts.Unconfined, Source: src, Path: filepath.Join(opts.Dir, bin), InstalledAt: time.Now().UTC().Truncate(time.Second)}
	for _, t := range desc.GetTools() {
		rec.Tools = append(rec.Tools, t.GetName())
	}
	rec.Access = DeclaredAccess(desc.GetTools())
	if err := writeRecord(staging, bin, rec); err != nil {
		return Installed{}, err
	}
	// The checksum goes last: until it is in place, Discover refuses the
	// binary rather than run one it cannot verify.
	for _, f := range []string{bin, bin + RecordSuffix, bin + ".sha256"} {
		if err := os.Rename(filepath.Join(staging, f), filepath.Join(opts.Dir, f)); err != nil {
			return Installed{}, fmt.Errorf("place %s: %w", f, err)
		}
	}
	return rec, nil
}

func writeRecord(dir, bin string, rec Installed) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, bin+RecordSuffix), append(b, '\n'), 0o600)
}

// Rerecord records anew what an installed plugin's tools declare, and the
// operator's choice to run it unconfined or not (nil keeps the recorded
// one), without its source: it installs the installed binary again,
// after checking it is still the one whose sha256 was recorded (a binary
// swapped since is refused: reinstall it from its source). This is how a
// record written before it held the access gets it.
func Rerecord(ctx context.Context, opts InstallOptions, unconfined *bool) (Installed, error) {
	if err := catalog.ValidToolsetName(opts.Name); err != nil {
		return Installed{}, err
	}
	bin := filepath.Join(opts.Dir, BinaryPrefix+opts.Name)
	cands, err := Discover([]Dir{{Path: opts.Dir, Origin: OriginInstalled}})
	if err != nil {
		return Installed{}, err
	}
	var c *Candidate
	for i := range cands {
		if cands[i].Name == opts.Name && cands[i].Path == bin {
			c = &cands[i]
		}
	}
	if c == nil {
		return Installed{}, fmt.Errorf("no installed toolset %q in %s (demiurge plugins list shows what is installed)", opts.Name, opts.Dir)
	}
	if c.Problem != "" {
		return Installed{}, fmt.Errorf("toolset plugin %s is refused (%s): reinstall it from its source with plugins install", opts.Name, c.Problem)
	}
	actual, err := fileSHA256(bin)
	if err != nil {
		return Installed{}, err
	}
	if actual != c.Recorded {
		return Installed{}, fmt.Errorf("toolset plugin %s's sha256 is %s but %s was recorded: it changed since it was installed; reinstall it from its source with plugins install", opts.Name, actual, c.Recorded)
	}
	old, hasOld := installRecord(*c)
	opts.Unconfined = hasOld && old.Unconfined
	if unconfined != nil {
		opts.Unconfined = *unconfined
	}
	if hasOld && old.Source != "" {
		opts.source = old.Source
	}
	opts.Source, opts.want = bin, c.Recorded
	return Install(ctx, opts)
}

// describeOnce starts the staged plugin under a manager of its own and
// describes it, then stops it.
func describeOnce(ctx context.Context, dir, name string, opts InstallOptions) (Description, error) {
	logger := opts.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	m, err := New(Config{Dirs: []Dir{{Path: dir, Origin: OriginInstalled}}, Home: opts.Home, Logger: logger})
	if err != nil {
		return Description{}, err
	}
	defer m.Close()
	return m.Describe(ctx, name)
}

// copyExecutable copies src to dst (mode 0700) and returns its sha256.
func copyExecutable(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", src)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o700)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("copy %s: %w", src, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Uninstall removes an installed plugin (binary, checksum and record)
// from dir. It refuses a name that is not installed there.
func Uninstall(dir, name string) (Installed, error) {
	if err := catalog.ValidToolsetName(name); err != nil {
		return Installed{}, err
	}
	bin := filepath.Join(dir, BinaryPrefix+name)
	if _, err := os.Lstat(bin); errors.Is(err, os.ErrNotExist) {
		return Installed{}, fmt.Errorf("no installed toolset %q in %s (demiurge plugins list shows what is installed)", name, dir)
	}
	var rec Installed
	if b, err := os.ReadFile(bin + RecordSuffix); err == nil {
		_ = json.Unmarshal(b, &rec)
	}
	rec.Name, rec.Path = name, bin
	// The checksum goes first, so a half-removed plugin is refused, not run.
	for _, f := range []string{bin + ".sha256", bin, bin + RecordSuffix} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return rec, err
		}
	}
	return rec, nil
}

// installRecord reads the install record beside an installed candidate,
// when it is for the binary's recorded checksum and name: a record copied
// from another plugin's, or left from the binary a swap replaced, grants
// nothing. The record is a regular file opened without following a link
// (a link could lend another plugin's record).
func installRecord(c Candidate) (Installed, bool) {
	if c.Origin != OriginInstalled || c.Recorded == "" {
		return Installed{}, false
	}
	f, err := os.OpenFile(c.Path+RecordSuffix, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return Installed{}, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return Installed{}, false
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil || len(b) > 1<<20 {
		return Installed{}, false
	}
	var rec Installed
	if json.Unmarshal(b, &rec) != nil || rec.SHA256 != c.Recorded || rec.Name != c.Name {
		return Installed{}, false
	}
	var has struct {
		Access json.RawMessage `json:"access"`
	}
	rec.legacy = json.Unmarshal(b, &has) != nil || len(has.Access) == 0
	return rec, true
}
