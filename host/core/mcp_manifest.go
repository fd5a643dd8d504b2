package core

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MCP manifest limits. A manifest is a short declaration; the bounds keep a
// wrong file from being read whole and a core from declaring a fleet.
const (
	MaxMCPManifestSize        = 64 << 10
	MaxMCPServers             = 64
	DefaultMCPConnectTimeout  = 10 * time.Second
	MaxMCPConnectTimeout      = 300 * time.Second
	DefaultMCPProtocolVersion = "2025-11-25"
	// MCPServerIDMax leaves room for "__" and a tool name within the
	// providers' 64-character limit.
	MCPServerIDMax = 32
)

// MCP transports.
const (
	MCPStdio = "stdio"
	MCPHTTP  = "http"
)

// MCPProtocolVersions are the versions a manifest may pin: 2026-07-28 is
// the stateless core (server/discover, no initialize), the others the
// initialize handshake. The host speaks exactly the pinned one (host/mcp
// protocol.go), so that no probe can misdetect a server.
var MCPProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

var mcpKeys = []string{"command", "args", "env", "cwd", "url", "headers", "enabled", "tools", "connect_timeout_seconds", "capability", "protocol_version", "sandbox", "deferred", "trust_new_tools"}

// KV is one ordered key/value pair of a manifest's env or headers.
type KV struct{ Key, Value string }

// MCPServer is one agent/mcp/<id>.yaml: a stdio command or a streamable
// HTTP URL, with its tool filters and connect policy.
//
//	command: npx                  # stdio: the program (PATH lookup, or a path
//	args: [-y, some-server]       #   relative to the core directory)
//	env: {API_KEY: "..."}         # added only after connect approval; no PATH,
//	                              #   HOME, LD_*, NODE_OPTIONS or other steering
//	                              #   variable (host/mcp/envcheck.go)
//	cwd: sub/dir                  # inside the workspace; default its root
//	url: https://mcp.example/mcp  # or streamable HTTP (no userinfo)
//	headers: {X-Api-Key: "..."}
//	enabled: true
//	tools: {include: [search], exclude: [drop]}
//	connect_timeout_seconds: 10
//	capability: mcp.call:docs     # the call capability; default mcp.call:<id>
//	protocol_version: 2025-11-25
//	sandbox: read-only            # stdio: start under the OS sandbox
//	deferred: true                # tools hidden until search_capabilities
//	trust_new_tools: false        # offer tools added after the first connect without review
type MCPServer struct {
	// ID is the file's base name without .yaml.
	ID   string
	File string
	// Transport is MCPStdio or MCPHTTP.
	Transport string
	Command   string
	Args      []string
	Env       []KV
	// EnvLines is the manifest line of each env key, for the host's
	// checks of the names (host/mcp refuses loader and runtime variables).
	EnvLines map[string]int
	// Cwd is as written; the host resolves it inside the workspace.
	Cwd     string
	URL     string
	Headers []KV
	Enabled bool
	// Include and Exclude filter the server's tools by their own names.
	Include, Exclude []string
	ConnectTimeout   time.Duration
	// Capability is what a call needs; "" means mcp.call:<ID>.
	Capability      string
	ProtocolVersion string
	// Sandbox is the OS sandbox mode a stdio server opted into
	// (read-only, workspace-write or network; see mcp_sandbox.go); ""
	// runs it as before.
	Sandbox string
	// Deferred keeps the server's tools out of the provider definitions
	// until search_capabilities activates them (progressive disclosure).
	Deferred bool
	// TrustNewTools offers a tool the server adds after its definitions
	// were first pinned without the operator's review (host/mcp pins.go);
	// a changed definition is reviewed either way.
	TrustNewTools bool
	// Fingerprint is the sha256 of the manifest's bytes: a changed
	// declaration is a changed fingerprint.
	Fingerprint string
}

// CallCapability is the capability calls of this server's tools need.
func (s *MCPServer) CallCapability() string {
	if s.Capability != "" {
		return s.Capability
	}
	return "mcp.call:" + s.ID
}

// ReservedMCPServerIDs are the prefixes of the names the host gives its
// own MCP approvals (host/mcp: mcp_connect__SERVER, mcp_elicit__SERVER).
// A server with one of them as its id would offer tools named
// mcp_connect__TOOL, so the operator's allow:mcp_connect__docs, meant to
// start docs, would also approve calling that server's tool "docs".
var ReservedMCPServerIDs = []string{"mcp_connect", "mcp_elicit"}

