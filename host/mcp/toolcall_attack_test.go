package mcp

import (
	"strings"
	"testing"
)

// answerAttacks are tools/call results built to make plainAnswer, the
// decoder (encoding/json, which matches keys without regard to case and
// lets the last of a repeated key win) and mcp-go read one answer two
// ways: keys that differ only by case (ſ and K too) or are spelled with \u escapes,
// repeated keys whose first or last is plain, a BOM, NUL and other bytes
// around and inside, invalid UTF-8 and lone surrogates, isError of every
// JSON type and nested, trailing garbage, a text of a megabyte.
var answerAttacks = func() []string {
	item := `{"type":"text","text":"benign"}`
	evil := `{"type":"text","text":"evil"}`
	out := []string{
		`{"content":[` + item + `],"Content":[` + evil + `]}`,
		`{"Content":[` + evil + `],"content":[` + item + `]}`,
		`{"content":[` + item + `],"CONTENT":null}`,
		`{"content":[` + item + `],"\u0063ontent":[` + evil + `]}`,
		`{"\u0063ontent":[` + evil + `]}`,
		`{"content":[{"type":"text","text":"benign","Text":"evil"}]}`,
		`{"content":[{"type":"text","text":"benign","te\u0078t":"evil"}]}`,
		`{"content":[{"type":"text","\u0074ext":"evil"}]}`,
		`{"content":[{"type":"te\u0078t","text":"x"}]}`,
		`{"content":[{"type":"text","text":"x"}],"isError":true,"IsError":false}`,
		`{"content":[{"type":"text","text":"x"}],"isError":false,"ISERROR":true}`,
		`{"content":[{"type":"text","text":"x"}],"is\u0045rror":true}`,
		`{"content":[{"type":"text","text":"x"}],"isError":1}`,
		`{"content":[{"type":"text","text":"x"}],"isError":"true"}`,
		`{"content":[{"type":"text","text":"x"}],"isError":[true]}`,
		`{"content":[{"type":"text","text":"x"}],"isError":{"v":true}}`,
		`{"content":[{"type":"text","text":"x"}],"isError":TRUE}`,
		`{"content":[{"type":"text","text":"x"}],"isError":tru}`,
		`{"content":[{"type":"text","text":"x"}],"isError":true` + "\x00" + `}`,
		"\xef\xbb\xbf" + `{"content":[{"type":"text","text":"x"}]}`,
		`{"content":[{"type":"text","text":"x"}]}` + "\x00",
		"\x00" + `{"content":[{"type":"text","text":"x"}]}`,
		`{"content":[{"type":"text","text":"a` + "\x00" + `b"}]}`,
		`{"content":[{"type":"text","text":"a\u0000b"}]}`,
		`{"content":[{"type":"text","text":"\ud800"}]}`,
		`{"content":[{"type":"text","text":"` + "\xed\xa0\x80" + `"}]}`,
		`{"content":[{"type":"text","text":"` + "\xc0\xaf" + `"}]}`,
		`{"content":[{"type":"text","text":"` + "\xf4\x90\x80\x80" + `"}]}`,
		`{"content":[{"type":"text","text":"a\u2028b` + "\u2028" + `"}]}`,
		`{"content":[{"type":"text","text":"x"}]} {"content":[]}`,
		`{"content":[{"type":"text","text":"x"}]}]`,
		`{"content":[{"type":"text","text":"x"}] "isError":true}`,
		`{"content":[{"type":"text","text":"x"}],"isError":true}` + "\v",
		"{\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\f\"isError\":true}",
		"{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]\u00a0}",
		`{"content":[{"type":"text","text":"x"}],"isError":true,"isError":true}`,
		// encoding/json folds ſ (U+017F) to s and K (U+212A) to k
		// in a key; mcp-go and the decoder must agree on each.
		`{"content":[{"type":"text","text":"x"}],"iſError":true}`,
		`{"content":[{"type":"text","text":"x"}],"isError":false,"iſError":true}`,
		`{"content":[{"type":"text","text":"x"}],"isError":true,"IſERROR":false}`,
		`{"content":[{"type":"text","text":"x"}],"ſtructuredContent":{"a":1}}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1},"ſtructuredContent":{"b":2}}`,
		`{"content":[{"type":"text","text":"x"}],"inputRequeſts":{}}`,
		`{"content":[{"type":"text","text":"x"}],"requeſtState":"s"}`,
		`{"content":[{"type":"text","text":"x","annotationſ":{"audience":["user"]}}]}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":{"isError":true}}`,
		`{"content":[{"type":"text","text":"x","isError":true}]}`,
		`{"content":[[{"type":"text","text":"x"}]]}`,
		`{"content":[{"type":"text","text":"x"}`,
		`{"content":[{"type":"text","text":"x"},`,
		`{"content":[{"type":"text","text":"x"}],`,
		`{"content"`,
		`{`,
		``,
		` `,
		`{"content":[{"type":"text","text":"` + strings.Repeat("a", 1<<20) + `"}]}`,
		`{"content":[` + strings.Repeat(`{"type":"text","text":"l"},`, 5000) + item + `]}`,
	}
	return out
}()

// TestAnswerAttacks: each attack reads, or is refused, as mcp-go's
// CallTool reads it, whichever way readAnswer took; what plainAnswer
// reads itself the decoder reads alike. plainAnswer reads only the
// plain one of them (the megabyte and the 5001 items).
func TestAnswerAttacks(t *testing.T) {
	a := redactingAdapter()
	plain := 0
	for _, raw := range answerAttacks {
		if _, _, ok := plainAnswer([]byte(raw)); ok {
			plain++
		}
		samePlainAsDecoder(t, raw)
		sameAsMCPGo(t, a, raw)
	}
	if plain != 2 {
		t.Errorf("plainAnswer read %d of the attacks, want the 2 plain ones", plain)
	}
}
