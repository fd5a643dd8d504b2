package untrusted

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

// mayOpenMarkup reports whether the three bytes of s from i are the
// first three of some markup (markupThree): markupAt finds none where
// they are not. Its callers ask it first (it is inlined, markupAt is
// not): most markup bytes of a page open none, and on Markdown most are
// paragraph breaks ("\n\n", which the mask kernel passes for
// "\n\nHuman:"), each ~200 instructions in markupAt (stop 57).
func mayOpenMarkup(s string, i int) bool {
	if i+3 > len(s) {
		return false
	}
	t := s[i : i+3]
	k := markupKey(t[0], t[1], t[2])
	return markupThree[k>>6%uint(len(markupThree))]&(1<<(k&63)) != 0
}

// markups yields every spelling of markupByLead.
func markups(yield func(markup) bool) {
	for _, second := range markupByLead {
		if second == nil {
			continue
		}
		for _, ms := range second {
			for _, m := range ms {
				if !yield(m) {
					return
				}
			}
		}
	}
}

// markupKey is three bytes by their low five bits: a letter's are the
// same in either case, as markupAt compares them.
func markupKey(a, b, c byte) uint { return uint(a&31)<<10 | uint(b&31)<<5 | uint(c&31) }

// markupThree is the keys (markupKey) of the first three bytes of every
// spelling in markupByLead and of "<|" with any third byte (the special
// tokens: specialToken): a bit set of 4 KiB, of which a page touches a
// few lines. Every markup is four bytes or more (markupQuick).
var markupThree = func() (t [1 << 15 / 64]uint64) {
	set := func(a, b, c byte) {
		k := markupKey(a, b, c)
		t[k>>6] |= 1 << (k & 63)
	}
	for m := range markups {
		set(m.text[0], m.text[1], m.text[2])
	}
	for c := 0; c < 32; c++ {
		set('<', '|', byte(c))
	}
	for _, c := range turnThirds {
		set('\n', '\n', c)
		set('\r', '\n', c)
	}
	return t
}()

// mayOpenMarkupQuick reports whether the four bytes of s from i may be
// the first four of some markup, by their first, second and fourth
// (quickKey): the mask kernels' test of their markup bytes (specialAt),
// one by one, five instructions a byte in the assembly (a four-byte
// load, and, multiply, shift, table), where the two-byte test it
// replaced was eight and an exact key ten more (stop 57, s57-f). Every
// markup is four bytes or more (markupQuick's making reads the fourth),
// and markupQuick holds the key of every one's first four, each letter in
// either case, and of "<|" with any fourth byte (the special tokens:
// specialToken), and of the turn markers' bytes from their last gate
// (turnKeys), so it passes every place markupAt finds one
// (TestMayOpenMarkupQuickPassesEveryMarkup, TestTurnMarkerSpellings).
//
// The fourth byte and not the third (stop 59, s59-c): the keys of three
// bytes passed every "\n\nA " of prose as "\n\nassistant:" (270 of the
// 405 markup bytes a MiB of the guides that reached markupAt, each then
// ~200 instructions to find nothing, and most of their blocks' special
// bits), and "<|" with any third byte; with the fourth, "<|" is 128 keys
// (the third byte's two bits, quickKey), not 1,024 as with all four, and
// the table holds 206. The specials judge the bits it sets by
// mayOpenMarkup (the first three bytes) before markupAt, so the few it
// passes by a collision cost a look, not a finding.
func mayOpenMarkupQuick(s string, i int) bool {
	if i+4 > len(s) {
		return false
	}
	w := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
	return markupQuick[quickKey(w)] != 0
}

// quickKey is mayOpenMarkupQuick's hash of four bytes w (the first in
// the low byte): the low five bits of the first, second and fourth (a
// letter's are the same in either case, as markupAt compares them) and
// the third's bits 0x40 and 0x02 (the same in either case: a letter has
// 0x40, a space or tab neither, a '\n' 0x02: the turn markers' "\n\n
// Human:" apart from "\n\nThe" and "\n\n\n\n", turnKeys), to 12 bits.
// The assembly computes it as written here. Its multiplier is, of the
// 40 of 4,000 tried with the fewest passes outside the keys' own on the
// four pages of the benchmarks, the one with the fewest on those and
// 7.6 MB of other Markdown and HTML together (28 a MiB of each page
// summed, 512 in the 7.6 MB; stop 59).
func quickKey(w uint32) uint32 { return (w & 0x1F421F1F) * 0x24FCBBAF >> 20 }

