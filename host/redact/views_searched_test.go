package redact

import (
	"reflect"
	"strings"
	"testing"
)

// Arguments searched by the caller give the same views as Make's own
// search; not searched (ArgsSearched unset), Make searches them itself
// and ignores ArgSecrets.
func TestMakeTakesTheCallersArgSearch(t *testing.T) {
	raw := Raw{
		Tool: "http_get", CallID: "c1",
		Args:    map[string]any{"url": "https://u:hunter2pass@example.com/?token=tok-123456789", "api_key": "sk-abcdefghijklmnop123456"},
		Content: "got hunter2pass and sk-abcdefghijklmnop123456 back", Structured: map[string]any{"echo": "tok-123456789"},
	}
	own := Make(raw, nil)
	searched := raw
	searched.ArgSecrets, searched.ArgsSearched = Discover(raw.Args, nil), true
	if got := Make(searched, nil); !reflect.DeepEqual(got, own) {
		t.Fatalf("views from the caller's search differ:\n%#v\n%#v", got, own)
	}
	for _, leak := range []string{"hunter2pass", "sk-abcdefghijklmnop123456", "tok-123456789"} {
		if strings.Contains(own.Model.String()+own.Card.Args+own.Card.Body, leak) {
			t.Fatalf("%q left in the views", leak)
		}
	}
	notSearched := raw
	notSearched.ArgSecrets = []Secret{{Value: "back", Source: "bogus", Target: "bogus"}}
	if got := Make(notSearched, nil); !reflect.DeepEqual(got, own) {
		t.Fatal("without ArgsSearched Make must search the arguments itself")
	}
}
