package servers

import (
	"strings"

	"demiurge.dev/host/mcp/testservers/internal/serve"
)

// BadName offers one good tool beside tools whose names no
// provider accepts once prefixed (a space, a dot, too long, non-ASCII) and
// one with a schema that is not an object.
func BadName() {
	s := serve.New("bad_name")
	obj := `{"type":"object"}`
	serve.Raw(s, "good", "A fine tool.", obj, serve.Text("good"))
	serve.Raw(s, "has space", "", obj, serve.Text("x"))
	serve.Raw(s, "dotted.name", "", obj, serve.Text("x"))
	serve.Raw(s, strings.Repeat("long", 16), "", obj, serve.Text("x"))
	serve.Raw(s, "café", "", obj, serve.Text("x"))
	serve.Raw(s, "stringly", "", `{"type":"string"}`, serve.Text("x"))
	serve.Run(s, nil)
}
