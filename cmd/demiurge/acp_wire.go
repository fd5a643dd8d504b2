package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// The SDK's connection drops a line that is not JSON and an answer to a
// request it no longer waits for, silently. An editor deserves to hear
// of the first (a JSON-RPC parse error, id null) and the operator of the
// second (a line on stderr); both leave the connection and its sessions
// as they were. acpReader and acpWriter sit on the two pipes to do that.

// acpWriter serialises whole JSON-RPC lines onto stdout and remembers
// the ids of the requests this agent sent that are not yet answered.
type acpWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending map[string]bool
}

func (a *acpWriter) Write(p []byte) (int, error) {
	n := len(p) // the SDK's line, whatever this writer made of it
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if json.Unmarshal(p, &m) == nil {
		switch {
		case m.Method == "$/cancel_request":
			// The SDK gave up on it: a late answer is one no one waits for.
			delete(a.pending, string(bytes.TrimSpace(m.Params.RequestID)))
		case m.Method != "" && len(m.ID) > 0:
			if m.Method == acp.ClientMethodElicitationCreate {
				p = withElicitSession(p)
			}
			if a.pending == nil {
				a.pending = map[string]bool{}
			}
			a.pending[string(bytes.TrimSpace(m.ID))] = true
		}
	}
	if _, err := a.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// answered reports whether id names a request this agent sent and still
// waits for, and forgets it.
func (a *acpWriter) answered(id json.RawMessage) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := string(bytes.TrimSpace(id))
	if !a.pending[k] {
		return false
	}
	delete(a.pending, k)
	return true
}

// parseError answers a line that is not JSON-RPC.
func (a *acpWriter) parseError(why string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32700, "message": "Parse error: " + why}})
	a.mu.Lock()
	defer a.mu.Unlock()
	a.w.Write(append(b, '\n'))
}

// newACPReader passes the editor's well-formed lines on to the SDK
// through a pipe; the rest it answers or reports itself.
func newACPReader(in io.Reader, out *acpWriter, log io.Writer) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, over, err := readLine(r, acpMaxLine)
			if over {
				// Its id is not read: the parse error has id null, and the
				// rest of the stream goes on.
				out.parseError(fmt.Sprintf("a message over %d MiB was dropped", acpMaxLine>>20))
				fmt.Fprintf(log, "demiurge acp: the editor sent a message over %d MiB; it was dropped\n", acpMaxLine>>20)
			}
			if err != nil {
				if err != io.EOF {
					fmt.Fprintf(log, "demiurge acp: reading the editor's stream: %v\n", err)
				}
				break
			}
			line = bytes.TrimSpace(line)
			if over || len(line) == 0 {
				continue
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				out.parseError(err.Error())
				continue
			}
			switch {
			case m.Method == "$/cancel_request":
				// (the editor's own cancel of a request it sent)
			case m.Method == "" && len(m.ID) > 0 && !out.answered(m.ID):
				fmt.Fprintf(log, "demiurge acp: an answer to request %s, which no longer waits for one (its turn ended or was cancelled), was dropped\n", printable(string(m.ID), 80))
				continue
			}
			if _, err := pw.Write(append(line, '\n')); err != nil {
				return
			}
		}
		pw.Close()
	}()
	return pr
}

// acpMaxLine bounds one JSON-RPC message from the editor.
const acpMaxLine = 10 << 20

// readLine reads one line (without its newline) of at most max bytes; a
// longer one is read to its end and discarded (over), so memory stays
// bounded and the next line is read as usual. A last line without a
// newline comes with io.EOF.
func readLine(r *bufio.Reader, max int) (line []byte, over bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !over {
			if len(line)+len(chunk) > max+1 {
				over, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			if over || len(line) == 0 {
				return nil, over, err
			}
			return line, false, nil
		}
		return bytes.TrimSuffix(line, []byte("\n")), over, nil
	}
}
