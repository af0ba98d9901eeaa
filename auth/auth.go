// Package auth supplies the username and password a CQL session
// authenticates with, from the environment, from files, from code or from a
// secrets manager, without the password ever reaching logs or error text.
//
// Experimental: this API may change in a minor release.
//
// A [Provider] is asked for [Credentials] whenever a runtime (re)connects,
// possibly from several goroutines at once; the built-in providers read
// their source fresh on every call, so rotating a secret needs no restart.
package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/kandra-go/kandra/kerrors"
)

// Credentials is a username and password for CQL password authentication.
//
// Every way of printing or encoding a Credentials value that goes through
// its methods (all fmt verbs, log/slog, encoding/json, and encoders that use
// encoding.TextMarshaler, such as encoding/xml) shows the password as "***",
// or as "" when it is empty, so that a missing secret stays visible.
//
// Two paths are beyond any method's reach, because fmt then prints the raw
// fields: a struct that holds Credentials (or *Credentials) in an unexported
// field, and the %p verb applied to a Credentials value. So keep
// Credentials out of unexported fields of things that get printed: store
// the [Provider] and ask it when needed (this package's providers print
// without the password), or use an exported field.
type Credentials struct {
	Username string
	Password string
}

// redacted stands in for a non-empty password in every rendering.
const redacted = "***"

func (c Credentials) redactedPassword() string {
	if c.Password == "" {
		return ""
	}
	return redacted
}

// String returns "{Username:alice Password:***}".
func (c Credentials) String() string {
	return "{Username:" + c.Username + " Password:" + c.redactedPassword() + "}"
}

// GoString returns `auth.Credentials{Username:"alice", Password:"***"}`, for
// %#v.
func (c Credentials) GoString() string {
	return "auth.Credentials{Username:" + strconv.Quote(c.Username) +
		", Password:" + strconv.Quote(c.redactedPassword()) + "}"
}

// Format implements fmt.Formatter so that no verb can print the password:
// %v, %+v and %s print [Credentials.String], %#v prints
// [Credentials.GoString], %q quotes String, and any other verb prints
// "%!verb(auth.Credentials={...})" with the password redacted. Width and
// flags apply as they would to the string.
func (c Credentials) Format(f fmt.State, verb rune) {
	switch verb {
	case 'v':
		if f.Flag('#') {
			_, _ = io.WriteString(f, c.GoString())
			return
		}
		fmt.Fprintf(f, fmt.FormatString(f, 's'), c.String())
	case 's', 'q':
		fmt.Fprintf(f, fmt.FormatString(f, verb), c.String())
	default:
		fmt.Fprintf(f, "%%!%c(auth.Credentials=%s)", verb, c.String())
	}
}

// LogValue implements slog.LogValuer: a group with the username and the
// redacted password, for any slog handler.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("username", c.Username),
		slog.String("password", c.redactedPassword()),
	)
}

// MarshalJSON encodes {"username":"alice","password":"***"}, with
// "password" omitted when it is empty. It exists for logs and diagnostics:
// decoding the result gives back "***", not the password.
func (c Credentials) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Username string `json:"username"`
		Password string `json:"password,omitempty"`
	}{c.Username, c.redactedPassword()})
}

// MarshalText returns [Credentials.String], so that encoders that fall back
// to encoding.TextMarshaler (encoding/xml, most YAML and TOML libraries)
// cannot reach the password either.
func (c Credentials) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Provider supplies credentials. Credentials may be called concurrently,
// for example while connections are re-established during a rotation, so
// implementations must be safe for concurrent use.
//
// ctx bounds providers that call out to a secrets manager (Vault, AWS
// Secrets Manager); the environment, file and static providers of this
// package do not block and ignore it. On error, Credentials returns the
// zero Credentials.
type Provider interface {
	Credentials(ctx context.Context) (Credentials, error)
}

// ProviderFunc adapts a function to [Provider]. Unlike [Custom] it returns
// the function's error as is.
type ProviderFunc func(ctx context.Context) (Credentials, error)

// Credentials calls f(ctx).
func (f ProviderFunc) Credentials(ctx context.Context) (Credentials, error) { return f(ctx) }

// The environment variables [FromEnv] reads by default, the names
// ScyllaDB tooling uses.
const (
	// DefaultUsernameEnv holds the username.
	DefaultUsernameEnv = "SCYLLA_USERNAME"
	// DefaultPasswordEnv holds the password.
	DefaultPasswordEnv = "SCYLLA_PASSWORD"
)

// FromEnv reads the username from SCYLLA_USERNAME and the password from
// SCYLLA_PASSWORD; see [FromEnvVars].
func FromEnv() Provider { return FromEnvVars(DefaultUsernameEnv, DefaultPasswordEnv) }