// markupQuick[quickKey(w)] is 0xFF where the four bytes w may be the
// first four of some markup, else 0 (4 KiB: the assembly loads it
// sign-extended, a mask).
var markupQuick = func() (t [1 << 12]uint8) {
	set := func(a, b, c, d byte) {
		t[quickKey(uint32(a)|uint32(b)<<8|uint32(c)<<16|uint32(d)<<24)] = 0xFF
	}
	for m := range markups {
		// The fourth byte, or an invisible character's first
		// (invisibleLeads), which the markup tests step over
		// there (invisible.go).
		for _, d := range append([]byte{m.text[3]}, invisibleLeads...) {
			set(m.text[0], m.text[1], m.text[2], d)
		}
	}
	for d := 0; d < 32; d++ {
		for _, c := range []byte{0, 0x02, 0x40, 0x42} {
			set('<', '|', c, byte(d))
		}
	}
	for _, k := range turnKeys {
		ds := []byte{k[1]}
		if k[0] != ' ' {
			ds = append(ds, invisibleLeads...) // "\n\nH\u00adu"
		}
		for _, d := range ds {
			set('\n', '\n', k[0], d)
			set('\r', '\n', k[0], d)
		}
	}
	return t
}()

// markupAt records the markup that starts at s[i], if any.
func markupAt(f *found, s string, i int) {
	if s[i] == '<' && i+1 < len(s) && s[i+1] == '|' && specialToken(s[i+2:]) {
		f.add(KindRoleMarkup, i)
		return
	}
	if s[i] == '\n' || s[i] == '\r' {
		// Most line ends here are paragraph breaks before a byte
		// that shares a turn's key ("\n\n```", "\n\nIn": turnThirds).
		if i+2 >= len(s) || !turnThird[s[i+2]] {
			return
		}
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
		if hasFoldPrefix(s[i:], m.text) {
			f.add(m.kind, i)
			return
		}
	}
}

// hasFoldPrefix reports whether s starts with lower, ASCII letters of s
// compared in lower case, invisible characters (invisibleLen) after its
// first three bytes stepped over (those are mayOpenMarkup's key; the
// quick key's fourth byte may be one's first, invisibleLeads).
func hasFoldPrefix(s, lower string) bool {
	return foldPrefixEnd(s, lower, 3) >= 0
}

// foldPrefixEnd is where in s lower ends if s starts with it as
// hasFoldPrefix has it, invisible characters stepped over after lower's
// first from bytes; else -1. (They are looked for only where a byte
// differs: an invisible character's lead byte is no byte of lower.)
func foldPrefixEnd(s, lower string, from int) int {
	if len(s) < len(lower) {
		return -1
	}
	j := 0
	for k := 0; k < len(lower); k++ {
		if j >= len(s) {
			return -1
		}
		c := s[j]
		if c >= 'A' && c <= 'Z' {
			c |= 0x20
		}
		if c != lower[k] {
			n := 0
			if k >= from && c >= 0xC2 {
				n = invisibleLen(s[j:])
			}
			if n == 0 {
				return -1
			}
			j, k = j+n, k-1
			continue
		}
		j++
	}
	return j
}

// specialToken reports whether s (what follows "<|") closes a special
// token of the chat templates within 40 bytes: letters, digits, '_', '-'
// and spaces, then "|>" (<|end tool output|>, <|im_middle|>); invisible
// characters (invisibleLen) stepped over, not counted.
func specialToken(s string) bool {
	n := 0
	for j := 0; j < len(s) && n < 40; j++ {
		c := s[j]
		switch {
		case c == '|':
			k := j + 1
			if k < len(s) && s[k] >= 0xC2 {
				k = skipInvisible(s, k)
			}
			return n > 0 && k < len(s) && s[k] == '>'
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == ' ':
		default:
			l := invisibleLen(s[j:])
			if l == 0 {
				return false
			}
			j += l - 1
			continue
		}
		n++
	}
	return false
}