// ValidMCPServerID reports why id cannot name an MCP server: it becomes the
// prefix of tool names every provider must accept, so it starts with a
// letter, holds only letters, digits, '_' and '-', has no "__" (the
// separator), leaves room for the tool's own name and is none of
// ReservedMCPServerIDs (in any case).
func ValidMCPServerID(id string) error {
	for _, r := range ReservedMCPServerIDs {
		if strings.EqualFold(id, r) {
			return fmt.Errorf("server id %q is reserved: its tools would be named like the host's %s__SERVER approvals, so an approval for one would approve the other; rename the file", clip(id), r)
		}
	}
	switch {
	case id == "":
		return errors.New("server id is empty")
	case len(id) > MCPServerIDMax:
		return fmt.Errorf("server id %q is %d characters; at most %d, so that id__tool fits the providers' 64", clip(id), len(id), MCPServerIDMax)
	case strings.Contains(id, "__"):
		return fmt.Errorf("server id %q contains \"__\", which separates server and tool in tool names", clip(id))
	case strings.HasSuffix(id, "_"):
		return fmt.Errorf("server id %q ends with '_', which would run into the \"__\" separator", clip(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '-'):
		default:
			return fmt.Errorf("server id %q must start with a letter and hold only letters, digits, '_' and '-'", clip(id))
		}
	}
	return nil
}

// MCPManifestError is one manifest that could not be loaded; the other
// servers go on without it.
type MCPManifestError struct {
	ID  string
	Err *LoadError
}

// LoadMCPServers reads every <id>.yaml directly under root, in name order.
// A manifest that fails to load is returned as an error beside the others;
// files that are not .yaml (a README) are not manifests.
func LoadMCPServers(root string) ([]MCPServer, []MCPManifestError) {
	if root == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, []MCPManifestError{{Err: &LoadError{File: root, Msg: fmt.Sprintf("cannot list the MCP manifests: %v", err), Err: err}}}
	}
	var servers []MCPServer
	var errs []MCPManifestError
	for _, e := range entries {
		name := e.Name()
		file := filepath.Join(root, name)
		id, isYAML := strings.CutSuffix(name, ".yaml")
		if !isYAML {
			if yml, ok := strings.CutSuffix(name, ".yml"); ok {
				// Named by the file, not by the server it would declare: an
				// error under the id of a.yaml's server would close that
				// server's connection every turn.
				errs = append(errs, MCPManifestError{ID: name, Err: &LoadError{File: file, Msg: "MCP manifests end in .yaml; rename it to " + yml + ".yaml"}})
			}
			continue
		}
		if len(servers)+len(errs) >= MaxMCPServers {
			errs = append(errs, MCPManifestError{ID: id, Err: &LoadError{File: file, Msg: fmt.Sprintf("more than %d MCP servers are declared; this one is left out", MaxMCPServers)}})
			continue
		}
		s, lerr := LoadMCPServer(file)
		if lerr != nil {
			errs = append(errs, MCPManifestError{ID: id, Err: lerr})
			continue
		}
		servers = append(servers, s)
	}
	return servers, errs
}

// LoadMCPServer reads one manifest file.
func LoadMCPServer(file string) (MCPServer, *LoadError) {
	f, err := openNonBlocking(file)
	if err != nil {
		return MCPServer{}, &LoadError{File: file, Msg: fmt.Sprintf("cannot open the MCP manifest: %v", err), Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return MCPServer{}, &LoadError{File: file, Msg: fmt.Sprintf("cannot stat the MCP manifest: %v", err), Err: err}
	}
	if !fi.Mode().IsRegular() {
		return MCPServer{}, &LoadError{File: file, Msg: fmt.Sprintf("is not a regular file (%s); an MCP manifest must be a plain file", fi.Mode().Type())}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxMCPManifestSize+1))
	if err != nil {
		return MCPServer{}, &LoadError{File: file, Msg: fmt.Sprintf("cannot read the MCP manifest: %v", err), Err: err}
	}
	return ParseMCPServer(data, file)
}

// ParseMCPServer decodes manifest bytes; file names it in errors and gives
// the server id (its base name without .yaml).
func ParseMCPServer(data []byte, file string) (MCPServer, *LoadError) {
	id := strings.TrimSuffix(filepath.Base(file), ".yaml")
	if len(data) > MaxMCPManifestSize {
		return MCPServer{}, &LoadError{File: file, Msg: fmt.Sprintf("is over the %d-byte limit of an MCP manifest", MaxMCPManifestSize)}
	}
	if err := ValidMCPServerID(id); err != nil {
		return MCPServer{}, &LoadError{File: file, Msg: err.Error() + "; rename the file"}
	}
	d := &decoder{file: file, origin: filepath.Base(file)}
	root, err := d.manifestDocument(data)
	if err != nil {
		return MCPServer{}, err
	}
	sum := sha256.Sum256(data)
	s := MCPServer{
		ID: id, File: file, Enabled: true, ConnectTimeout: DefaultMCPConnectTimeout,
		ProtocolVersion: DefaultMCPProtocolVersion, Fingerprint: hex.EncodeToString(sum[:]),
	}
	entries, lerr := d.mapping(root, "")
	if lerr != nil {
		return MCPServer{}, asLoadError(lerr)
	}
	for _, e := range entries {
		if err := d.mcpKey(&s, e); err != nil {
			return MCPServer{}, asLoadError(err)
		}
	}
	if err := d.mcpTransport(&s, root); err != nil {
		return MCPServer{}, err
	}
	return s, nil
}

