package upstream

// Auth says how HTTP calls authenticate. Secrets are named by environment
// variable, never written in a pack file; a pack's auth: section decodes
// into this type.
type Auth struct {
	Type        string `yaml:"type"`         // bearer, basic, apiKey
	TokenEnv    string `yaml:"token_env"`    // bearer token or API key
	UserEnv     string `yaml:"user_env"`     // basic
	PasswordEnv string `yaml:"password_env"` // basic
	In          string `yaml:"in"`           // apiKey: header (default), query, cookie
	Name        string `yaml:"name"`         // apiKey: header/query/cookie name
}
