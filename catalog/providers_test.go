package catalog

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseProvider(t *testing.T) {
	tests := []struct {
		in   string
		want Provider
		err  bool
	}{
		{"openai", ProviderOpenAI, false},
		{"Anthropic", ProviderAnthropic, false},
		{" gemini ", ProviderGemini, false},
		{"", "", true},
		{"vertex", "", true},
	}
	for _, tt := range tests {
		got, err := ParseProvider(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseProvider(%q) = %q, %v", tt.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "openai, anthropic or gemini") {
			t.Errorf("error %q does not list the valid providers", err)
		}
	}
}

func TestDefinitions(t *testing.T) {
	c := mustResolve(t, baseSources(), nil)
	readSchema := `{"additionalProperties":false,"properties":{"offset":{"type":"integer"},"path":{"type":"string"}},"required":["path"],"type":"object"}`
	writeSchema := `{"additionalProperties":false,"properties":{"content":{"type":"string"},"path":{"type":"string"}},"required":["path","content"],"type":"object"}`
	tests := []struct {
		provider Provider
		first    string // read_file, canonical JSON
		second   string // write_file
	}{
		{ProviderOpenAI,
			`{"function":{"description":"Read a text file.\nMore detail.","name":"read_file","parameters":` + readSchema + `,"strict":false},"type":"function"}`,
			`{"function":{"description":"Write a file.","name":"write_file","parameters":` + writeSchema + `,"strict":true},"type":"function"}`},
		{ProviderAnthropic,
			`{"description":"Read a text file.\nMore detail.","input_schema":` + readSchema + `,"name":"read_file"}`,
			`{"description":"Write a file.","input_schema":` + writeSchema + `,"name":"write_file"}`},
		{ProviderGemini,
			`{"description":"Read a text file.\nMore detail.","name":"read_file","parametersJsonSchema":` + readSchema + `}`,
			`{"description":"Write a file.","name":"write_file","parametersJsonSchema":` + writeSchema + `}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.provider), func(t *testing.T) {
			defs, err := c.Definitions(tt.provider)
			if err != nil {
				t.Fatal(err)
			}
			if len(defs) != c.Len() {
				t.Fatalf("%d definitions for %d entries", len(defs), c.Len())
			}
			for i, want := range []string{tt.first, tt.second} {
				got, _ := json.Marshal(defs[i])
				if string(got) != want {
					t.Errorf("definition %d:\n got %s\nwant %s", i, got, want)
				}
			}
			// Every tool the catalog has, in catalog order.
			for i, e := range c.Entries() {
				b, _ := json.Marshal(defs[i])
				if !strings.Contains(string(b), `"name":"`+e.Name()+`"`) {
					t.Errorf("definition %d is not %s: %s", i, e.Name(), b)
				}
			}
		})
	}
}

func TestDefinitionsAreFresh(t *testing.T) {
	c := mustResolve(t, baseSources(), nil)
	defs, _ := c.Definitions(ProviderAnthropic)
	defs[0]["input_schema"].(map[string]any)["type"] = "string"
	again, _ := c.Definitions(ProviderAnthropic)
	if again[0]["input_schema"].(map[string]any)["type"] != "object" {
		t.Fatal("changing a returned definition changed the catalog")
	}
}

func TestDefinitionsUnknownProvider(t *testing.T) {
	c := mustResolve(t, baseSources(), nil)
	if _, err := c.Definitions("mistral"); err == nil || !strings.Contains(err.Error(), "openai, anthropic or gemini") {
		t.Fatalf("Definitions(mistral) error = %v", err)
	}
}

// The agent loop builds its tool definitions from Offered and Schema.JSON
// instead of decoding and re-encoding Definitions at every step: both must
// hold the same tools, and the schema must be the same bytes.
func TestOfferedIsWhatDefinitionsHold(t *testing.T) {
	d := NewDisclosure()
	c := mustResolve(t, baseSources(), nil).Defer([]string{"docs", "write_file"}, d)
	check := func(when string) {
		defs, err := c.Definitions(ProviderAnthropic)
		if err != nil {
			t.Fatal(err)
		}
		offered := c.Offered()
		if len(offered) != len(defs) {
			t.Fatalf("%s: %d offered entries for %d definitions", when, len(offered), len(defs))
		}
		for i, e := range offered {
			schema, _ := json.Marshal(defs[i]["input_schema"])
			if defs[i]["name"] != e.Spec.Name || defs[i]["description"] != e.Spec.Description || string(schema) != string(e.Schema.JSON()) {
				t.Errorf("%s: offered %d is %s %q %s, definition is %v %s", when, i, e.Spec.Name, e.Spec.Description, e.Schema.JSON(), defs[i], schema)
			}
		}
	}
	check("deferred")
	if c.Len() == len(c.Offered()) {
		t.Fatal("no entry is hidden")
	}
	d.Activate("docs__search")
	check("activated")
}
