package oracle

// markup is one spelling of the providers' chat-template and tool-call
// formats (lower case; compared without regard to case).
type markup struct {
	text, kind string
}

// markupByLead holds the spellings by their first two bytes (the second
// in lower case), so a '<' costs one short list, mostly none.
var markupByLead = func() (t [256]*[256][]markup) {
	for _, m := range []markup{
		// ChatML (OpenAI, Qwen), Llama 3, Phi, Gemma, Mistral, Llama 2,
		// gpt-oss harmony, DeepSeek.
		{"<|im_start|>", KindRoleMarkup}, {"<|im_end|>", KindRoleMarkup}, {"<|im_sep|>", KindRoleMarkup},
		{"<|system|>", KindRoleMarkup}, {"<|user|>", KindRoleMarkup}, {"<|assistant|>", KindRoleMarkup},
		{"<|start_header_id|>", KindRoleMarkup}, {"<|end_header_id|>", KindRoleMarkup}, {"<|eot_id|>", KindRoleMarkup},
		{"<|begin_of_text|>", KindRoleMarkup}, {"<|endoftext|>", KindRoleMarkup}, {"<|end|>", KindRoleMarkup},
		{"<|start|>", KindRoleMarkup}, {"<|channel|>", KindRoleMarkup}, {"<|message|>", KindRoleMarkup},
		{"<start_of_turn>", KindRoleMarkup}, {"<end_of_turn>", KindRoleMarkup},
		{"<system>", KindRoleMarkup}, {"</system>", KindRoleMarkup}, {"<|developer|>", KindRoleMarkup},
		{"<｜", KindRoleMarkup}, // DeepSeek's full-width bars: <｜User｜>
		{"[inst]", KindRoleMarkup}, {"[/inst]", KindRoleMarkup}, {"[system]", KindRoleMarkup},
		{"<<sys>>", KindRoleMarkup}, {"<</sys>>", KindRoleMarkup},
		{"\n\nhuman:", KindRoleMarkup}, {"\n\nassistant:", KindRoleMarkup}, {"\n\nsystem:", KindRoleMarkup},
		// The same turn markers with CRLF line ends (an MCP server's or a
		// Windows-made page's output; issue 30).
		{"\r\n\r\nhuman:", KindRoleMarkup}, {"\r\n\r\nassistant:", KindRoleMarkup}, {"\r\n\r\nsystem:", KindRoleMarkup},
		{"\"role\":\"system\"", KindRoleMarkup}, {"\"role\": \"system\"", KindRoleMarkup},
		{"\"role\":\"assistant\"", KindRoleMarkup}, {"\"role\": \"assistant\"", KindRoleMarkup},
		{"\"role\":\"developer\"", KindRoleMarkup}, {"\"role\": \"developer\"", KindRoleMarkup},
		// Pretty-printers that space both sides of the colon (Jackson's,
		// Python's json.dumps(separators=(" : ", ...))), as "tool_calls" :.
		{"\"role\" : \"system\"", KindRoleMarkup}, {"\"role\" : \"assistant\"", KindRoleMarkup},
		{"\"role\" : \"developer\"", KindRoleMarkup},
		// Tool-call formats: Hermes/Qwen, Anthropic's, Llama 3.1, Mistral,
		// OpenAI and Gemini JSON.
		{"<tool_call>", KindToolCallMarkup}, {"</tool_call>", KindToolCallMarkup}, {"<|tool_call|>", KindToolCallMarkup},
		{"<function_calls>", KindToolCallMarkup}, {"</function_calls>", KindToolCallMarkup},
		{"<invoke ", KindToolCallMarkup}, {"<invoke>", KindToolCallMarkup}, {"<function=", KindToolCallMarkup},
		{"<function_results>", KindToolCallMarkup}, {"<tool_use>", KindToolCallMarkup}, {"<tool_result>", KindToolCallMarkup},
		{"<|python_tag|>", KindToolCallMarkup}, {"<|tool_calls_section_begin|>", KindToolCallMarkup},
		{"[tool_calls]", KindToolCallMarkup}, {"\"tool_calls\":", KindToolCallMarkup}, {"\"tool_calls\" :", KindToolCallMarkup},
		{"\"function_call\":", KindToolCallMarkup}, {"\"functioncall\":", KindToolCallMarkup}, {"\"tool_use\"", KindToolCallMarkup},
		{"\"function_call\" :", KindToolCallMarkup}, {"\"functioncall\" :", KindToolCallMarkup}, // Jackson's spacing, as "tool_calls" :
		// Tags the tool-poisoning write-ups hide directives in.
		{"<important>", KindDirectiveTag}, {"<instructions>", KindDirectiveTag}, {"<system_instructions>", KindDirectiveTag},
		{"<system-reminder>", KindDirectiveTag}, {"<admin>", KindDirectiveTag},
	} {
		if t[m.text[0]] == nil {
			t[m.text[0]] = new([256][]markup)
		}
		second := &t[m.text[0]][m.text[1]]
		*second = append(*second, m)
	}
	return t
}()

// markupAt records the markup that starts at s[i], if any.
func markupAt(f *found, s string, i int) {
	if s[i] == '<' && i+1 < len(s) && s[i+1] == '|' {
		// The token with invisible characters taken out (isInvisible).
		if v, _ := visiblePrefix(s[i+2:], 42); specialToken(v) {
			f.add(KindRoleMarkup, i)
			return
		}
	}
	if s[i] == '\n' || s[i] == '\r' {
		if start, ok := turnAt(s, i); ok {
			f.add(KindRoleMarkup, start)
		}
		return
	}
	if i+1 >= len(s) {
		return
	}
	c := s[i+1]
	if c >= 'A' && c <= 'Z' {
		c |= 0x20
	}
	for _, m := range markupByLead[s[i]][c] {
		if hasMarkup(s[i:], m.text) {
			f.add(m.kind, i)
			return
		}
	}
}

// hasFoldPrefix reports whether s starts with lower, ASCII letters of s
// compared in lower case.
func hasFoldPrefix(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for j := 0; j < len(lower); j++ {
		c := s[j]
		if c >= 'A' && c <= 'Z' {
			c |= 0x20
		}
		if c != lower[j] {
			return false
		}
	}
	return true
}

// specialToken reports whether s (what follows "<|") closes a special
// token of the chat templates within 40 bytes: letters, digits, '_', '-'
// and spaces, then "|>" (<|end tool output|>, <|im_middle|>).
func specialToken(s string) bool {
	for j := 0; j < len(s) && j < 40; j++ {
		c := s[j]
		switch {
		case c == '|':
			return j > 0 && j+1 < len(s) && s[j+1] == '>'
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == ' ':
		default:
			return false
		}
	}
	return false
}