func asLoadError(err error) *LoadError {
	var le *LoadError
	if errors.As(err, &le) {
		return le
	}
	return &LoadError{Msg: err.Error(), Err: err}
}

// manifestDocument is document() with manifest wording.
func (d *decoder) manifestDocument(data []byte) (*yaml.Node, *LoadError) {
	return d.singleMapping(data, documentWording{
		empty:  "MCP manifest is empty; declare a command or a url",
		second: "an MCP manifest is one document",
		keys:   mcpKeys,
	})
}

func (d *decoder) mcpKey(s *MCPServer, e entry) error {
	var err error
	switch e.name {
	case "command":
		s.Command, err = d.str(e.val, e.field)
	case "args":
		s.Args, err = d.mcpArgs(e.val, e.field)
	case "env":
		s.EnvLines = map[string]int{}
		s.Env, err = d.kvMap(e.val, e.field, envKeyOK, "an environment variable name like API_KEY", s.EnvLines)
	case "cwd":
		s.Cwd, err = d.str(e.val, e.field)
	case "url":
		s.URL, err = d.mcpURL(e.val, e.field)
	case "headers":
		s.Headers, err = d.kvMap(e.val, e.field, headerKeyOK, "an HTTP header name like X-Api-Key", nil)
	case "enabled":
		s.Enabled, err = d.boolean(e.val, e.field)
	case "deferred":
		s.Deferred, err = d.boolean(e.val, e.field)
	case "tools":
		s.Include, s.Exclude, err = d.mcpTools(e.val, e.field)
	case "connect_timeout_seconds":
		s.ConnectTimeout, err = d.mcpTimeout(e.val, e.field)
	case "capability":
		s.Capability, err = d.mcpCapability(e.val, e.field, s.ID)
	case "protocol_version":
		var v string
		if v, err = d.version(e.val, e.field); err == nil && !slices.Contains(MCPProtocolVersions, v) {
			err = d.errorf(e.val, e.field, "protocol version %q is not one the host speaks; want one of %s", clip(v), strings.Join(MCPProtocolVersions, ", "))
		}
		s.ProtocolVersion = v
	case "sandbox":
		s.Sandbox, err = d.mcpSandbox(e.val, e.field)
	case "trust_new_tools":
		s.TrustNewTools, err = d.boolean(e.val, e.field)
	default:
		err = d.errorf(e.key, e.field, "%s", unknownMsg("key", e.name, "valid keys", mcpKeys))
	}
	return err
}

// mcpTransport checks that exactly one of command and url is given and
// that the keys of the other transport are absent.
func (d *decoder) mcpTransport(s *MCPServer, root *yaml.Node) *LoadError {
	switch {
	case s.Command != "" && s.URL != "":
		return d.errorf(root, "url", "both command (stdio) and url (streamable HTTP) are given; a server has one transport, keep one")
	case s.Command != "":
		s.Transport = MCPStdio
		if len(s.Headers) > 0 {
			return d.errorf(root, "headers", "headers apply to a url server; a stdio server takes env")
		}
	case s.URL != "":
		s.Transport = MCPHTTP
		switch {
		case len(s.Args) > 0:
			return d.errorf(root, "args", "args apply to a command; a url server takes headers")
		case len(s.Env) > 0:
			return d.errorf(root, "env", "env applies to a command; a url server takes headers")
		case s.Cwd != "":
			return d.errorf(root, "cwd", "cwd applies to a command; remove it from a url server")
		case s.Sandbox != "":
			return d.errorf(root, "sandbox", "sandbox applies to a command the host starts; a url server runs elsewhere")
		}
	default:
		return d.errorf(root, "", "declares neither command (a stdio server) nor url (a streamable HTTP server); give one")
	}
	return nil
}

// version reads a protocol version, written quoted or not: YAML takes an
// unquoted 2025-11-25 for a timestamp.
func (d *decoder) version(n *yaml.Node, field string) (string, error) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!timestamp" {
		return n.Value, nil
	}
	return d.str(n, field)
}

