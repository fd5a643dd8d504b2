package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// This file keeps Make as it was before its fast paths (map views built by
// cloning, the preview encoded by json.Encoder, every view walked for
// encodability, discovery sorting with sort.Slice and scanning every
// string), so that tests can require byte-identical views from both.

func refMake(raw Raw, secrets []Secret) (v Views) {
	defer func() {
		if recover() != nil {
			v = failedViews()
		}
	}()
	v, err := refMakeViews(raw, secrets)
	if err != nil {
		return failedViews()
	}
	return v
}

func refMakeViews(raw Raw, given []Secret) (Views, error) {
	secrets := refMergeSecrets(given, refDiscover(raw.Args, nil), refDiscoverText("error", raw.ErrorText))
	if raw.IsError {
		secrets = refMergeSecrets(secrets, refDiscoverText("error", raw.Content))
	}
	r := newRedactor(secrets)

	model := raw.Content
	if raw.HasModelOutput {
		model = raw.ModelOutput
	}
	if raw.IsError && model == "" {
		model = raw.ErrorText
	}
	body := raw.Content
	if raw.HasDisplayOutput {
		body = raw.DisplayOutput
	}
	if raw.IsError && body == "" {
		body = raw.ErrorText
	}
	args, err := refPreview(r, raw.Args, cardPreviewLimit)
	if err != nil {
		return Views{}, fmt.Errorf("arguments: %w", err)
	}
	title := r.text(raw.Tool)
	if raw.IsError {
		title += " (error)"
	}

	event := refEventMeta(r, raw, secrets)
	record := refClone(event)
	record["args_preview"] = args
	record["content"] = r.text(raw.Content)
	if raw.HasModelOutput {
		record["model_output"] = r.text(raw.ModelOutput)
	}
	if raw.HasDisplayOutput {
		record["display_output"] = r.text(raw.DisplayOutput)
	}
	if raw.ErrorText != "" {
		record["error"] = r.text(raw.ErrorText)
	}
	if raw.Structured != nil {
		s, err := r.sanitize(raw.Structured, 0)
		if err != nil {
			return Views{}, fmt.Errorf("structured result: %w", err)
		}
		record["structured"] = s
	}
	debug := refClone(event)
	debug["secret_fingerprints"] = r.fingerprints(secrets)

	v := Views{
		Model:  r.text(model),
		Card:   Card{Title: title, Args: args, Body: r.text(body), IsError: raw.IsError},
		Event:  event,
		Record: record,
		Debug:  debug,
	}
	if err := checkEncodable(record); err != nil {
		return Views{}, fmt.Errorf("record view: %w", err)
	}
	if err := checkEncodable(debug); err != nil {
		return Views{}, fmt.Errorf("debug view: %w", err)
	}
	return v, nil
}

func refEventMeta(r *redactor, raw Raw, secrets []Secret) map[string]any {
	keys := make([]string, 0, len(raw.Args))
	for k := range raw.Args {
		keys = append(keys, r.text(k))
	}
	sort.Strings(keys)
	seen := map[string]bool{}
	sources := []string{}
	for _, s := range secrets {
		src := r.text(s.Source)
		if !seen[src] {
			seen[src] = true
			sources = append(sources, src)
		}
	}
	sort.Strings(sources)
	sizes := map[string]any{
		"content_bytes": len(raw.Content),
		"error_bytes":   len(raw.ErrorText),
	}
	if raw.HasModelOutput {
		sizes["model_output_bytes"] = len(raw.ModelOutput)
	}
	if raw.HasDisplayOutput {
		sizes["display_output_bytes"] = len(raw.DisplayOutput)
	}
	if raw.Structured != nil {
		sizes["structured_keys"] = len(raw.Structured)
	}
	return map[string]any{
		"tool":           r.text(raw.Tool),
		"call_id":        r.text(raw.CallID),
		"is_error":       raw.IsError,
		"arg_keys":       keys,
		"sizes":          sizes,
		"secret_sources": sources,
	}
}