// FromEnvVars reads the username and password from the named environment
// variables, fresh on every call (nothing is cached), so a process that
// reloads its environment picks up rotated credentials.
//
// A variable that is unset or set to the empty string is an error (an
// *kerrors.AuthError): an empty username can never authenticate, and an
// empty password almost always means a secret that failed to be injected,
// which is better reported by name than as a refused login (a provider
// that must send an empty password can use [Custom]). Values are used as
// they are, not trimmed. The messages are deliberately asymmetric: a
// missing username suggests the other providers, since it often
// means the environment is not the right source at all; a missing password
// just names the variable.
func FromEnvVars(userVar, passVar string) Provider {
	return envProvider{userVar: userVar, passVar: passVar}
}

type envProvider struct{ userVar, passVar string }

func (p envProvider) Credentials(context.Context) (Credentials, error) {
	user, ok := os.LookupEnv(p.userVar)
	if !ok || user == "" {
		return Credentials{}, &kerrors.AuthError{Message: "environment variable " + p.userVar + " is " +
			unsetOrEmpty(ok) + "; set it, or use auth.FromFile or auth.Custom"}
	}
	pass, ok := os.LookupEnv(p.passVar)
	if !ok || pass == "" {
		return Credentials{}, &kerrors.AuthError{Message: "environment variable " + p.passVar + " is " + unsetOrEmpty(ok)}
	}
	return Credentials{Username: user, Password: pass}, nil
}

func unsetOrEmpty(set bool) string {
	if set {
		return "empty"
	}
	return "not set"
}

// maxSecretFile bounds what [FromFile] reads, so that a path pointing at
// the wrong thing (a log, a device) fails instead of filling memory.
const maxSecretFile = 64 << 10

// FromFile reads the username and the password from two files, such as
// Docker or Kubernetes secret mounts, fresh on every call, so a rotated
// secret is picked up without a restart. Surrounding whitespace (the
// trailing newline most secret files have) is trimmed.
//
// Failing to read a file returns an *kerrors.AuthError that names the path,
// never the content, and unwraps to the *fs.PathError (so
// errors.Is(err, fs.ErrNotExist) works). A file that is empty after
// trimming, or larger than 64 KiB, is an error too.
//
// The two files are read one after the other, not as a snapshot: a rotation
// that lands between the two reads can pair the old username with the new
// password. Kubernetes swaps a secret's files together, so this needs the
// two reads to straddle the swap; the resulting authentication failure goes
// away on the next attempt.
func FromFile(userPath, passPath string) Provider {
	return fileProvider{userPath: userPath, passPath: passPath}
}

type fileProvider struct{ userPath, passPath string }

func (p fileProvider) Credentials(context.Context) (Credentials, error) {
	user, err := readSecretFile("username", p.userPath)
	if err != nil {
		return Credentials{}, err
	}
	pass, err := readSecretFile("password", p.passPath)
	if err != nil {
		return Credentials{}, err
	}
	return Credentials{Username: user, Password: pass}, nil
}

// readSecretFile reads and trims one secret file. Its errors name the path
// and never include any of the content.
func readSecretFile(what, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", &kerrors.AuthError{Message: "cannot read " + what + " file " + strconv.Quote(path), Cause: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", &kerrors.AuthError{Message: "cannot read " + what + " file " + strconv.Quote(path), Cause: err}
	}
	if len(data) > maxSecretFile {
		return "", &kerrors.AuthError{Message: what + " file " + strconv.Quote(path) + " is larger than 64 KiB; is it the right file?"}
	}
	s := strings.TrimSpace(string(data))
	if s == "" {
		return "", &kerrors.AuthError{Message: what + " file " + strconv.Quote(path) + " is empty"}
	}
	return s, nil
}

// Static always returns the given credentials.
//
// For development and tests only: credentials written in code end up in
// source control, binaries and process dumps, and cannot be rotated without
// a redeploy. The returned Provider is a function value, so printing it (or
// a struct holding it) never shows the password.
func Static(username, password string) Provider {
	c := Credentials{Username: username, Password: password}
	return ProviderFunc(func(context.Context) (Credentials, error) { return c, nil })
}

// Custom adapts fn, the integration point for secrets managers such as
// Vault or AWS Secrets Manager. fn receives the caller's ctx and must be
// safe for concurrent use.
//
// Unlike [ProviderFunc], Custom makes every failure an *kerrors.AuthError,
// so callers can test for kerrors.ErrAuth whatever the source: an error
// from fn that does not already match it is wrapped (errors.Is and errors.As still
// reach it), and the Credentials are zeroed on error. fn's error text is
// included in the wrapper's message, so it must not contain the password.
// Custom panics if fn is nil, at construction rather than at connect time.
func Custom(fn func(ctx context.Context) (Credentials, error)) Provider {
	if fn == nil {
		panic("auth.Custom: nil function")
	}
	return ProviderFunc(func(ctx context.Context) (Credentials, error) {
		c, err := fn(ctx)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, kerrors.ErrAuth) {
			err = &kerrors.AuthError{Message: "custom credentials provider failed", Cause: err}
		}
		return Credentials{}, err
	})
}
