package upstream

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// jwtClient is the client_credentials grant with private_key_jwt client
// authentication (RFC 7523 §2.2, as SEP-1046 has it): the client proves
// itself with a JWT it signs with its private key (ES256 for a P-256 key,
// RS256 for an RSA key), a fresh one for every token request, with its id
// as iss and sub and the authorization server's issuer as aud.
type jwtClient struct {
	clientID string
	key      crypto.Signer
	alg      string
	scopes   []string
	client   *http.Client

	mu sync.Mutex
	ts oauth2.TokenSource
}

// readClientKey reads a PEM private key (PKCS#8, SEC 1 or PKCS#1).
func readClientKey(file string) (crypto.Signer, string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", fmt.Errorf("auth.client_key_file: %v", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, "", fmt.Errorf("auth.client_key_file: %s holds no PEM block", file)
	}
	var key any
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, "", fmt.Errorf("auth.client_key_file: %s: not a private key (%v)", file, err)
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, "", fmt.Errorf("auth.client_key_file: %s: an EC key must be on P-256 (ES256)", file)
		}
		return k, "ES256", nil
	case *rsa.PrivateKey:
		return k, "RS256", nil
	}
	return nil, "", fmt.Errorf("auth.client_key_file: %s: want an EC P-256 or RSA private key", file)
}

// TokenSource implements auth.OAuthHandler.
func (j *jwtClient) TokenSource(context.Context) (oauth2.TokenSource, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ts, nil
}

// Authorize implements auth.OAuthHandler: discovery as for the other
// grants, then a token with a signed assertion.
func (j *jwtClient) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, resp.Body)
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return fmt.Errorf("failed to parse WWW-Authenticate header: %v", err)
	}
	prm, asm, scopes, err := discover(ctx, j.client, challenges, req.URL, j.scopes)
	if err != nil {
		return err
	}
	src := &assertionSource{j: j, issuer: asm.Issuer, tokenURL: asm.TokenEndpoint, resource: prm.Resource, scopes: scopes}
	tok, err := src.Token()
	if err != nil {
		return fmt.Errorf("client credentials token request failed: %w", err)
	}
	j.mu.Lock()
	j.ts = oauth2.ReuseTokenSource(tok, src)
	j.mu.Unlock()
	return nil
}

// discover finds what a grant needs from a 401: the protected resource
// metadata (or the 2025-03-26 fallback, the server's root), the
// authorization server's metadata (or its default endpoints) and the
// scopes to ask for (configured, challenged, or those the resource lists).
func discover(ctx context.Context, client *http.Client, challenges []oauthex.Challenge, endpoint *url.URL, configured []string) (*oauthex.ProtectedResourceMetadata, *oauthex.AuthServerMeta, []string, error) {
	resource := endpoint.String()
	prm := resourceMetadata(ctx, client, challenges, resource)
	if prm == nil {
		u := *endpoint
		u.Path, u.RawQuery = "", ""
		prm = &oauthex.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{u.String()}}
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, nil, nil, errors.New("protected resource metadata has no authorization servers specified")
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], client)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("failed to get authorization server metadata: %w", err)
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{Issuer: prm.AuthorizationServers[0], TokenEndpoint: prm.AuthorizationServers[0] + "/token"}
	}
	scopes := configured
	if len(scopes) == 0 {
		for _, c := range challenges {
			if c.Scheme == "bearer" && c.Params["scope"] != "" {
				scopes = strings.Fields(c.Params["scope"])
			}
		}
		if len(scopes) == 0 {
			scopes = prm.ScopesSupported
		}
	}
	return prm, asm, scopes, nil
}

// resourceMetadata finds the protected resource metadata: where the
// challenge says, else at the endpoint's path, else at the root; nil
// when there is none (a 2025-03-26 server).
func resourceMetadata(ctx context.Context, client *http.Client, challenges []oauthex.Challenge, resource string) *oauthex.ProtectedResourceMetadata {
	type try struct{ url, resource string }
	var tries []try
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			tries = append(tries, try{u, resource})
			break
		}
	}
	if ru, err := url.Parse(resource); err == nil {
		mu := *ru
		mu.RawQuery = ""
		mu.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(ru.Path, "/")
		tries = append(tries, try{mu.String(), resource})
		mu.Path = "/.well-known/oauth-protected-resource"
		root := *ru
		root.Path, root.RawQuery = "", ""
		tries = append(tries, try{mu.String(), root.String()})
	}
	for _, t := range tries {
		if prm, err := oauthex.GetProtectedResourceMetadata(ctx, t.url, t.resource, client); err == nil && prm != nil {
			return prm
		}
	}
	return nil
}

// assertionSource gets a token with a freshly signed assertion each time.
type assertionSource struct {
	j                          *jwtClient
	issuer, tokenURL, resource string
	scopes                     []string
}

func (s *assertionSource) Token() (*oauth2.Token, error) {
	assertion, err := s.j.sign(s.issuer)
	if err != nil {
		return nil, err
	}
	params := url.Values{
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion":      {assertion},
	}
	if s.resource != "" {
		params.Set("resource", s.resource)
	}
	c := &clientcredentials.Config{ClientID: s.j.clientID, TokenURL: s.tokenURL, Scopes: s.scopes,
		AuthStyle: oauth2.AuthStyleInParams, EndpointParams: params}
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), oauth2.HTTPClient, s.j.client), time.Minute)
	defer cancel()
	return c.Token(ctx)
}

