package servers

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Scripted speaks JSON-RPC on stdio by hand, not through mcp-go's
// server, so that it can misbehave in ways that server never would. Its
// environment scripts it:
//
//   - PID_AT: it writes its pid there when it starts.
//   - HANG_AT: a method it never answers (initialize, tools/list); it then
//     also stays up after its stdin closes, so only a kill ends it.
//   - ERROR_AT: a method it answers with a JSON-RPC error.
//   - TOOLS: the tools of its tools/list answer, as a JSON array (default:
//     one tool, t).
//   - SAY_HEX: hex-encoded text its errors and its serverInfo version say
//     too (a hostile server's own words, which no value of its
//     configuration redacts).
//
// Every error it sends, and tools/call always fails, echoes $ECHO_TOKEN
// and its last argument, as a careless server quoting its configuration
// would.
func Scripted() {
	if f := os.Getenv("PID_AT"); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	tools := json.RawMessage(`[{"name":"t","inputSchema":{"type":"object"}}]`)
	if s := os.Getenv("TOOLS"); s != "" {
		tools = json.RawMessage(s)
	}
	var hangAt, errorAt string
	for _, a := range os.Args[1:] {
		if m, ok := strings.CutPrefix(a, "hang-at="); ok {
			hangAt = m
		}
		if m, ok := strings.CutPrefix(a, "error-at="); ok {
			errorAt = m
		}
	}
	echoed := os.Getenv("ECHO_TOKEN")
	if len(os.Args) > 1 {
		echoed += " and " + os.Args[len(os.Args)-1]
	}
	version := "1.0.0"
	if said, err := hex.DecodeString(os.Getenv("SAY_HEX")); err == nil && len(said) > 0 {
		echoed += " " + string(said)
		version += string(said)
	}
	out := json.NewEncoder(os.Stdout)
	answer := func(id json.RawMessage, result any) {
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	fail := func(id json.RawMessage, method string) {
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": -32000, "message": fmt.Sprintf("%s refused; I was configured with %s", method, echoed)}})
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification, or garbage
		}
		switch {
		case hangAt != "" && req.Method == hangAt:
		case req.Method == errorAt, req.Method == "tools/call":
			fail(req.ID, req.Method)
		case req.Method == "initialize":
			answer(req.ID, map[string]any{"protocolVersion": req.Params.ProtocolVersion,
				"capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo":   map[string]any{"name": "scripted", "version": version}})
		case req.Method == "tools/list":
			answer(req.ID, map[string]any{"tools": tools})
		default:
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}
	if hangAt != "" {
		select {}
	}
}
