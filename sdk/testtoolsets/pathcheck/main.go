// Command pathcheck is a test toolset whose tools read a path argument two
// ways: naive_read opens the argument as given (as a plugin author who
// never read the SDK would), sdk_read opens what the host resolved
// (ctx.Open). Both must read the file the host checked, from wherever the
// host was started (cmd/demiurge testdata/script/plugin_paths.txtar).
package main

import (
	"io"
	"os"

	"demiurge.dev/sdk"
)

type params struct {
	Path string `json:"path" jsonschema_description:"File to read, relative to the workspace"`
}

func spec(name string) sdk.Spec {
	return sdk.Spec{
		Name: name, Description: "Reads a file and returns its text.",
		Metadata: sdk.Metadata{Risk: "low", Capability: "fs.read"},
		Effect:   sdk.EffectRead,
		Subjects: []sdk.Subject{sdk.ReadsPath("path")},
	}
}

func main() {
	sdk.Serve(sdk.Toolset{Name: "pathcheck", Version: "0.1.0", Tools: func() []sdk.Tool {
		return []sdk.Tool{
			sdk.Define(spec("naive_read"), func(ctx *sdk.Context, p params) (*sdk.Result, error) {
				b, err := os.ReadFile(p.Path)
				if err != nil {
					return sdk.Errorf("not_found", "%v", err), nil
				}
				return sdk.Text(string(b)), nil
			}),
			sdk.Define(spec("sdk_read"), func(ctx *sdk.Context, p params) (*sdk.Result, error) {
				f, err := ctx.Open("path")
				if err != nil {
					return sdk.Errorf("not_found", "%v", err), nil
				}
				defer f.Close()
				b, err := io.ReadAll(f)
				if err != nil {
					return nil, err
				}
				return sdk.Text(string(b)), nil
			}),
		}
	}})
}
