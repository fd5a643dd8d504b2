package redact

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Discover finds the secrets of one call: every value under a field whose
// name says it is a credential (at any depth, in maps and arrays), URL
// passwords and secret query parameters, authorization and cookie headers
// and secret command options inside any string, and the explicit bindings
// (target -> value) the host made for the call.
func Discover(args map[string]any, bound map[string]string) []Secret {
	c := newCollector()
	for target, value := range bound {
		c.add(value, "binding:"+target, target)
	}
	c.walk("", args, "")
	return c.sorted()
}

// DiscoverText finds secrets in free text such as an error message: URL
// passwords and query secrets, authorization headers, assignments to
// secret-named keys and secret command options. source prefixes each
// Secret.Source, e.g. "error".
func DiscoverText(source, text string) []Secret {
	c := newCollector()
	c.text(source, text)
	return c.sorted()
}

// walk visits one argument value. secretKey is the name of the nearest
// enclosing field that marks everything below it as secret, or "".
func (c *collector) walk(path string, v any, secretKey string) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		// headerPair needs a key whose lower case is "value" (and one
		// more); for an ASCII key that is EqualFold, and a key that is
		// not ASCII is left for headerPair to judge.
		pair := false
		for k := range v {
			keys = append(keys, k)
			pair = pair || strings.EqualFold(k, "value") || !isASCII(k)
		}
		if pair && len(v) > 1 {
			c.headerPair(path, v)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sk := secretKey
			if sk == "" && isSecretName(k) {
				sk = k
			}
			c.walk(joinPath(path, k), v[k], sk)
		}
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		c.walk(path, m, secretKey)
	case []any:
		argv := make([]string, 0, len(v))
		for i, e := range v {
			c.walk(path+"["+strconv.Itoa(i)+"]", e, secretKey)
			if s, ok := e.(string); ok {
				argv = append(argv, s)
			}
		}
		if len(argv) == len(v) && len(argv) > 0 {
			c.argv("arg:"+path, argv)
		}
	case []string:
		a := make([]any, len(v))
		for i, s := range v {
			a[i] = s
		}
		c.walk(path, a, secretKey)
	case string:
		if secretKey != "" {
			c.addCredential(v, "arg:"+path, secretKey)
		}
		if mayHoldSecrets(v) { // before its source is built
			c.text("arg:"+path, v)
		}
	case float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
		if secretKey != "" {
			c.add(numberText(v), "arg:"+path, secretKey)
		}
	}
}

// headerPair catches headers given as {"name": "Authorization", "value": "..."}.
func (c *collector) headerPair(path string, m map[string]any) {
	// Keys differing only in case ("name" and "Name") may both be there:
	// the pair is a credential when any name key names a secret, and then
	// every value key's string is one. Sorted, so the outcome never
	// depends on map order.
	var secretName string
	var valueKeys []string
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			continue
		}
		switch strings.ToLower(k) {
		case "name", "key", "header":
			if (isSecretName(s) || isSecretQueryName(s)) && (secretName == "" || s < secretName) {
				secretName = s
			}
		case "value":
			valueKeys = append(valueKeys, k)
		}
	}
	if secretName == "" {
		return
	}
	slices.Sort(valueKeys)
	for _, k := range valueKeys {
		c.addCredential(m[k].(string), "arg:"+joinPath(path, k), secretName)
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// NumberText is the text the views redact a Go number as (its shortest
// decimal form, never an exponent): a value found in it is replaced.
func NumberText(v any) string { return numberText(v) }

func numberText(v any) string {
	switch n := v.(type) {
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(n), 'f', -1, 32)
	case json.Number:
		return n.String()
	case int:
		return strconv.Itoa(n)
	case int64:
		return strconv.FormatInt(n, 10)
	case int32:
		return strconv.FormatInt(int64(n), 10)
	case uint:
		return strconv.FormatUint(uint64(n), 10)
	case uint64:
		return strconv.FormatUint(n, 10)
	case uint32:
		return strconv.FormatUint(uint64(n), 10)
	}
	return ""
}
