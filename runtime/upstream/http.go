package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// HTTPConfig configures an OpenAPI service's upstream.
type HTTPConfig struct {
	// BaseURL is the pack's base_url; when empty the first of Servers (the
	// manifest service's servers) is used. Either way it must be absolute.
	BaseURL string
	Servers []string
	// Client sends the requests; nil means a client with no timeout of its
	// own (each call's context bounds it).
	Client *http.Client
	// Auth is the pack's auth block; nil sends no credentials. Secrets are
	// read from the environment variables it names when NewHTTP runs.
	Auth *Auth
	// Security is the service's security schemes: an apiKey auth without a
	// Name takes its name and location from the one apiKey scheme here.
	Security []ir.SecurityScheme
	// Header is sent with every request (before auth, which wins).
	Header http.Header
	// MaxResponse caps a response body in bytes (default DefaultMaxReply);
	// a larger body is refused before it is decoded.
	MaxResponse int64
	// Redactor hides secrets in errors and results; the auth secrets are
	// added to it. nil makes one of its own.
	Redactor *Redactor
}

// HTTP calls OpenAPI operations. Credentials are injected into every
// request of the service.
type HTTP struct {
	base    string // no trailing slash
	client  *http.Client
	header  http.Header
	auth    func(*http.Request)
	maxResp int64
	red     *Redactor
}

// NewHTTP checks cfg and reads the auth secrets from the environment.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	base := cfg.BaseURL
	from := "base_url"
	if base == "" {
		if len(cfg.Servers) == 0 {
			return nil, errors.New("no server URL: the spec lists no servers; set base_url in the pack file")
		}
		base, from = cfg.Servers[0], "the spec's first server"
	}
	if strings.ContainsAny(base, "{}") {
		return nil, fmt.Errorf("%s %q has an unfilled {variable}; set base_url in the pack file", from, base)
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v", from, base, err)
	}
	if u.Scheme == "" || u.Host == "" {
		if from == "base_url" {
			return nil, fmt.Errorf("base_url %q is not an absolute URL (want scheme://host[/path])", base)
		}
		return nil, fmt.Errorf("the spec's server URL %q is relative; set base_url in the pack file to the API's absolute URL", base)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s %q: scheme %q is not http or https", from, base, u.Scheme)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%s %q: a server URL cannot carry a query or fragment", from, base)
	}
	h := &HTTP{
		base:    strings.TrimRight(base, "/"),
		header:  cfg.Header.Clone(),
		maxResp: cfg.MaxResponse,
		red:     cfg.Redactor,
	}
	if h.maxResp <= 0 {
		h.maxResp = DefaultMaxReply
	}
	if h.red == nil {
		h.red = NewRedactor()
	}
	var creds *credentials
	if cfg.Auth != nil {
		if creds, err = newCredentials(cfg.Auth, cfg.Security, false); err != nil {
			return nil, err
		}
		h.auth = creds.apply
		h.red.Add(creds.secrets...)
	}
	h.client = guardRedirects(cfg.Client, u, creds, h.header)
	return h, nil
}

// Redactor is the redactor the upstream applies to everything it returns,
// holding its auth secrets; a caller may add more or apply it elsewhere.
func (h *HTTP) Redactor() *Redactor { return h.red }

// Close implements Upstream.
func (h *HTTP) Close() error {
	h.client.CloseIdleConnections()
	return nil
}

// Call implements Upstream.
func (h *HTTP) Call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*Result, error) {
	res, err := h.call(ctx, tool, args)
	if err != nil {
		return nil, h.red.Error(err)
	}
	return h.red.Result(res), nil
}

func (h *HTTP) call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*Result, error) {
	req, err := h.Request(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, tool.HTTP.Path, err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > h.maxResp {
		return nil, fmt.Errorf("%s %s: %s", req.Method, tool.HTTP.Path, replyTooLarge(h.maxResp))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, h.maxResp+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the response: %w", req.Method, tool.HTTP.Path, err)
	}
	if int64(len(body)) > h.maxResp {
		return nil, fmt.Errorf("%s %s: %s", req.Method, tool.HTTP.Path, replyTooLarge(h.maxResp))
	}
	return responseResult(resp, body), nil
}

// responseResult decodes a response into a Result.
func responseResult(resp *http.Response, body []byte) *Result {
	res := &Result{Status: resp.StatusCode}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	isJSON := ct == "application/json" || strings.HasSuffix(ct, "+json")
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		res.Value = nil
	default:
		if v, ok := decodeJSON(body); ok {
			res.Value = v
		} else if isJSON {
			res.Value = string(body) // says JSON, is not: hand over the text
		} else {
			res.Value = string(body)
		}
	}
	if resp.StatusCode >= 400 {
		res.IsError = true
		res.Message = errorMessage(res.Value, body, resp)
	}
	return res
}

