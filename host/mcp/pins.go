package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"demiurge.dev/host/core"
	"demiurge.dev/shared/fileid"
)

// Pinned tool definitions, against a server that changes a tool after it
// was trusted. On a server's first connect the host records each offered
// tool's definition (name, description, input schema, annotations) and
// its hash in a file of its own state directory,
// <state>/mcp/pins/<server>.json (0600 in a 0700 directory). Later, a tool
// whose definition hashes differently is quarantined: it is left out of
// the catalog and `mcp list` says so, until the operator accepts the new
// definition with `demiurge mcp review SERVER`. A tool the server adds
// later is quarantined the same way unless the manifest says
// trust_new_tools: true. A rejected definition stays out without being
// asked about again; another change is asked about anew.

// Definition is what is pinned of one tool, as the server sent it.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// Pin is one tool's accepted definition.
type Pin struct {
	Hash       string     `json:"hash"`
	Definition Definition `json:"definition"`
	PinnedAt   time.Time  `json:"pinned_at"`
}

// Pending is a definition awaiting the operator's review: a changed one
// (Kind "changed", beside its pin) or a new tool (Kind "new").
type Pending struct {
	Kind       string     `json:"kind"`
	Hash       string     `json:"hash"`
	Definition Definition `json:"definition"`
	SeenAt     time.Time  `json:"seen_at"`
	// Replaces is the pinned tool whose model-visible name this one
	// takes (another of the server's names that the naming rule makes the
	// same name): the review shows the definition against that one's.
	Replaces string `json:"replaces,omitempty"`
}

// Pins is one server's pin file.
type Pins struct {
	Server string             `json:"server"`
	Tools  map[string]Pin     `json:"tools"`
	Review map[string]Pending `json:"pending,omitempty"`
	// Rejected are the hashes the operator refused, per tool.
	Rejected map[string][]string `json:"rejected,omitempty"`
}

// Quarantined is one tool kept out of the catalog by its pin.
type Quarantined struct {
	Tool       string `json:"tool"`       // the server's own name
	Name       string `json:"name"`       // model-visible
	Kind       string `json:"kind"`       // changed, new or rejected
	Diagnostic string `json:"diagnostic"` // for mcp list
}

// Kinds of quarantine.
const (
	KindChanged  = "changed"
	KindNew      = "new"
	KindRejected = "rejected"
)

// pinFileMax bounds a pin file read back: 512 tools of large schemas.
const pinFileMax = 64 << 20

// pinMu serialises read-modify-write of pin files within the process
// (several sessions' pools may connect one server at once).
var pinMu sync.Mutex

// PinFile is where a server's pins are kept under a state directory.
func PinFile(stateDir, server string) string {
	return filepath.Join(stateDir, "mcp", "pins", server+".json")
}

// definitionHash is the sha256 of a definition's canonical JSON: objects'
// keys sorted, insignificant space dropped, numbers as written.
func definitionHash(d Definition) string {
	b, _ := json.Marshal(map[string]any{"name": d.Name, "description": d.Description,
		"inputSchema": genericJSON(d.InputSchema), "annotations": genericJSON(d.Annotations)})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func definitionOf(t rawTool) Definition {
	return Definition{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations}
}

// LoadPins reads a server's pins; a missing file is (nil, nil): the
// server was never pinned.
func LoadPins(stateDir, server string) (*Pins, error) {
	f, err := os.Open(PinFile(stateDir, server))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the pinned tool definitions: %w", err)
	}
	defer f.Close()
	var p Pins
	dec := json.NewDecoder(&limitedReader{f, pinFileMax})
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("the pinned tool definitions in %s are not valid (%v); move the file away to pin the server afresh", PinFile(stateDir, server), err)
	}
	if p.Server != server {
		return nil, fmt.Errorf("%s holds the pins of server %q, not %q", PinFile(stateDir, server), p.Server, server)
	}
	if p.Tools == nil {
		p.Tools = map[string]Pin{}
	}
	return &p, nil
}

