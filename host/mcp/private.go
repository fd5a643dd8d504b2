package mcp

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"go.yaml.in/yaml/v3"

	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
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
func PrivateConfigFile() string { return policy.OperatorConfigFile(PrivateConfigName) }

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

// LoadPrivateConfig reads the operator's file of allowances:
//
//	private_mcp:
//	  - server: ide
//	    address: 127.0.0.1:3999
//
// A missing file is no allowance. The file must be a regular file of the
// user's, writable by nobody else, in directories no one else may write,
// and lie outside workspace (policy.ReadOperatorFile, the reader of every
// operator file); anything else is an error, never a silent allowance.
func LoadPrivateConfig(file, workspace string) ([]PrivateAllowance, error) {
	data, err := policy.ReadOperatorFile(file, "MCP private-allowance file", []policy.AgentDir{{Name: "workspace", Path: workspace}})
	if err != nil || data == nil {
		return nil, err
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