func (d *decoder) mcpArgs(n *yaml.Node, field string) ([]string, error) {
	items, err := d.list(n, field)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		f := itemField(field, i)
		if err := d.noAlias(it, f); err != nil {
			return nil, err
		}
		// An argument may be empty but must be a string: an unquoted 8080
		// is almost always meant as text, and is said so.
		if it.Kind != yaml.ScalarNode || it.ShortTag() != "!!str" {
			return nil, d.wrongType(it, f, "a string")
		}
		if strings.ContainsRune(it.Value, 0) {
			return nil, d.errorf(it, f, "contains a NUL byte")
		}
		out = append(out, it.Value)
	}
	return out, nil
}

// kvMap decodes env or headers: string keys checked by keyOK, string
// values (possibly multi-word, never NUL or a line break), sorted by key.
// lines, when given, gets each key's line, for errors found later.
func (d *decoder) kvMap(n *yaml.Node, field string, keyOK func(string) bool, keyHint string, lines map[string]int) ([]KV, error) {
	entries, err := d.mapping(n, field)
	if err != nil {
		return nil, err
	}
	out := make([]KV, 0, len(entries))
	for _, e := range entries {
		if !keyOK(e.name) {
			return nil, d.errorf(e.key, e.field, "%q is not %s", clip(e.name), keyHint)
		}
		if err := d.noAlias(e.val, e.field); err != nil {
			return nil, err
		}
		if e.val.Kind != yaml.ScalarNode || e.val.ShortTag() != "!!str" {
			// The value is never quoted back: it may be a secret.
			msg := "want a string value"
			if e.val.Kind == yaml.ScalarNode && e.val.ShortTag() != "!!null" {
				msg += "; quote it"
			}
			return nil, d.errorf(e.val, e.field, "%s", msg)
		}
		if strings.ContainsAny(e.val.Value, "\x00\r\n") {
			return nil, d.errorf(e.val, e.field, "the value contains a NUL byte or a line break")
		}
		out = append(out, KV{Key: e.name, Value: e.val.Value})
		if lines != nil {
			lines[e.name] = e.key.Line
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

func envKeyOK(k string) bool {
	if k == "" || len(k) > 128 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// headerKeyOK accepts an RFC 9110 token.
func headerKeyOK(k string) bool {
	if k == "" || len(k) > 128 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// mcpURL checks the shape only: http or https, a host, no userinfo. What
// the host may reach is the URL policy's decision, at connect time.
func (d *decoder) mcpURL(n *yaml.Node, field string) (string, error) {
	v, err := d.str(n, field)
	if err != nil {
		return "", err
	}
	u, perr := url.Parse(v)
	switch {
	case perr != nil:
		return "", d.errorf(n, field, "is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", d.errorf(n, field, "scheme %q is not http or https", clip(u.Scheme))
	case u.User != nil:
		// Never quote the URL: its userinfo is a credential.
		return "", d.errorf(n, field, "the URL carries userinfo (user:password@); put credentials in headers instead")
	case u.Host == "":
		return "", d.errorf(n, field, "the URL has no host")
	}
	return v, nil
}

func (d *decoder) mcpTools(n *yaml.Node, field string) (include, exclude []string, err error) {
	entries, err := d.mapping(n, field)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		switch e.name {
		case "include":
			include, _, err = d.strList(e.val, e.field, "tool")
		case "exclude":
			exclude, _, err = d.strList(e.val, e.field, "tool")
		default:
			err = d.errorf(e.key, e.field, "%s", unknownMsg("key", e.name, "valid keys", []string{"include", "exclude"}))
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return include, exclude, nil
}

func (d *decoder) mcpTimeout(n *yaml.Node, field string) (time.Duration, error) {
	if err := d.noAlias(n, field); err != nil {
		return 0, err
	}
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return 0, d.wrongType(n, field, "a number of seconds")
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || f <= 0 || f > MaxMCPConnectTimeout.Seconds() {
		return 0, d.errorf(n, field, "want a number of seconds above 0 and at most %d, got %s", int(MaxMCPConnectTimeout.Seconds()), clip(n.Value))
	}
	return time.Duration(f * float64(time.Second)), nil
}

// mcpCapability accepts the call capability a manifest may name instead
// of mcp.call:<id>: an mcp.call or tool.call capability. Its full check is
// host/policy's, when the catalog resolves.
func (d *decoder) mcpCapability(n *yaml.Node, field, id string) (string, error) {
	v, err := d.str(n, field)
	if err != nil {
		return "", err
	}
	prefix, arg, ok := strings.Cut(v, ":")
	if !ok || arg == "" || strings.Contains(arg, "*") || (prefix != "mcp.call" && prefix != "tool.call") {
		return "", d.errorf(n, field, "capability %q must be mcp.call:<server> or tool.call:<name>, without wildcards (default mcp.call:%s)", clip(v), id)
	}
	return v, nil
}