type limitedReader struct {
	f *os.File
	n int64
}

func (l *limitedReader) Read(b []byte) (int, error) {
	if l.n <= 0 {
		return 0, fmt.Errorf("the file is larger than %d bytes", pinFileMax)
	}
	if int64(len(b)) > l.n {
		b = b[:l.n]
	}
	n, err := l.f.Read(b)
	l.n -= int64(n)
	return n, err
}

// save writes the pins atomically (a temporary file renamed over).
func (p *Pins) save(stateDir string) error {
	file := PinFile(stateDir, p.Server)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("record the pinned tool definitions: %w", err)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+p.Server+"-*.json")
	if err != nil {
		return fmt.Errorf("record the pinned tool definitions: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("record the pinned tool definitions: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("record the pinned tool definitions: %w", err)
	}
	return nil
}

// applyPins splits what selectTools offered into the tools the catalog
// gets and the quarantined ones, recording first pins, new pending
// reviews, and dropping reviews of tools the server no longer offers.
// A pin file that cannot be read or written fails the server: nothing is
// offered unpinned.
func applyPins(stateDir string, s core.MCPServer, tools []offered, now time.Time, command func(string) string) ([]offered, []Quarantined, error) {
	pinMu.Lock()
	defer pinMu.Unlock()
	pins, err := LoadPins(stateDir, s.ID)
	if err != nil {
		return nil, nil, err
	}
	first := pins == nil
	if first {
		pins = &Pins{Server: s.ID, Tools: map[string]Pin{}}
	}
	before, _ := json.Marshal(pins)
	// The model calls a tool by its model-visible name, and another of the
	// server's names can become that name ("café" and "cafe", "a.b" and
	// "a_b"): a tool that takes a pinned tool's name is that tool changed,
	// not a new one, whatever trust_new_tools says.
	pinnedAs := make(map[string]string, len(pins.Tools))
	for raw := range pins.Tools {
		if name, err := ToolName(s.ID, raw); err == nil {
			pinnedAs[name] = raw
		}
	}
	var out []offered
	var quarantined []Quarantined
	listed := map[string]bool{}
	for _, t := range tools {
		listed[t.raw.Name] = true
		def := definitionOf(t.raw)
		hash := definitionHash(def)
		pin, pinned := pins.Tools[t.raw.Name]
		replaces := ""
		if other, ok := pinnedAs[t.name]; ok && !pinned {
			replaces = other
		}
		switch {
		case pinned && pin.Hash == hash:
			delete(pins.Review, t.raw.Name) // changed back
			out = append(out, t)
			continue
		case !pinned && replaces == "" && (first || s.TrustNewTools):
			pins.Tools[t.raw.Name] = Pin{Hash: hash, Definition: def, PinnedAt: now}
			delete(pins.Review, t.raw.Name)
			out = append(out, t)
			continue
		}
		q := Quarantined{Tool: t.raw.Name, Name: t.name}
		switch {
		case slices.Contains(pins.Rejected[t.raw.Name], hash):
			q.Kind = KindRejected
			q.Diagnostic = fmt.Sprintf("MCP server %s tool %q is left out: the operator rejected this definition of it in mcp review", s.ID, clip(t.raw.Name))
		case replaces != "":
			q.Kind = KindChanged
			q.Diagnostic = fmt.Sprintf("MCP server %s offers tool %q as %s, the name its tool %q had when it was pinned; it is quarantined as a changed definition until the operator accepts it: %s", s.ID, clip(t.raw.Name), t.name, clip(replaces), command("mcp review "+s.ID))
		case pinned:
			q.Kind = KindChanged
			q.Diagnostic = fmt.Sprintf("MCP server %s changed the definition of tool %q since it was pinned; it is quarantined until the operator accepts the change: %s", s.ID, clip(t.raw.Name), command("mcp review "+s.ID))
		default:
			q.Kind = KindNew
			q.Diagnostic = fmt.Sprintf("MCP server %s offers a new tool %q since its tools were pinned; it is quarantined until the operator accepts it (%s), or the manifest says trust_new_tools: true", s.ID, clip(t.raw.Name), command("mcp review "+s.ID))
		}
		if q.Kind != KindRejected {
			if p, ok := pins.Review[t.raw.Name]; !ok || p.Hash != hash {
				if pins.Review == nil {
					pins.Review = map[string]Pending{}
				}
				pins.Review[t.raw.Name] = Pending{Kind: q.Kind, Hash: hash, Definition: def, SeenAt: now, Replaces: replaces}
			}
		}
		quarantined = append(quarantined, q)
	}
	for name := range pins.Review {
		if !listed[name] {
			delete(pins.Review, name)
		}
	}
	if after, _ := json.Marshal(pins); first || !bytes.Equal(before, after) {
		if err := pins.save(stateDir); err != nil {
			return nil, nil, err
		}
	}
	return out, quarantined, nil
}

