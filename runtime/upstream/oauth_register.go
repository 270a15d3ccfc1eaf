package upstream

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A dynamically registered client (RFC 7591) is kept beside the tokens, in
// .codemode/oauth/client-<hash of issuer and redirect URI>.json (0600 in a
// 0700 directory), and reused for every later authorisation with the same
// authorization server and redirect URI while its secret has not expired.
// The SDK's handler registers on its own, so the registration is kept at
// the HTTP client it uses: the authorization server's metadata names its
// issuer and registration endpoint; a registration request there is
// answered from the file when it holds a good one, else sent and its
// answer kept. When the server refuses the client (invalid_client, at the
// authorization or the token endpoint) the file is removed, and the
// authorisation is tried once more, registering again.

// keptClient is one registration file.
type keptClient struct {
	Issuer      string          `json:"issuer"`
	RedirectURI string          `json:"redirect_uri"`
	ClientID    string          `json:"client_id"`
	Registered  time.Time       `json:"registered"`
	Response    json.RawMessage `json:"registration"` // the server's answer, as sent
}

// registration is the part of an RFC 7591 answer codemode reads.
type registration struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	ExpiresAt    int64  `json:"client_secret_expires_at"`
}

// clientKeep is one upstream's kept registrations.
type clientKeep struct {
	dir string
	red *Redactor

	mu      sync.Mutex
	issuers map[string]string // registration endpoint → issuer
	dropped int               // registrations removed as refused
}

// clientExpirySlack is how long before its secret expires a kept client is
// no longer used.
const clientExpirySlack = time.Minute

func (k *clientKeep) file(issuer, redirect string) string {
	sum := sha256.Sum256([]byte(issuer + "\n" + redirect))
	return filepath.Join(k.dir, "client-"+hex.EncodeToString(sum[:8])+".json")
}

// drops is how many kept registrations were refused so far.
func (k *clientKeep) drops() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.dropped
}

// load is the kept registration for issuer and redirect, nil when there is
// none that can be used.
func (k *clientKeep) load(issuer, redirect string) *keptClient {
	data, err := os.ReadFile(k.file(issuer, redirect))
	if err != nil {
		return nil
	}
	var kc keptClient
	var reg registration
	if json.Unmarshal(data, &kc) != nil || kc.Issuer != issuer || kc.RedirectURI != redirect || json.Unmarshal(kc.Response, &reg) != nil || reg.ClientID == "" {
		return nil
	}
	if reg.ExpiresAt != 0 && time.Unix(reg.ExpiresAt, 0).Before(time.Now().Add(clientExpirySlack)) {
		return nil
	}
	k.red.Add(reg.ClientSecret)
	return &kc
}

// keep saves a registration answer.
func (k *clientKeep) keep(issuer, redirect string, answer []byte) error {
	var reg registration
	if err := json.Unmarshal(answer, &reg); err != nil || reg.ClientID == "" {
		return nil // not one the SDK can use either
	}
	k.red.Add(reg.ClientSecret)
	data, err := json.MarshalIndent(keptClient{Issuer: issuer, RedirectURI: redirect, ClientID: reg.ClientID,
		Registered: time.Now().UTC().Truncate(time.Second), Response: json.RawMessage(answer)}, "", "  ")
	if err != nil {
		return err
	}
	if err := writePrivate(k.file(issuer, redirect), append(data, '\n')); err != nil {
		return fmt.Errorf("cannot keep the OAuth client registration: %v", err)
	}
	return nil
}

// refused removes the kept registrations of a client the server refused.
func (k *clientKeep) refused(clientID string) {
	if clientID == "" {
		return
	}
	files, _ := filepath.Glob(filepath.Join(k.dir, "client-*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var kc keptClient
		if json.Unmarshal(data, &kc) == nil && kc.ClientID == clientID && os.Remove(f) == nil {
			k.mu.Lock()
			k.dropped++
			k.mu.Unlock()
		}
	}
}

// keepTransport is the authorization server client's transport with the
// kept registrations.
type keepTransport struct {
	base http.RoundTripper
	k    *clientKeep
}

func (t keepTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.k.mu.Lock()
	issuer, isReg := t.k.issuers[endpointKey(req.URL)]
	t.k.mu.Unlock()
	if req.Method == http.MethodPost && isReg {
		return t.register(req, issuer)
	}
	var form url.Values
	if req.Method == http.MethodPost && req.GetBody != nil && strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		if b, err := req.GetBody(); err == nil {
			data, _ := io.ReadAll(io.LimitReader(b, 1<<16))
			b.Close()
			form, _ = url.ParseQuery(string(data))
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	switch {
	case req.Method == http.MethodGet && resp.StatusCode == http.StatusOK && strings.Contains(req.URL.Path, "/.well-known/"):
		body, err := readBack(resp)
		if err != nil {
			return nil, err
		}
		var meta struct {
			Issuer       string `json:"issuer"`
			Registration string `json:"registration_endpoint"`
		}
		if json.Unmarshal(body, &meta) == nil && meta.Issuer != "" && meta.Registration != "" {
			if u, err := url.Parse(meta.Registration); err == nil {
				t.k.mu.Lock()
				t.k.issuers[endpointKey(u)] = meta.Issuer
				t.k.mu.Unlock()
			}
		}
	case req.Method == http.MethodPost && (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnauthorized):
		body, err := readBack(resp)
		if err != nil {
			return nil, err
		}
		if invalidClient(body) {
			id, _, ok := req.BasicAuth()
			if !ok {
				id = form.Get("client_id")
			} else if u, err := url.QueryUnescape(id); err == nil {
				id = u
			}
			t.k.refused(id)
		}
	}
	return resp, nil
}

// register answers a registration request from the kept one, or sends it
// and keeps the answer.
func (t keepTransport) register(req *http.Request, issuer string) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	_ = json.Unmarshal(body, &meta)
	if len(meta.RedirectURIs) != 1 {
		return t.send(req, body)
	}
	redirect := meta.RedirectURIs[0]
	if kc := t.k.load(issuer, redirect); kc != nil {
		return &http.Response{StatusCode: http.StatusCreated, Status: "201 Created", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(kc.Response)),
			ContentLength: int64(len(kc.Response)), Request: req}, nil
	}
	resp, err := t.send(req, body)
	if err != nil || (resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK) {
		return resp, err
	}
	answer, err := readBack(resp)
	if err != nil {
		return nil, err
	}
	if err := t.k.keep(issuer, redirect, answer); err != nil {
		return nil, err
	}
	return resp, nil
}

func (t keepTransport) send(req *http.Request, body []byte) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	return t.base.RoundTrip(req)
}

// readBack reads a response's body and puts it back for the caller.
func readBack(resp *http.Response) ([]byte, error) {
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

// invalidClient says an OAuth error answer is invalid_client.
func invalidClient(body []byte) bool {
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(body, &e) == nil && e.Error == "invalid_client"
}

// endpointKey is a URL without its query and fragment.
func endpointKey(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment = "", ""
	return c.String()
}

// writePrivate replaces path whole with data: 0600 in a 0700 directory.
func writePrivate(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
