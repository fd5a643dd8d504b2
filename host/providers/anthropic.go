package providers

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
)

// anthropicProvider speaks Anthropic Messages streaming.
type anthropicProvider struct {
	base
	messages anthropic.MessageService
	tools    encodedTools[anthropic.ToolUnionParam]
}

func newAnthropic(b base) *anthropicProvider {
	// WithoutEnvironmentDefaults: no ANTHROPIC_* variable, profile or
	// credential file of the process reaches the client; only b's key.
	// The key goes as x-api-key, the header Anthropic documents and every
	// Anthropic-compatible proxy reads; this SDK's WithAPIKey sends it as
	// "Authorization: Bearer", which api.anthropic.com and some proxies
	// (LiteLLM) take but others refuse.
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(b.hc),
		option.WithMaxRetries(0),
		option.WithHeader("x-api-key", b.key),
	}
	if b.cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(b.cfg.BaseURL))
	}
	c := anthropic.NewClient(opts...)
	return &anthropicProvider{base: b, messages: c.Messages}
}

func (p *anthropicProvider) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	params := p.params(req)
	var extra []option.RequestOption
	if t := p.temperature(req); t != nil && p.cfg.ThinkingBudget == 0 {
		// This SDK's params have no temperature field; the API still
		// takes it (not with extended thinking, which refuses one).
		extra = append(extra, option.WithJSONSet("temperature", *t))
	}
	return p.run(ctx, onDelta, func(ctx context.Context, emit func(string)) (Reply, error) {
		return p.try(ctx, params, extra, emit)
	})
}

func (p *anthropicProvider) params(req Request) anthropic.MessageNewParams {
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(p.cfg.Name),
		MaxTokens: p.maxOutput(req),
		Messages:  anthropicMessages(req.Messages),
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if b := int64(p.cfg.ThinkingBudget); b > 0 {
		params.Thinking = anthropic.ThinkingConfigParamOfEnabled(b)
		// The budget counts within max_tokens and must stay below it: the
		// answer keeps its own allowance on top.
		params.MaxTokens += b
	}
	for i, t := range req.Tools {
		if i == len(req.Tools)-1 {
			// The last tool carries the request's cache breakpoint
			// (markCacheBreakpoints sets it): built fresh, never kept.
			params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: anthropicToolParam(t)})
			continue
		}
		params.Tools = append(params.Tools, p.tools.get(t, anthropicTool))
	}
	markCacheBreakpoints(&params)
	return params
}

func anthropicToolParam(t ToolDef) *anthropic.ToolParam {
	return &anthropic.ToolParam{
		Name:        t.Name,
		Description: anthropic.String(t.Description),
		InputSchema: anthropicSchema(t.Schema),
	}
}

// anthropicTool is t as an Anthropic tool, encoded once.
func anthropicTool(t ToolDef) anthropic.ToolUnionParam {
	fn := anthropicToolParam(t)
	if b, ok := preEncoded(*fn); ok {
		o := param.Override[anthropic.ToolParam](b)
		fn = &o
	}
	return anthropic.ToolUnionParam{OfTool: fn}
}

// anthropicSchema splits a JSON schema into the SDK's fields, keeping
// every keyword.
func anthropicSchema(raw json.RawMessage) anthropic.ToolInputSchemaParam {
	m := schemaMap(raw)
	s := anthropic.ToolInputSchemaParam{Properties: m["properties"], ExtraFields: map[string]any{}}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range m {
		if k != "properties" && k != "required" && k != "type" {
			s.ExtraFields[k] = v
		}
	}
	return s
}

// anthropicMessages maps the history; tool results are user turns, and
// turns of one role in a row are merged, as the API wants them.
func anthropicMessages(msgs []Message) []anthropic.MessageParam {
	type turn struct {
		user   bool
		blocks []anthropic.ContentBlockParamUnion
	}
	var turns []turn
	add := func(user bool, blocks ...anthropic.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(turns); n > 0 && turns[n-1].user == user {
			turns[n-1].blocks = append(turns[n-1].blocks, blocks...)
			return
		}
		turns = append(turns, turn{user: user, blocks: blocks})
	}
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			add(true, anthropic.NewTextBlock(m.Text))
		case RoleAssistant:
			add(false, anthropicAssistantBlocks(m)...)
		case RoleTool:
			var blocks []anthropic.ContentBlockParamUnion
			for _, r := range m.ToolResults {
				blocks = append(blocks, anthropic.NewToolResultBlock(r.CallID, r.Content, r.IsError))
			}
			add(true, blocks...)
		}
	}
	out := make([]anthropic.MessageParam, 0, len(turns))
	for _, t := range turns {
		if t.user {
			out = append(out, anthropic.NewUserMessage(t.blocks...))
		} else {
			out = append(out, anthropic.NewAssistantMessage(t.blocks...))
		}
	}
	return out
}