// sign makes the client assertion for an authorization server.
func (j *jwtClient) sign(aud string) (string, error) {
	now := time.Now()
	header, _ := json.Marshal(map[string]string{"alg": j.alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{
		"iss": j.clientID, "sub": j.clientID, "aud": aud, "jti": rand.Text(),
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
	})
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := j.key.(type) {
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		if err != nil {
			return "", err
		}
		sig = append(pad32(r), pad32(s)...)
	case *rsa.PrivateKey:
		var err error
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:]); err != nil {
			return "", err
		}
	default:
		return "", errors.New("unsupported client key")
	}
	return input + "." + enc.EncodeToString(sig), nil
}

// pad32 is n as 32 big-endian bytes (one half of an ES256 signature).
func pad32(n *big.Int) []byte {
	b := make([]byte, 32)
	return n.FillBytes(b)
}

// enterpriseClient is Enterprise-Managed Authorization (SEP-990, "cross-app
// access"): the user's ID token from the organisation's identity provider
// is exchanged there for an ID-JAG (RFC 8693, audience the MCP server's
// authorization server, resource the MCP server), and the ID-JAG at the
// MCP server's authorization server for an access token (the RFC 7523
// JWT bearer grant, the client authenticated as that server asks).
type enterpriseClient struct {
	clientID, secret       string
	idpIssuer              string
	idpClientID, idpSecret string
	idToken                string
	scopes                 []string
	client                 *http.Client

	mu sync.Mutex
	ts oauth2.TokenSource
}

func (e *enterpriseClient) TokenSource(context.Context) (oauth2.TokenSource, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ts, nil
}

func (e *enterpriseClient) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, resp.Body)
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return fmt.Errorf("failed to parse WWW-Authenticate header: %v", err)
	}
	prm, asm, scopes, err := discover(ctx, e.client, challenges, req.URL, e.scopes)
	if err != nil {
		return err
	}
	idpToken, err := tokenEndpoint(ctx, e.client, e.idpIssuer)
	if err != nil {
		return fmt.Errorf("the identity provider %s (auth.idp_issuer): %v", e.idpIssuer, err)
	}
	idpCreds := &oauthex.ClientCredentials{ClientID: e.idpClientID}
	if e.idpSecret != "" {
		idpCreds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: e.idpSecret}
	}
	jag, err := oauthex.ExchangeToken(ctx, idpToken, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG, Audience: asm.Issuer, Resource: prm.Resource, Scope: scopes,
		SubjectToken: e.idToken, SubjectTokenType: oauthex.TokenTypeIDToken,
	}, idpCreds, e.client)
	if err != nil {
		return fmt.Errorf("the identity provider's token exchange failed: %w", err)
	}
	c := &oauth2.Config{ClientID: e.clientID, ClientSecret: e.secret,
		Endpoint: oauth2.Endpoint{TokenURL: asm.TokenEndpoint, AuthStyle: authStyle(asm.TokenEndpointAuthMethodsSupported)}}
	tok, err := c.Exchange(context.WithValue(ctx, oauth2.HTTPClient, e.client), "",
		oauth2.SetAuthURLParam("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
		oauth2.SetAuthURLParam("assertion", jag.AccessToken))
	if err != nil {
		return fmt.Errorf("the JWT bearer grant failed: %w", err)
	}
	e.mu.Lock()
	e.ts = oauth2.StaticTokenSource(tok)
	e.mu.Unlock()
	return nil
}

// authStyle is how a client authenticates at a token endpoint that lists
// these methods: client_secret_basic, which every server must support,
// unless only client_secret_post is listed.
func authStyle(methods []string) oauth2.AuthStyle {
	basic, post := false, false
	for _, m := range methods {
		basic = basic || m == "client_secret_basic"
		post = post || m == "client_secret_post"
	}
	if post && !basic {
		return oauth2.AuthStyleInParams
	}
	if basic {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleAutoDetect
}

// tokenEndpoint is an identity provider's token endpoint, from its OpenID
// or RFC 8414 metadata (the issuer it names must be the one asked for).
// An identity provider is not asked to support PKCE: codemode only
// exchanges a token there.
func tokenEndpoint(ctx context.Context, client *http.Client, issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return "", err
	}
	path := strings.TrimSuffix(u.Path, "/")
	var tried []string
	for _, p := range []string{path + "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server" + path, "/.well-known/openid-configuration" + path} {
		mu := *u
		mu.Path, mu.RawQuery = p, ""
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, mu.String(), nil)
		if err != nil {
			return "", err
		}
		resp, err := client.Do(req)
		if err != nil {
			return "", err
		}
		var meta struct {
			Issuer        string `json:"issuer"`
			TokenEndpoint string `json:"token_endpoint"`
		}
		ok := resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta) == nil
		resp.Body.Close()
		tried = append(tried, mu.String())
		if !ok {
			continue
		}
		if strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return "", fmt.Errorf("its metadata names issuer %q", meta.Issuer)
		}
		if meta.TokenEndpoint == "" {
			return "", errors.New("its metadata names no token_endpoint")
		}
		return meta.TokenEndpoint, nil
	}
	return "", fmt.Errorf("no metadata at %s", strings.Join(tried, ", "))
}