// ReviewItem is one pending definition with what it replaces.
type ReviewItem struct {
	Tool    string      `json:"tool"`
	Kind    string      `json:"kind"` // changed or new
	Hash    string      `json:"hash"`
	Pinned  *Definition `json:"pinned,omitempty"`
	Offered Definition  `json:"offered"`
	// Diff is a unified diff of the pinned and offered definitions.
	Diff string `json:"diff"`
}

// PendingReview lists a server's definitions awaiting review, by tool name.
func PendingReview(stateDir, server string) ([]ReviewItem, error) {
	pinMu.Lock()
	defer pinMu.Unlock()
	pins, err := LoadPins(stateDir, server)
	if err != nil || pins == nil {
		return nil, err
	}
	var out []ReviewItem
	for name, p := range pins.Review {
		it := ReviewItem{Tool: name, Kind: p.Kind, Hash: p.Hash, Offered: p.Definition}
		pinnedAs := name
		if p.Replaces != "" {
			pinnedAs = p.Replaces
		}
		if pin, ok := pins.Tools[pinnedAs]; ok {
			d := pin.Definition
			it.Pinned = &d
		}
		it.Diff = definitionDiff(name, it.Pinned, p.Definition)
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out, nil
}

// DecideReview accepts or rejects the pending definitions of the given
// tools, each only at the hash the operator was shown (hashes[tool]): a
// definition that changed again since is left pending and reported.
// Accepting pins the offered definition; rejecting keeps the old pin (or
// none) and remembers the hash, so that definition stays out unasked.
func DecideReview(stateDir, server string, hashes map[string]string, accept bool, now time.Time) error {
	pinMu.Lock()
	defer pinMu.Unlock()
	pins, err := LoadPins(stateDir, server)
	if err != nil {
		return err
	}
	if pins == nil {
		return fmt.Errorf("MCP server %s has no pinned tool definitions yet; it is pinned on its first connect", server)
	}
	var stale []string
	for tool, hash := range hashes {
		p, ok := pins.Review[tool]
		if !ok || p.Hash != hash {
			stale = append(stale, tool)
			continue
		}
		if accept {
			pins.Tools[tool] = Pin{Hash: p.Hash, Definition: p.Definition, PinnedAt: now}
		} else {
			if pins.Rejected == nil {
				pins.Rejected = map[string][]string{}
			}
			pins.Rejected[tool] = append(pins.Rejected[tool], p.Hash)
		}
		delete(pins.Review, tool)
	}
	if err := pins.save(stateDir); err != nil {
		return err
	}
	if len(stale) > 0 {
		sort.Strings(stale)
		return fmt.Errorf("the definitions of %q changed again since they were shown and were not decided; run mcp review again", stale)
	}
	return nil
}

// pinStamp identifies the pin file's current version (its device, inode,
// size and times: every save renames a new file over it).
func pinStamp(stateDir, server string) fileid.ID {
	id, _ := statID(PinFile(stateDir, server))
	return id
}
