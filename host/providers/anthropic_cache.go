package providers

import "github.com/anthropics/anthropic-sdk-go/v2"

// maxCacheBreakpoints is Anthropic's limit of cache_control blocks in one
// request.
const maxCacheBreakpoints = 4

// markCacheBreakpoints places Anthropic prompt-caching breakpoints as
// https://docs.claude.com/en/docs/build-with-claude/prompt-caching
// describes them. The cached prefix runs tools, then system, then
// messages, so a breakpoint caches everything before it:
//   - the last tool definition (the tool set, stable across a session),
//   - the system text (stable across a session),
//   - the last block of the last message (this step's whole prompt, read
//     back by the next step),
//   - the last block of the message before the newest user turn, the
//     breakpoint the previous step wrote: the next read finds it even when
//     this step added more blocks than the API's 20-block look-back.
//
// At most maxCacheBreakpoints are set; a prefix shorter than the model's
// minimum cacheable length is simply not cached (no error).
func markCacheBreakpoints(p *anthropic.MessageNewParams) {
	n := 0
	mark := func(cc *anthropic.CacheControlEphemeralParam) {
		if cc == nil || n >= maxCacheBreakpoints || cc.Type != "" {
			return
		}
		*cc = anthropic.NewCacheControlEphemeralParam()
		n++
	}
	if k := len(p.Tools); k > 0 && p.Tools[k-1].OfTool != nil {
		mark(&p.Tools[k-1].OfTool.CacheControl)
	}
	if k := len(p.System); k > 0 {
		mark(&p.System[k-1].CacheControl)
	}
	last := len(p.Messages) - 1
	if last < 0 {
		return
	}
	mark(lastBlockCache(p.Messages[last]))
	// The previous step's prompt ended with the user turn before the
	// newest assistant message.
	for i := last - 1; i >= 0; i-- {
		if p.Messages[i].OfUser != nil {
			mark(lastBlockCache(p.Messages[i]))
			break
		}
	}
}

// lastBlockCache is the cache_control field of a message's last block,
// nil when that block cannot carry one.
func lastBlockCache(m anthropic.MessageParam) *anthropic.CacheControlEphemeralParam {
	var blocks []anthropic.ContentBlockParamUnion
	switch {
	case m.OfUser != nil:
		blocks = m.OfUser.Content
	case m.OfAssistant != nil:
		blocks = m.OfAssistant.Content
	}
	if len(blocks) == 0 {
		return nil
	}
	return blocks[len(blocks)-1].GetCacheControl()
}