const maxMessage = 2000

// errorMessage picks the upstream's own words for an error response.
func errorMessage(v any, body []byte, resp *http.Response) string {
	msg := ""
	if m, ok := v.(map[string]any); ok {
		str := func(k string) string {
			switch x := m[k].(type) {
			case string:
				return x
			case map[string]any:
				if s, ok := x["message"].(string); ok {
					return s
				}
			}
			return ""
		}
		switch {
		case str("message") != "":
			msg = str("message")
		case str("error") != "":
			msg = str("error")
			if d := str("error_description"); d != "" {
				msg += ": " + d
			}
		case str("detail") != "" && str("title") != "":
			msg = str("title") + ": " + str("detail")
		case str("detail") != "":
			msg = str("detail")
		case str("title") != "":
			msg = str("title")
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	if msg == "" {
		msg = resp.Status
		if msg == "" {
			msg = strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
		}
	}
	if len(msg) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8Start(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "… (truncated)"
	}
	return msg
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Request builds the HTTP request for one call (exported for inspection
// and for callers that send requests themselves).
func (h *HTTP) Request(ctx context.Context, tool *manifest.Tool, args map[string]any) (*http.Request, error) {
	op := tool.HTTP
	if op == nil {
		return nil, fmt.Errorf("%s: not an HTTP operation (the manifest has no http entry)", tool.Wire)
	}
	path := op.Path
	var query []string
	header := http.Header{}
	var cookies []string
	bodyFields := map[string]any{}
	var bodyOrder []string
	var whole any
	hasWhole := false
	for i := range tool.Params {
		p := &tool.Params[i]
		v, ok := args[p.Arg]
		if !ok || v == nil {
			if p.In == ir.InPath {
				return nil, fmt.Errorf("%s: path parameter %s is missing", tool.Wire, p.Wire)
			}
			continue
		}
		name := string(p.Wire)
		switch p.In {
		case ir.InPath:
			s, err := pathValue(name, p.Style, explode(p, false), v)
			if err != nil {
				return nil, fmt.Errorf("%s: path parameter %s: %w", tool.Wire, name, err)
			}
			tmpl := "{" + name + "}"
			if !strings.Contains(path, tmpl) {
				return nil, fmt.Errorf("%s: path %s has no {%s}", tool.Wire, op.Path, name)
			}
			next := strings.ReplaceAll(path, tmpl, s)
			if dotSegment(next) && !dotSegment(path) {
				return nil, fmt.Errorf("%s: path parameter %s: %q would make a \".\" or \"..\" path segment, which names another route; refused", tool.Wire, name, text(v))
			}
			path = next
		case ir.InQuery:
			q, err := queryPairs(name, p.Style, explode(p, true), v)
			if err != nil {
				return nil, fmt.Errorf("%s: query parameter %s: %w", tool.Wire, name, err)
			}
			query = append(query, q...)
		case ir.InHeader:
			s, err := simpleValue(v, explode(p, false), nil, true)
			if err != nil {
				return nil, fmt.Errorf("%s: header %s: %w", tool.Wire, name, err)
			}
			header.Add(name, s)
		case ir.InCookie:
			s, err := simpleValue(v, explode(p, true), url.QueryEscape, false)
			if err != nil {
				return nil, fmt.Errorf("%s: cookie %s: %w", tool.Wire, name, err)
			}
			cookies = append(cookies, name+"="+s)
		case ir.InBody:
			bodyFields[name] = v
			bodyOrder = append(bodyOrder, name)
		case ir.InBodyWhole:
			whole, hasWhole = v, true
		default:
			return nil, fmt.Errorf("%s: parameter %s: location %q is not an HTTP location", tool.Wire, name, p.In)
		}
	}
	if i := strings.Index(path, "{"); i >= 0 {
		return nil, fmt.Errorf("%s: path %s: no value for %s", tool.Wire, op.Path, path[i:])
	}
	target := h.base + path
	if len(query) > 0 {
		target += "?" + strings.Join(query, "&")
	}

	var body io.Reader
	contentType := ""
	switch {
	case hasWhole:
		b, ct, err := encodeBody(op.BodyType, whole, nil, tool)
		if err != nil {
			return nil, err
		}
		body, contentType = bytes.NewReader(b), ct
	case len(bodyOrder) > 0 || op.BodySpread && op.BodyRequired:
		b, ct, err := encodeBody(op.BodyType, bodyFields, bodyOrder, tool)
		if err != nil {
			return nil, err
		}
		body, contentType = bytes.NewReader(b), ct
	}

	method := op.Method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, strings.ToUpper(method), target, body)
	if err != nil {
		return nil, fmt.Errorf("%s: building the request: %w", tool.Wire, err)
	}
	for k, vs := range h.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if len(cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(cookies, "; "))
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json, */*;q=0.1")
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "codemode")
	}
	if h.auth != nil {
		h.auth(req)
	}
	return req, nil
}

// dotSegment reports whether a URL path has a "." or ".." segment.
func dotSegment(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

func explode(p *manifest.Param, def bool) bool {
	if p.Explode != nil {
		return *p.Explode
	}
	if p.Style != "" && p.Style != "form" && p.In != ir.InPath && p.In != ir.InHeader {
		return false // spaceDelimited, pipeDelimited, deepObject: explode defaults are per style
	}
	return def
}

// scalar renders a JSON scalar as text; ok is false for arrays and objects.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case nil:
		return "", true
	}
	return "", false
}

// text renders any value: scalars as text, others as compact JSON.
func text(v any) string {
	if s, ok := scalar(v); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// simpleValue is style simple: arrays a,b; objects k,v,k,v or k=v,k=v
// (explode). Each piece is escaped with esc unless raw.
func simpleValue(v any, explode bool, esc func(string) string, raw bool) (string, error) {
	e := esc
	if raw {
		e = func(s string) string { return s }
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = e(text(it))
		}
		return strings.Join(parts, ","), nil
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			if explode {
				parts = append(parts, e(k)+"="+e(text(x[k])))
			} else {
				parts = append(parts, e(k), e(text(x[k])))
			}
		}
		return strings.Join(parts, ","), nil
	}
	s, ok := scalar(v)
	if !ok {
		return "", fmt.Errorf("cannot serialize %T", v)
	}
	return e(s), nil
}

// pathValue serializes a path parameter (styles simple, label, matrix).
func pathValue(name, style string, explode bool, v any) (string, error) {
	esc := url.PathEscape
	switch style {
	case "", "simple":
		return simpleValue(v, explode, esc, false)
	case "label":
		if !explode {
			s, err := simpleValue(v, false, esc, false)
			return "." + s, err
		}
		switch x := v.(type) {
		case []any:
			var b strings.Builder
			for _, it := range x {
				b.WriteString("." + esc(text(it)))
			}
			return b.String(), nil
		case map[string]any:
			var b strings.Builder
			for _, k := range sortedKeys(x) {
				b.WriteString("." + esc(k) + "=" + esc(text(x[k])))
			}
			return b.String(), nil
		}
		s, err := simpleValue(v, true, esc, false)
		return "." + s, err
	case "matrix":
		n := esc(name)
		switch x := v.(type) {
		case []any:
			if !explode {
				s, _ := simpleValue(x, false, esc, false)
				return ";" + n + "=" + s, nil
			}
			var b strings.Builder
			for _, it := range x {
				b.WriteString(";" + n + "=" + esc(text(it)))
			}
			return b.String(), nil
		case map[string]any:
			if !explode {
				s, _ := simpleValue(x, false, esc, false)
				return ";" + n + "=" + s, nil
			}
			var b strings.Builder
			for _, k := range sortedKeys(x) {
				b.WriteString(";" + esc(k) + "=" + esc(text(x[k])))
			}
			return b.String(), nil
		}
		s, ok := scalar(v)
		if !ok {
			return "", fmt.Errorf("cannot serialize %T", v)
		}
		return ";" + n + "=" + esc(s), nil
	}
	return "", fmt.Errorf("style %q is not a path style", style)
}

// queryPairs serializes a query parameter into escaped name=value pairs
// (styles form, spaceDelimited, pipeDelimited, deepObject).
func queryPairs(name, style string, explode bool, v any) ([]string, error) {
	esc := url.QueryEscape
	n := esc(name)
	switch style {
	case "", "form":
		switch x := v.(type) {
		case []any:
			if explode {
				out := make([]string, len(x))
				for i, it := range x {
					out[i] = n + "=" + esc(text(it))
				}
				return out, nil
			}
			s, _ := simpleValue(x, false, esc, false)
			return []string{n + "=" + s}, nil
		case map[string]any:
			if explode {
				var out []string
				for _, k := range sortedKeys(x) {
					out = append(out, esc(k)+"="+esc(text(x[k])))
				}
				return out, nil
			}
			s, _ := simpleValue(x, false, esc, false)
			return []string{n + "=" + s}, nil
		}
		s, ok := scalar(v)
		if !ok {
			return nil, fmt.Errorf("cannot serialize %T", v)
		}
		return []string{n + "=" + esc(s)}, nil
	case "spaceDelimited", "pipeDelimited":
		sep := "%20"
		if style == "pipeDelimited" {
			sep = "|"
		}
		x, ok := v.([]any)
		if !ok {
			return queryPairs(name, "form", explode, v)
		}
		if explode {
			return queryPairs(name, "form", true, v)
		}
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = esc(text(it))
		}
		return []string{n + "=" + strings.Join(parts, sep)}, nil
	case "deepObject":
		x, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("deepObject needs an object, got %T", v)
		}
		var out []string
		var walk func(prefix string, m map[string]any)
		walk = func(prefix string, m map[string]any) {
			for _, k := range sortedKeys(m) {
				key := prefix + "[" + esc(k) + "]"
				switch y := m[k].(type) {
				case map[string]any:
					walk(key, y)
				case []any:
					for _, it := range y {
						out = append(out, key+"="+esc(text(it)))
					}
				default:
					out = append(out, key+"="+esc(text(y)))
				}
			}
		}
		walk(n, x)
		return out, nil
	}
	return nil, fmt.Errorf("style %q is not a query style", style)
}

// encodeBody encodes a request body for mediaType. order lists the spread
// fields in parameter order (nil for a whole body).
func encodeBody(mediaType string, v any, order []string, tool *manifest.Tool) ([]byte, string, error) {
	mt, _, _ := mime.ParseMediaType(mediaType)
	if mediaType == "" {
		mt, mediaType = "application/json", "application/json"
	}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, "", fmt.Errorf("%s: encoding the body: %w", tool.Wire, err)
		}
		return bytes.TrimRight(buf.Bytes(), "\n"), mediaType, nil
	case mt == "application/x-www-form-urlencoded":
		m, ok := v.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("%s: a form body needs an object, got %T", tool.Wire, v)
		}
		if order == nil {
			order = sortedKeys(m)
		}
		var pairs []string
		for _, k := range order {
			if arr, ok := m[k].([]any); ok {
				for _, it := range arr {
					pairs = append(pairs, url.QueryEscape(k)+"="+url.QueryEscape(text(it)))
				}
				continue
			}
			pairs = append(pairs, url.QueryEscape(k)+"="+url.QueryEscape(text(m[k])))
		}
		return []byte(strings.Join(pairs, "&")), mediaType, nil
	case mt == "multipart/form-data":
		m, ok := v.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("%s: a multipart body needs an object, got %T", tool.Wire, v)
		}
		if order == nil {
			order = sortedKeys(m)
		}
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for _, k := range order {
			if err := writePart(w, k, m[k], binaryField(tool, k)); err != nil {
				return nil, "", fmt.Errorf("%s: multipart field %s: %w", tool.Wire, k, err)
			}
		}
		if err := w.Close(); err != nil {
			return nil, "", err
		}
		return buf.Bytes(), w.FormDataContentType(), nil
	default:
		// text/plain, application/octet-stream, XML and the like: a string
		// goes as is, anything else as JSON text.
		if s, ok := v.(string); ok {
			return []byte(s), mediaType, nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, "", fmt.Errorf("%s: encoding the body: %w", tool.Wire, err)
		}
		return b, mediaType, nil
	}
}

// binaryField reports whether body property name is a file (format binary
// or byte in the tool's input schema).
func binaryField(tool *manifest.Tool, name string) bool {
	for _, p := range tool.Params {
		if string(p.Wire) == name && (p.In == ir.InBody || p.In == ir.InBodyWhole) {
			props, _ := tool.Input["properties"].(map[string]any)
			s, _ := props[p.Arg].(map[string]any)
			f, _ := s["format"].(string)
			return f == "binary" || f == "byte"
		}
	}
	return false
}

func writePart(w *multipart.Writer, name string, v any, file bool) error {
	switch {
	case file:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("a file field needs a string, got %T", v)
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, name, name))
		h.Set("Content-Type", "application/octet-stream")
		pw, err := w.CreatePart(h)
		if err != nil {
			return err
		}
		_, err = io.WriteString(pw, s)
		return err
	}
	switch v.(type) {
	case map[string]any, []any:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, name))
		h.Set("Content-Type", "application/json")
		pw, err := w.CreatePart(h)
		if err != nil {
			return err
		}
		_, err = pw.Write(b)
		return err
	}
	return w.WriteField(name, text(v))
}