func refMergeSecrets(lists ...[]Secret) []Secret {
	seen := map[Secret]bool{}
	var out []Secret
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

func refClone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+4)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func refPreview(r *redactor, args map[string]any, limit int) (string, error) {
	if limit <= 0 {
		limit = DefaultPreviewLimit
	}
	v, err := r.sanitize(args, previewStringMax)
	if err != nil {
		return "", err
	}
	b, err := refMarshal(v)
	if err != nil {
		return "", err
	}
	return cutText(string(b), limit), nil
}

func refMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func refDiscover(args map[string]any, bound map[string]string) []Secret {
	c := &collector{seen: map[Secret]bool{}}
	for target, value := range bound {
		c.add(value, "binding:"+target, target)
	}
	refWalk(c, "", args, "")
	return refSorted(c)
}

func refDiscoverText(source, text string) []Secret {
	c := &collector{seen: map[Secret]bool{}}
	refText(c, source, text)
	return refSorted(c)
}

func refWalk(c *collector, path string, v any, secretKey string) {
	switch v := v.(type) {
	case map[string]any:
		c.headerPair(path, v)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sk := secretKey
			if sk == "" && isSecretName(k) {
				sk = k
			}
			refWalk(c, joinPath(path, k), v[k], sk)
		}
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		refWalk(c, path, m, secretKey)
	case []any:
		argv := make([]string, 0, len(v))
		for i, e := range v {
			refWalk(c, path+"["+strconv.Itoa(i)+"]", e, secretKey)
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
		refWalk(c, path, a, secretKey)
	case string:
		if secretKey != "" {
			c.addCredential(v, "arg:"+path, secretKey)
		}
		refText(c, "arg:"+path, v)
	case float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
		if secretKey != "" {
			c.add(numberText(v), "arg:"+path, secretKey)
		}
	}
}

func refText(c *collector, source, s string) {
	if len(s) < 4 {
		return
	}
	if strings.Contains(s, "://") {
		for _, u := range urlRe().FindAllString(s, -1) {
			c.url(source, u)
		}
	}
	if strings.Contains(s, ":") {
		for _, m := range headerRe().FindAllStringSubmatch(s, -1) {
			c.header(source, m[1], m[2])
		}
		for _, m := range jsonPairRe().FindAllStringSubmatch(s, -1) {
			if !isSecretName(m[1]) {
				continue
			}
			src := source + ":json." + m[1]
			c.add(m[2][1:len(m[2])-1], src, m[1])
			var dec string
			if json.Unmarshal([]byte(m[2]), &dec) == nil {
				c.addCredential(dec, src, m[1])
			}
		}
		for _, m := range lineKeyRe().FindAllStringSubmatch(s, -1) {
			if isSecretName(m[1]) {
				c.addCredential(unquote(strings.TrimSpace(m[2])), source+":line."+m[1], m[1])
			}
		}
	}
	if strings.Contains(s, "=") {
		for _, m := range assignRe().FindAllStringSubmatch(s, -1) {
			if isSecretName(m[1]) {
				c.addCredential(unquote(m[2]), source+":assign."+m[1], m[1])
			}
		}
	}
	if strings.Contains(s, "-") {
		c.command(source, s)
	}
}

func refSorted(c *collector) []Secret {
	sort.Slice(c.out, func(i, j int) bool {
		a, b := c.out[i], c.out[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.Value < b.Value
	})
	return c.out
}

// refCandidates is candidates as it was, indexing from the pair's first
// byte.
func refCandidates(s string) (found [64]bool, any bool) {
	a := anchorTables()
	for i := 0; i+1 < len(s); i++ {
		c0, c1 := s[i], s[i+1]
		if a.pairs[c0][c1>>6]&(1<<(c1&63)) == 0 {
			continue
		}
		for _, r := range a.index[c0] {
			if found[r.kind] || len(s)-i < len(r.anchor) {
				continue
			}
			w := s[i : i+len(r.anchor)]
			if w == r.anchor || (r.fold && strings.EqualFold(w, r.anchor)) {
				found[r.kind], any = true, true
			}
		}
	}
	return found, any
}
