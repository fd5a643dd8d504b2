package providers

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"
)

// openAIChat speaks Chat Completions streaming: OpenAI itself and every
// OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio).
type openAIChat struct {
	base
	chat  openai.ChatCompletionService
	tools encodedTools[openai.ChatCompletionToolUnionParam]
}

func newOpenAIChat(b base) *openAIChat {
	return &openAIChat{base: b, chat: openai.NewChatCompletionService(openAIOptions(b)...)}
}

// openAIOptions configure the SDK from b alone. The services are built
// directly, not through openai.NewClient, because NewClient also reads
// OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID and more from the process
// environment: a key for api.openai.com would then go to an
// openai-compatible server that was given none.
func openAIOptions(b base) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithHTTPClient(b.hc),
		option.WithMaxRetries(0),
		option.WithAPIKey(b.key),
	}
	if b.cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(b.cfg.BaseURL))
	}
	return opts
}

func (p *openAIChat) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	params := p.params(req)
	return p.run(ctx, onDelta, func(ctx context.Context, emit func(string)) (Reply, error) {
		return p.try(ctx, params, emit)
	})
}

func (p *openAIChat) params(req Request) openai.ChatCompletionNewParams {
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(p.cfg.Name),
		Messages:      chatMessages(req),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	// OpenAI has moved to max_completion_tokens; the compatible servers
	// all read max_tokens.
	if p.provider == ProviderOpenAICompatible {
		params.MaxTokens = openai.Int(p.maxOutput(req))
	} else {
		params.MaxCompletionTokens = openai.Int(p.maxOutput(req))
	}
	if t := p.temperature(req); t != nil {
		params.Temperature = openai.Float(*t)
	}
	for _, t := range req.Tools {
		params.Tools = append(params.Tools, p.tools.get(t, chatTool))
	}
	return params
}

// chatTool is t as a Chat Completions function tool, encoded once.
func chatTool(t ToolDef) openai.ChatCompletionToolUnionParam {
	fn := openai.ChatCompletionFunctionToolParam{Function: shared.FunctionDefinitionParam{
		Name:        t.Name,
		Description: openai.String(t.Description),
		Parameters:  schemaMap(t.Schema),
	}}
	u := openai.ChatCompletionToolUnionParam{OfFunction: &fn}
	// The override is the union's own: the SDK then checks the kept bytes
	// once per request instead of once per level (tool, union, list).
	if b, ok := preEncoded(u); ok {
		u = param.Override[openai.ChatCompletionToolUnionParam](b)
	}
	return u
}

func chatMessages(req Request) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		out = append(out, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			out = append(out, openai.UserMessage(m.Text))
		case RoleAssistant:
			var a openai.ChatCompletionAssistantMessageParam
			if m.Text != "" {
				a.Content.OfString = openai.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Args},
					}})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case RoleTool:
			for _, r := range m.ToolResults {
				out = append(out, openai.ToolMessage(r.Content, r.CallID))
			}
		}
	}
	return out
}

// schemaMap is a tool's JSON schema as the SDK wants it; an empty one is
// an object without properties.
func schemaMap(raw json.RawMessage) map[string]any {
	m := map[string]any{}
	if len(raw) > 0 && json.Unmarshal(raw, &m) == nil && len(m) > 0 {
		return m
	}
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

func (p *openAIChat) try(ctx context.Context, params openai.ChatCompletionNewParams, emit func(string)) (Reply, error) {
	stream := p.chat.NewStreaming(ctx, params)
	defer stream.Close()
	var (
		reply  Reply
		calls  chatCalls
		finish string
	)
	for stream.Next() {
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() {
			reply.Usage = Usage{
				InputTokens:       chunk.Usage.PromptTokens,
				OutputTokens:      chunk.Usage.CompletionTokens,
				CachedInputTokens: chunk.Usage.PromptTokensDetails.CachedTokens,
			}
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.Delta.Content != "" {
				reply.Text += ch.Delta.Content
				emit(ch.Delta.Content)
			}
			for _, d := range ch.Delta.ToolCalls {
				calls.add(d)
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if err := stream.Err(); err != nil {
		return Reply{}, openAIStreamError(err)
	}
	if finish == "" {
		return Reply{}, errStreamCut
	}
	reply.ToolCalls = calls.result()
	reply.Stop = chatStop(finish, len(reply.ToolCalls) > 0)
	return reply, nil
}

func chatStop(finish string, hasCalls bool) StopReason {
	switch {
	case finish == "length":
		return StopMaxTokens
	case finish == "tool_calls" || finish == "function_call" || hasCalls:
		return StopToolUse
	case finish == "stop":
		return StopEndTurn
	}
	return StopOther
}

// openAIStreamError turns the SDK's in-band error event into an
// inBandError the retry policy reads.
func openAIStreamError(err error) error {
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		var v struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			} `json:"error"`
			Message string `json:"message"`
			Code    string `json:"code"`
		}
		_ = json.Unmarshal(se.Event.Data, &v)
		msg, typ := firstNonEmpty(v.Error.Message, v.Message), firstNonEmpty(v.Error.Type, v.Code)
		if msg == "" {
			msg = string(se.Event.Data)
		}
		return &inBandError{typ: typ, message: msg}
	}
	return err
}
