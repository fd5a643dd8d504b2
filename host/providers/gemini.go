package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/genai"
)

// geminiDefaultBaseURL is set explicitly: left empty, the SDK would take
// GOOGLE_GEMINI_BASE_URL from the process environment and send the key
// there.
const geminiDefaultBaseURL = "https://generativelanguage.googleapis.com/"

// geminiProvider speaks the Gemini API's streamGenerateContent (SSE) on
// the official SDK, google.golang.org/genai.
type geminiProvider struct {
	base
	models *genai.Models
	tools  encodedTools[*genai.FunctionDeclaration]
}

func newGemini(b base) (Provider, error) {
	baseURL := b.cfg.BaseURL
	if baseURL == "" {
		baseURL = geminiDefaultBaseURL
	}
	one := int32(1) // one attempt: the provider's retries are the only ones
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:     b.key,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: b.hc,
		HTTPOptions: genai.HTTPOptions{
			BaseURL:      baseURL,
			RetryOptions: &genai.HTTPRetryOptions{Attempts: &one},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("model gemini:%s: %s", b.cfg.Name, scrub(err.Error(), b.key))
	}
	return &geminiProvider{base: b, models: c.Models}, nil
}

func (p *geminiProvider) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	contents, cfg := p.params(req)
	return p.run(ctx, onDelta, func(ctx context.Context, emit func(string)) (Reply, error) {
		return p.try(ctx, contents, cfg, emit)
	})
}

func (p *geminiProvider) params(req Request) ([]*genai.Content, *genai.GenerateContentConfig) {
	cfg := &genai.GenerateContentConfig{MaxOutputTokens: int32(min(p.maxOutput(req), 1<<31-1))}
	if req.System != "" {
		cfg.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	if t := p.temperature(req); t != nil {
		f := float32(*t)
		cfg.Temperature = &f
	}
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for _, t := range req.Tools {
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, p.tools.get(t, geminiTool))
		}
		cfg.Tools = []*genai.Tool{tool}
	}
	var contents []*genai.Content
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			contents = append(contents, genai.NewContentFromText(m.Text, genai.RoleUser))
		case RoleAssistant:
			c := &genai.Content{Role: genai.RoleModel}
			if m.Text != "" {
				c.Parts = append(c.Parts, &genai.Part{Text: m.Text, ThoughtSignature: geminiTextSignature(m.Reasoning)})
			}
			for _, call := range m.ToolCalls {
				args := map[string]any{}
				_ = json.Unmarshal([]byte(call.Args), &args) // broken arguments replay as {}
				// The thoughtSignature goes back on the very part it came
				// on: Gemini 3 refuses a tool turn's next request without it.
				c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: call.ID, Name: call.Name, Args: args},
					ThoughtSignature: call.Signature})
			}
			if len(c.Parts) > 0 {
				contents = append(contents, c)
			}
		case RoleTool:
			c := &genai.Content{Role: genai.RoleUser}
			for _, r := range m.ToolResults {
				key := "output"
				if r.IsError {
					key = "error"
				}
				c.Parts = append(c.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{
					ID: r.CallID, Name: r.Name, Response: map[string]any{key: r.Content}}})
			}
			if len(c.Parts) > 0 {
				contents = append(contents, c)
			}
		}
	}
	return contents, cfg
}

// geminiTool is t as a Gemini function declaration, its schema encoded
// once. The SDK encodes the whole request into maps and out again, so the
// schema's JSON (the encoding of its map, as the SDK would write it) gives
// the same bytes on the wire without decoding and encoding the schema at
// every step. Kept declarations are shared: the SDK only reads them.
func geminiTool(t ToolDef) *genai.FunctionDeclaration {
	d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
	m := schemaMap(t.Schema)
	if b, err := json.Marshal(m); err == nil {
		d.ParametersJsonSchema = json.RawMessage(b)
	} else {
		d.ParametersJsonSchema = m
	}
	return d
}

func (p *geminiProvider) try(ctx context.Context, contents []*genai.Content, cfg *genai.GenerateContentConfig, emit func(string)) (Reply, error) {
	var (
		reply  Reply
		finish genai.FinishReason
		// textSig is the signature a text part carried (Gemini 3 puts it
		// on the last part of a reply without calls).
		textSig []byte
	)
	for resp, err := range p.models.GenerateContentStream(ctx, p.cfg.Name, contents, cfg) {
		if err != nil {
			return Reply{}, geminiStreamError(err)
		}
		if u := resp.UsageMetadata; u != nil {
			reply.Usage = Usage{InputTokens: int64(u.PromptTokenCount), OutputTokens: int64(u.CandidatesTokenCount), CachedInputTokens: int64(u.CachedContentTokenCount)}
		}
		if len(resp.Candidates) == 0 {
			continue
		}
		cand := resp.Candidates[0]
		if cand.Content != nil {
			for _, part := range cand.Content.Parts {
				if part.FunctionCall == nil && !part.Thought && len(part.ThoughtSignature) > 0 {
					textSig = part.ThoughtSignature
				}
				switch {
				case part.Thought && part.FunctionCall == nil:
				case part.FunctionCall != nil:
					fc := part.FunctionCall
					args, _ := json.Marshal(fc.Args)
					if fc.Args == nil {
						args = []byte("{}")
					}
					// The Gemini API may leave calls unnamed (results are
					// matched by position); the turn loop gives such calls
					// an id unique in the session.
					reply.ToolCalls = append(reply.ToolCalls, ToolCall{ID: fc.ID, Name: fc.Name, Args: string(args), Signature: part.ThoughtSignature})
				case part.Text != "":
					reply.Text += part.Text
					emit(part.Text)
				}
			}
		}
		if cand.FinishReason != "" {
			finish = cand.FinishReason
		}
	}
	if finish == "" {
		return Reply{}, errStreamCut
	}
	if textSig != nil {
		item, _ := json.Marshal(geminiState{TextSignature: textSig})
		reply.Reasoning = append(reply.Reasoning, Reasoning{Wire: wireGemini, Item: item})
	}
	switch {
	case finish == genai.FinishReasonMaxTokens:
		reply.Stop = StopMaxTokens
	case len(reply.ToolCalls) > 0:
		reply.Stop = StopToolUse
	case finish == genai.FinishReasonStop:
		reply.Stop = StopEndTurn
	default:
		reply.Stop = StopOther
	}
	return reply, nil
}

// geminiStreamError turns an error object inside the stream into an
// inBandError; the transport's capture describes HTTP errors.
func geminiStreamError(err error) error {
	var ae genai.APIError
	if errors.As(err, &ae) {
		return &inBandError{typ: ae.Status, message: ae.Message}
	}
	var aep *genai.APIError
	if errors.As(err, &aep) {
		return &inBandError{typ: aep.Status, message: aep.Message}
	}
	return err
}

// wireGemini tags reasoning state of the Gemini API.
const wireGemini = "gemini"

// geminiState is the signature of a reply's text, kept as Reasoning and
// put back on the replayed text part
// (https://ai.google.dev/gemini-api/docs/thought-signatures).
type geminiState struct {
	TextSignature []byte `json:"text_signature"`
}

func geminiTextSignature(rs []Reasoning) []byte {
	for _, r := range rs {
		var st geminiState
		if r.Wire == wireGemini && json.Unmarshal(r.Item, &st) == nil && len(st.TextSignature) > 0 {
			return st.TextSignature
		}
	}
	return nil
}
