package upstream

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/codemode-dev/codemode/ir"
)

// Auth says how HTTP calls authenticate. Secrets are named by environment
// variable, never written in a pack file; a pack's auth: section decodes
// into this type.
type Auth struct {
	Type        string `yaml:"type"`         // bearer, basic, apiKey, oauth; empty with headers only
	TokenEnv    string `yaml:"token_env"`    // bearer token or API key
	UserEnv     string `yaml:"user_env"`     // basic
	PasswordEnv string `yaml:"password_env"` // basic
	In          string `yaml:"in"`           // apiKey: header (default), query, cookie
	Name        string `yaml:"name"`         // apiKey: header/query/cookie name
	// Headers are sent on every request to the service's origin, with or
	// without a type: header name → value, where "$VAR" (or "${VAR}") is
	// VAR from codemode's environment, a secret; any other value is sent
	// as written.
	Headers map[string]string `yaml:"headers"`

	OAuth `yaml:",inline"`
}

// Secrets returns the secret values a reads from the environment (those
// that are set), for a Redactor.
func (a *Auth) Secrets() []string {
	if a == nil {
		return nil
	}
	var out []string
	for _, name := range []string{a.TokenEnv, a.UserEnv, a.PasswordEnv} {
		if v, ok := os.LookupEnv(name); ok && name != "" {
			out = append(out, v)
		}
	}
	if u, p := os.Getenv(a.UserEnv), os.Getenv(a.PasswordEnv); a.UserEnv != "" && u+p != "" {
		out = append(out, basicValue(u, p))
	}
	for _, v := range a.Headers {
		if ref, ok := EnvRef(v); ok {
			if val, ok := os.LookupEnv(ref); ok {
				out = append(out, val)
			}
		}
	}
	for _, name := range []string{a.ClientSecretEnv, a.IdPClientSecretEnv, a.IDTokenEnv} {
		if v, ok := os.LookupEnv(name); ok && name != "" {
			out = append(out, v)
		}
	}
	return out
}

// credentials put an Auth's secrets on requests to one origin, and take
// them off requests that go anywhere else.
type credentials struct {
	apply   func(*http.Request)
	header  string   // the header that carries the secret, if any
	headers []string // the headers of Auth.Headers
	query   string   // the query parameter that carries it, if any
	cookie  string   // the cookie that carries it, if any
	secrets []string
}

func secret(field, name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("auth: %s is not set in the pack file", field)
	}
	v, ok := os.LookupEnv(name)
	if !ok {
		return "", fmt.Errorf("auth: environment variable %s (%s) is not set", name, field)
	}
	return v, nil
}

func basicValue(user, pass string) string {
	r := &http.Request{Header: http.Header{}}
	r.SetBasicAuth(user, pass)
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ")
}

// newCredentials reads the secrets now. schemes supply an apiKey's name and
// location when the pack gives none. An oauth type puts on only the
// headers: its token comes from the OAuth handler.
func newCredentials(a *Auth, schemes []ir.SecurityScheme, mcp bool) (*credentials, error) {
	var c *credentials
	switch t := strings.ToLower(a.Type); {
	case t == "oauth" && !mcp:
		return nil, fmt.Errorf("auth: type oauth is for mcp_url services; an OpenAPI service takes bearer, basic or apiKey")
	case t == "oauth" || (t == "" && len(a.Headers) > 0):
		c = &credentials{apply: func(*http.Request) {}}
	default:
		var err error
		if c, err = typeCredentials(a, schemes, mcp); err != nil {
			return nil, err
		}
	}
	if len(a.Headers) == 0 {
		return c, nil
	}
	names := make([]string, 0, len(a.Headers))
	for k := range a.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	set := http.Header{}
	for _, k := range names {
		v := a.Headers[k]
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, fmt.Errorf("auth.headers: %q is not a header name", k)
		}
		ck := http.CanonicalHeaderKey(k)
		if reservedHeader[ck] || (ck == "Authorization" && a.Type != "") || (c.header != "" && ck == c.header) {
			return nil, fmt.Errorf("auth.headers: %s is set by codemode itself (or by auth.type); it cannot be a header here", ck)
		}
		if _, dup := set[ck]; dup {
			return nil, fmt.Errorf("auth.headers: %s is given twice", ck)
		}
		if ref, ok := EnvRef(v); ok {
			val, ok := os.LookupEnv(ref)
			if !ok {
				return nil, fmt.Errorf("auth.headers: environment variable %s (header %s) is not set", ref, ck)
			}
			v = val
			c.secrets = append(c.secrets, val)
		}
		if !httpguts.ValidHeaderFieldValue(v) {
			return nil, fmt.Errorf("auth.headers: the value of %s holds a control character (CR, LF or NUL)", ck)
		}
		set[ck] = []string{v}
		c.headers = append(c.headers, ck)
	}
	inner := c.apply
	c.apply = func(r *http.Request) {
		inner(r)
		for k, vs := range set {
			r.Header[k] = append([]string(nil), vs...)
		}
	}
	return c, nil
}

