package providers

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// openAIResponses speaks the OpenAI Responses API, streaming. The
// history is sent whole each step (store: false): sessions live in the
// host's store, not on OpenAI's servers.
// wireResponses tags reasoning state of the Responses API.
const wireResponses = "openai-responses"

type openAIResponses struct {
	base
	responses responses.ResponseService
	tools     encodedTools[responses.ToolUnionParam]
}

func newOpenAIResponses(b base) *openAIResponses {
	return &openAIResponses{base: b, responses: responses.NewResponseService(openAIOptions(b)...)}
}

func (p *openAIResponses) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Reply, error) {
	params := p.params(req)
	return p.run(ctx, onDelta, func(ctx context.Context, emit func(string)) (Reply, error) {
		return p.try(ctx, params, emit)
	})
}

func (p *openAIResponses) params(req Request) responses.ResponseNewParams {
	params := responses.ResponseNewParams{
		Model:           shared.ResponsesModel(p.cfg.Name),
		Input:           responses.ResponseNewParamsInputUnion{OfInputItemList: responsesInput(req.Messages)},
		MaxOutputTokens: openai.Int(p.maxOutput(req)),
		Store:           openai.Bool(false),
		// Without a stored response, a reasoning model's state survives
		// between tool steps only as the encrypted reasoning items the
		// host replays; they are sent only when asked for.
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	}
	if req.System != "" {
		params.Instructions = openai.String(req.System)
	}
	if t := p.temperature(req); t != nil {
		params.Temperature = openai.Float(*t)
	}
	for _, t := range req.Tools {
		params.Tools = append(params.Tools, p.tools.get(t, responsesTool))
	}
	return params
}

// responsesTool is t as a Responses function tool, encoded once.
func responsesTool(t ToolDef) responses.ToolUnionParam {
	fn := responses.FunctionToolParam{
		Name:        t.Name,
		Description: openai.String(t.Description),
		Parameters:  schemaMap(t.Schema),
		// Strict mode rewrites what a schema may say; the host's
		// schemas are validated by the host.
		Strict: openai.Bool(false),
	}
	u := responses.ToolUnionParam{OfFunction: &fn}
	// Kept as the union's override: see chatTool.
	if b, ok := preEncoded(u); ok {
		u = param.Override[responses.ToolUnionParam](b)
	}
	return u
}

func responsesInput(msgs []Message) responses.ResponseInputParam {
	var in responses.ResponseInputParam
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			in = append(in, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleUser))
		case RoleAssistant:
			// Reasoning items come first, as the model produced them:
			// https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context
			for _, r := range m.Reasoning {
				if r.Wire == wireResponses && json.Valid(r.Item) {
					in = append(in, param.Override[responses.ResponseInputItemUnionParam](r.Item))
				}
			}
			if m.Text != "" {
				in = append(in, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range m.ToolCalls {
				in = append(in, responses.ResponseInputItemParamOfFunctionCall(c.Args, c.ID, c.Name))
			}
		case RoleTool:
			for _, r := range m.ToolResults {
				item := responses.ResponseInputItemParamOfFunctionCallOutput(r.Content)
				item.OfFunctionCallOutput.CallID = openai.String(r.CallID)
				in = append(in, item)
			}
		}
	}
	return in
}

func (p *openAIResponses) try(ctx context.Context, params responses.ResponseNewParams, emit func(string)) (Reply, error) {
	stream := p.responses.NewStreaming(ctx, params)
	defer stream.Close()
	var (
		reply Reply
		calls = map[int64]*ToolCall{}
		done  bool
	)
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			reply.Text += ev.Delta
			emit(ev.Delta)
		case "response.output_item.done":
			// The completed item: the one whose encrypted_content is whole.
			if ev.Item.Type == "reasoning" {
				if raw := ev.Item.RawJSON(); raw != "" {
					reply.Reasoning = append(reply.Reasoning, Reasoning{Wire: wireResponses, Item: json.RawMessage(raw)})
				}
			}
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				calls[ev.OutputIndex] = &ToolCall{ID: ev.Item.CallID, Name: ev.Item.Name}
			}
		case "response.function_call_arguments.delta":
			if c := calls[ev.OutputIndex]; c != nil {
				c.Args += ev.Delta
			}
		case "response.function_call_arguments.done":
			// The whole text, as the model sent it, settles the deltas.
			if c := calls[ev.OutputIndex]; c != nil {
				c.Args = ev.Arguments
			}
		case "response.completed", "response.incomplete":
			u := ev.Response.Usage
			reply.Usage = Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedInputTokens: u.InputTokensDetails.CachedTokens}
			switch {
			case ev.Type == "response.incomplete" && ev.Response.IncompleteDetails.Reason == "max_output_tokens":
				reply.Stop = StopMaxTokens
			case ev.Type == "response.incomplete":
				reply.Stop = StopOther
			case len(calls) > 0:
				reply.Stop = StopToolUse
			default:
				reply.Stop = StopEndTurn
			}
			done = true
		case "response.failed":
			return Reply{}, &inBandError{typ: string(ev.Response.Error.Code), message: ev.Response.Error.Message}
		case "error":
			return Reply{}, &inBandError{typ: ev.Code, message: ev.Message}
		}
	}
	if err := stream.Err(); err != nil {
		return Reply{}, openAIStreamError(err)
	}
	if !done {
		return Reply{}, errStreamCut
	}
	idx := make([]int64, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, i := range idx {
		reply.ToolCalls = append(reply.ToolCalls, *calls[i])
	}
	return reply, nil
}
