package mcp

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"go.yaml.in/yaml/v3"

	"demiurge.dev/host/core"
)

// Operator-allowed private MCP addresses. The URL policy refuses loopback
// and private targets, and a core can never opt into them (no manifest or
// agent.yaml key exists for it). The operator can allow one server at one
// exact address and port, either with --allow-private-mcp ID=ADDR:PORT or
// in the host's own configuration file, PrivateConfigFile
// (os.UserConfigDir()/demiurge/mcp-private.yaml), which lies outside every
// workspace and which file tools and terminal commands may not write
// (toolhost protects its directory like the state directory). The
// allowance is shown on the server's connect approval card, is part of
// what the approval is for, and is recorded in each of the server's
// mcp.url_decision events. Pinning, redirect checks and DNS rules still
// apply: only that address at that port passes.

// PrivateAllowance lets one server reach one private address:port.
type PrivateAllowance struct {
	Server string         `json:"server" yaml:"server"`
	Addr   netip.AddrPort `json:"address" yaml:"-"`
	// Source says where the operator gave it: the flag or the file.
	Source string `json:"source" yaml:"-"`
}

func (a PrivateAllowance) String() string {
	return fmt.Sprintf("%s at %s (%s)", a.Server, a.Addr, a.Source)
}

// FlagSource is the Source of an allowance given on the command line.
const FlagSource = "--allow-private-mcp"

// PrivateConfigName is the host configuration file under
// os.UserConfigDir()/demiurge.
const PrivateConfigName = "mcp-private.yaml"

// PrivateConfigFile is where the operator's file of allowances is, or ""
// when the user has no configuration directory.
func PrivateConfigFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "demiurge", PrivateConfigName)
}

// ParsePrivateAllowance reads one --allow-private-mcp value,
// SERVER=ADDRESS:PORT with an IP address (IPv6 in brackets) and an
// explicit port.
func ParsePrivateAllowance(spec, source string) (PrivateAllowance, error) {
	id, addr, ok := strings.Cut(spec, "=")
	if !ok {
		return PrivateAllowance{}, fmt.Errorf("%q: want SERVER=ADDRESS:PORT, such as ide=127.0.0.1:3999", spec)
	}
	return privateAllowance(id, addr, source)
}

func privateAllowance(id, addr, source string) (PrivateAllowance, error) {
	if err := core.ValidMCPServerID(id); err != nil {
		return PrivateAllowance{}, fmt.Errorf("%s", err)
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return PrivateAllowance{}, fmt.Errorf("%q is not an IP address and port such as 127.0.0.1:3999 or [::1]:3999; a host name is not allowed, since its answers may change", addr)
	}
	if ap.Port() == 0 {
		return PrivateAllowance{}, fmt.Errorf("%q: the port must be between 1 and 65535", addr)
	}
	if ap.Addr().Zone() != "" {
		return PrivateAllowance{}, fmt.Errorf("%q: an address with a zone is not allowed", addr)
	}
	return PrivateAllowance{Server: id, Addr: netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), Source: source}, nil
}

// privateConfigMax bounds the configuration file read.
const privateConfigMax = 64 << 10

// LoadPrivateConfig reads the operator's file of allowances:
//
//	private_mcp:
//	  - server: ide
//	    address: 127.0.0.1:3999
//
// A missing file is no allowance. The file must be a regular file of the
// user's, writable by nobody else, and lie outside workspace; anything
// else is an error, never a silent allowance.
func LoadPrivateConfig(file, workspace string) ([]PrivateAllowance, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", file)
	case fi.Mode().Perm()&0o022 != 0:
		return nil, fmt.Errorf("%s is writable by others (mode %v); only its owner may write it: chmod go-w %s", file, fi.Mode().Perm(), file)
	case st != nil && int(st.Uid) != os.Getuid():
		return nil, fmt.Errorf("%s is not owned by the user running demiurge", file)
	}
	if inside(file, workspace) {
		return nil, fmt.Errorf("%s lies inside the workspace %s, where the agent may write; the host's configuration must be outside it", file, workspace)
	}
	data, err := io.ReadAll(io.LimitReader(f, privateConfigMax+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > privateConfigMax {
		return nil, fmt.Errorf("%s is over %d bytes", file, privateConfigMax)
	}
	var doc struct {
		PrivateMCP []struct {
			Server  string `yaml:"server"`
			Address string `yaml:"address"`
		} `yaml:"private_mcp"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %v (want private_mcp: a list of {server, address})", file, err)
	}
	var out []PrivateAllowance
	for i, e := range doc.PrivateMCP {
		a, err := privateAllowance(e.Server, e.Address, file)
		if err != nil {
			return nil, fmt.Errorf("%s: private_mcp[%d]: %v", file, i, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// inside reports whether file, as written or as its symlinks lead, lies
// in dir.
func inside(file, dir string) bool {
	if dir == "" {
		return false
	}
	check := func(f, d string) bool {
		rel, err := filepath.Rel(d, f)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
	}
	rf, err1 := filepath.EvalSymlinks(filepath.Dir(file))
	rd, err2 := filepath.EvalSymlinks(dir)
	return check(filepath.Clean(file), filepath.Clean(dir)) || err1 == nil && err2 == nil && check(filepath.Join(rf, filepath.Base(file)), rd)
}

// allowancesFor are the allowances of one server.
func allowancesFor(all []PrivateAllowance, server string) []PrivateAllowance {
	var out []PrivateAllowance
	for _, a := range all {
		if a.Server == server {
			out = append(out, a)
		}
	}
	return out
}
