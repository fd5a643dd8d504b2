package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"demiurge.dev/shared/hostv1"
)

// editorOffers is what the editor offers the host's editor tools: its fs
// methods and its terminal, as initialize declared them. The host offers
// editor_terminal only where its commands run unconfined anyway, and asks
// the operator every call.
func (a *acpAgent) editorOffers() *hostv1.EditorCapabilities {
	a.mu.Lock()
	fs, term := a.client.Fs, a.client.Terminal
	a.mu.Unlock()
	if !fs.ReadTextFile && !fs.WriteTextFile && !term {
		return nil
	}
	return &hostv1.EditorCapabilities{ReadTextFile: fs.ReadTextFile, WriteTextFile: fs.WriteTextFile, Terminal: term}
}

// EditorDo does one editor request of the host: an editor tool's call
// that dispatch admitted (its capability, path policy, approval and audit
// are the host's). Only the methods the editor offered are asked.
func (s *acpSession) EditorDo(ctx context.Context, method string, params []byte) ([]byte, error) {
	if s.agent.conn == nil {
		return nil, fmt.Errorf("the editor is gone")
	}
	offers := s.agent.editorOffers()
	sid := acp.SessionId(s.id())
	switch {
	case method == "fs/read_text_file" && offers != nil && offers.ReadTextFile:
		var req acp.ReadTextFileRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		req.SessionId = sid
		res, err := s.agent.conn.ReadTextFile(ctx, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	case method == "fs/write_text_file" && offers != nil && offers.WriteTextFile:
		var req acp.WriteTextFileRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		req.SessionId = sid
		res, err := s.agent.conn.WriteTextFile(ctx, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	case strings.HasPrefix(method, "terminal/") && offers != nil && offers.Terminal:
		return s.terminalDo(ctx, method, params)
	}
	return nil, fmt.Errorf("the editor does not offer %s", printable(method, 80))
}

// terminalDo is one of the editor_terminal adapter's requests: the host
// admitted the call (shell guard, the operator's answer, audit) and built
// the command line and its cwd; the client's terminal runs it.
func (s *acpSession) terminalDo(ctx context.Context, method string, params []byte) ([]byte, error) {
	sid := acp.SessionId(s.id())
	conn := s.agent.conn
	var res any
	var err error
	switch method {
	case "terminal/create":
		var req acp.CreateTerminalRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		req.SessionId = sid
		res, err = conn.CreateTerminal(ctx, req)
	case "terminal/wait_for_exit":
		var req acp.WaitForTerminalExitRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		req.SessionId = sid
		res, err = conn.WaitForTerminalExit(ctx, req)
	case "terminal/output":
		var req acp.TerminalOutputRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		req.SessionId = sid
		res, err = conn.TerminalOutput(ctx, req)
	case "terminal/kill":
		var req acp.KillTerminalRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		req.SessionId = sid
		res, err = conn.KillTerminal(ctx, req)
	case "terminal/release":
		var req acp.ReleaseTerminalRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		req.SessionId = sid
		res, err = conn.ReleaseTerminal(ctx, req)
	default:
		return nil, fmt.Errorf("the editor does not offer %s", printable(method, 80))
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}