// replayInput is a past call's arguments as the API takes them back: a
// JSON object. Arguments the model sent broken (answered with an argument
// error) replay as an empty object, which the API accepts.
func replayInput(args string) any {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) == nil && obj != nil {
		return json.RawMessage(args)
	}
	return map[string]any{}
}

func (p *anthropicProvider) try(ctx context.Context, params anthropic.MessageNewParams, extra []option.RequestOption, emit func(string)) (Reply, error) {
	stream := p.messages.NewStreaming(ctx, params, extra...)
	defer stream.Close()
	var (
		reply   Reply
		blocks  = map[int64]*ToolCall{}
		order   []int64
		gotArgs = map[int64]bool{}
		stopped bool
		stop    anthropic.StopReason
		think   thinkingCollector
	)
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			// Anthropic counts cached input apart; Usage counts it in.
			reply.Usage.InputTokens = u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
			reply.Usage.CachedInputTokens = u.CacheReadInputTokens
			reply.Usage.CacheWriteTokens = u.CacheCreationInputTokens
			reply.Usage.OutputTokens = u.OutputTokens
		case "content_block_start":
			think.start(ev.Index, ev.ContentBlock, len(order))
			if ev.ContentBlock.Type == "tool_use" {
				c := &ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
				if in, err := json.Marshal(ev.ContentBlock.Input); err == nil && ev.ContentBlock.Input != nil {
					c.Args = string(in)
				}
				blocks[ev.Index] = c
				order = append(order, ev.Index)
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				reply.Text += ev.Delta.Text
				emit(ev.Delta.Text)
			case "thinking_delta", "signature_delta":
				think.delta(ev.Index, string(ev.Delta.Type), ev.Delta.Thinking, ev.Delta.Signature)
			case "input_json_delta":
				if c := blocks[ev.Index]; c != nil {
					if !gotArgs[ev.Index] {
						c.Args, gotArgs[ev.Index] = "", true
					}
					c.Args += ev.Delta.PartialJSON
				}
			}
		case "message_delta":
			stop = ev.Delta.StopReason
			if ev.Usage.OutputTokens > 0 {
				reply.Usage.OutputTokens = ev.Usage.OutputTokens
			}
			if ev.Usage.InputTokens > 0 {
				reply.Usage.InputTokens = ev.Usage.InputTokens + ev.Usage.CacheReadInputTokens + ev.Usage.CacheCreationInputTokens
				reply.Usage.CachedInputTokens = ev.Usage.CacheReadInputTokens
				reply.Usage.CacheWriteTokens = ev.Usage.CacheCreationInputTokens
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return Reply{}, anthropicStreamError(err)
	}
	if !stopped {
		return Reply{}, errStreamCut
	}
	for _, i := range order {
		reply.ToolCalls = append(reply.ToolCalls, *blocks[i])
	}
	reply.Reasoning = think.reasoning()
	switch stop {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		reply.Stop = StopEndTurn
	case anthropic.StopReasonToolUse:
		reply.Stop = StopToolUse
	case anthropic.StopReasonMaxTokens:
		reply.Stop = StopMaxTokens
	default:
		reply.Stop = StopOther
	}
	return reply, nil
}

// anthropicStreamError turns the SDK's error event ("event: error") into
// an inBandError; HTTP errors and transport errors pass through (the
// transport's capture describes HTTP errors).
func anthropicStreamError(err error) error {
	var raw string
	var aerr *anthropic.Error
	switch {
	case errors.As(err, &aerr) && aerr.StatusCode < 400:
		raw = aerr.RawJSON()
	case strings.HasPrefix(err.Error(), "received error while streaming: "):
		raw = strings.TrimPrefix(err.Error(), "received error while streaming: ")
	default:
		return err
	}
	var v struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Error   struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(raw), &v)
	typ, msg := firstNonEmpty(v.Error.Type, v.Type), firstNonEmpty(v.Error.Message, v.Message)
	if msg == "" {
		msg = raw
	}
	return &inBandError{typ: typ, message: msg}
}
