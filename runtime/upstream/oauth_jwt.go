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
	resource := req.URL.String()
	prm := j.resourceMetadata(ctx, challenges, resource)
	if prm == nil {
		u := *req.URL
		u.Path, u.RawQuery = "", ""
		prm = &oauthex.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{u.String()}}
	}
	if len(prm.AuthorizationServers) == 0 {
		return errors.New("protected resource metadata has no authorization servers specified")
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], j.client)
	if err != nil {
		return fmt.Errorf("failed to get authorization server metadata: %w", err)
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{Issuer: prm.AuthorizationServers[0], TokenEndpoint: prm.AuthorizationServers[0] + "/token"}
	}
	scopes := j.scopes
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

// resourceMetadata finds the protected resource metadata: where the
// challenge says, else at the endpoint's path, else at the root; nil
// when there is none (a 2025-03-26 server).
func (j *jwtClient) resourceMetadata(ctx context.Context, challenges []oauthex.Challenge, resource string) *oauthex.ProtectedResourceMetadata {
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
		if prm, err := oauthex.GetProtectedResourceMetadata(ctx, t.url, t.resource, j.client); err == nil && prm != nil {
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