// reservedHeader are the headers codemode's own clients set: a pack cannot
// send its own.
var reservedHeader = map[string]bool{
	"Host": true, "Content-Type": true, "Content-Length": true, "Accept": true, "Transfer-Encoding": true,
	"Connection": true, "Cookie": true, "Mcp-Session-Id": true, "Mcp-Protocol-Version": true, "Last-Event-Id": true,
}

// typeCredentials are the credentials of a's type.
func typeCredentials(a *Auth, schemes []ir.SecurityScheme, mcp bool) (*credentials, error) {
	switch strings.ToLower(a.Type) {
	case "bearer":
		tok, err := secret("token_env", a.TokenEnv)
		if err != nil {
			return nil, err
		}
		return &credentials{header: "Authorization", secrets: []string{tok},
			apply: func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }}, nil
	case "basic":
		user, err := secret("user_env", a.UserEnv)
		if err != nil {
			return nil, err
		}
		pass, err := secret("password_env", a.PasswordEnv)
		if err != nil {
			return nil, err
		}
		return &credentials{header: "Authorization", secrets: []string{user, pass, basicValue(user, pass)},
			apply: func(r *http.Request) { r.SetBasicAuth(user, pass) }}, nil
	case "apikey":
		key, err := secret("token_env", a.TokenEnv)
		if err != nil {
			return nil, err
		}
		in, name := strings.ToLower(a.In), a.Name
		if name == "" {
			var found []ir.SecurityScheme
			for _, s := range schemes {
				if s.Type == "apiKey" {
					found = append(found, s)
				}
			}
			if len(found) != 1 {
				return nil, fmt.Errorf("auth: apiKey needs a name (the spec has %d apiKey schemes to take it from)", len(found))
			}
			name = found[0].Header
			if in == "" {
				in = found[0].In
			}
		}
		c := &credentials{secrets: []string{key}}
		switch in {
		case "", "header":
			c.header = http.CanonicalHeaderKey(name)
			c.apply = func(r *http.Request) { r.Header.Set(name, key) }
		case "query":
			c.query = name
			c.apply = func(r *http.Request) {
				pair := url.QueryEscape(name) + "=" + url.QueryEscape(key)
				if q := r.URL.Query(); q.Has(name) {
					// Put on once (a redirect may already carry it).
					q.Del(name)
					r.URL.RawQuery = q.Encode()
				}
				if r.URL.RawQuery == "" {
					r.URL.RawQuery = pair
				} else {
					r.URL.RawQuery += "&" + pair
				}
			}
		case "cookie":
			c.cookie = name
			c.apply = func(r *http.Request) { r.AddCookie(&http.Cookie{Name: name, Value: key}) }
		default:
			return nil, fmt.Errorf("auth: apiKey in %q: want header, query or cookie", a.In)
		}
		return c, nil
	default:
		if mcp {
			return nil, fmt.Errorf("auth: type %q: want bearer, basic, apiKey or oauth", a.Type)
		}
		return nil, fmt.Errorf("auth: type %q: want bearer, basic or apiKey", a.Type)
	}
}

// strip removes every credential from r: the auth header, the query key,
// cookies, and the headers Go's client copies that could carry one.
func (c *credentials) strip(r *http.Request, extra http.Header) {
	for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2"} {
		r.Header.Del(h)
	}
	for k := range extra {
		r.Header.Del(k)
	}
	if c == nil {
		return
	}
	if c.header != "" {
		r.Header.Del(c.header)
	}
	for _, h := range c.headers {
		r.Header.Del(h)
	}
	if c.query != "" {
		q := r.URL.Query()
		if q.Has(c.query) {
			q.Del(c.query)
			r.URL.RawQuery = q.Encode()
		}
	}
}

// origin is scheme://host:port of u, with the default port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// guardRedirects returns a copy of client (nil: a new one) that never
// sends Referer and, on a redirect, sends credentials only to home's
// origin: on another origin c's secrets and the extra headers are
// stripped; back on home they are put on again.
func guardRedirects(client *http.Client, home *url.URL, c *credentials, extra http.Header) *http.Client {
	hc := &http.Client{}
	if client != nil {
		*hc = *client
	}
	prev := hc.CheckRedirect
	want := origin(home)
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if prev != nil {
			if err := prev(req, via); err != nil {
				return err
			}
		} else if len(via) >= 10 {
			return fmt.Errorf("stopped after 10 redirects")
		}
		req.Header.Del("Referer")
		if origin(req.URL) != want {
			c.strip(req, extra)
			return nil
		}
		if c != nil && c.apply != nil {
			c.strip(req, nil)
			c.apply(req)
		}
		return nil
	}
	return hc
}
