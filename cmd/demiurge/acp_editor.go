package main

import (
	"context"
	"encoding/json"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"demiurge.dev/shared/hostv1"
)

// editorOffers is what the editor offers the host's editor tools: its fs
// methods, as initialize declared them. The terminal is not offered yet
// (the editor's terminal runs outside the kernel sandbox: not built).
func (a *acpAgent) editorOffers() *hostv1.EditorCapabilities {
	a.mu.Lock()
	fs := a.client.Fs
	a.mu.Unlock()
	if !fs.ReadTextFile && !fs.WriteTextFile {
		return nil
	}
	return &hostv1.EditorCapabilities{ReadTextFile: fs.ReadTextFile, WriteTextFile: fs.WriteTextFile}
}

// editorDo does one editor request of the host: an editor tool's call
// that dispatch admitted (its capability, path policy, approval and audit
// are the host's). Only the methods the editor offered are asked.
func (s *acpSession) editorDo(ctx context.Context, method string, params []byte) ([]byte, error) {
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
	}
	return nil, fmt.Errorf("the editor does not offer %s", printable(method, 80))
}
