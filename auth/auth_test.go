package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kandra-go/kandra/kerrors"
	"pgregory.net/rapid"
)

const secret = `hunter2-S3CRET-"quoted"-<x>&`

// leakForms are the ways a password could show up in output: raw, and as
// fmt, JSON and XML would escape it.
func leakForms(pass string) []string {
	q := strconv.Quote(pass)
	j, _ := json.Marshal(pass)
	var x bytes.Buffer
	_ = xml.EscapeText(&x, []byte(pass))
	return []string{pass, q[1 : len(q)-1], string(j[1 : len(j)-1]), x.String()}
}

// tb is what both *testing.T and *rapid.T provide.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

func assertNoLeak(t tb, pass, where, out string) {
	t.Helper()
	for _, form := range leakForms(pass) {
		if strings.Contains(out, form) {
			t.Errorf("%s leaks the password: %s", where, out)
			return
		}
	}
}

// Exposed holds credentials where fmt, slog and encoders can call their
// methods.
type Exposed struct {
	Name  string
	Creds Credentials
	Ptr   *Credentials
	List  []Credentials
	Map   map[string]Credentials
	Prov  Provider
}

// holder keeps credentials the way the Credentials doc recommends for
// unexported fields: as the Provider, not the Credentials it returned.
type holder struct {
	name string
	prov Provider
}

// renderings returns every output under test, by name.
func renderings(t tb, c Credentials) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%+q", "%#q", "%x", "%X", "%d", "%40v", "%-40s|", "%t"} {
		out["fmt "+verb] = fmt.Sprintf(verb, c)
		out["fmt "+verb+" pointer"] = fmt.Sprintf(verb, &c)
	}
	out["fmt %p pointer"] = fmt.Sprintf("%p", &c)
	c2 := c
	e := Exposed{
		Name: "e", Creds: c, Ptr: &c2, List: []Credentials{c, c},
		Map: map[string]Credentials{"k": c}, Prov: Static(c.Username, c.Password),
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out["fmt nested "+verb] = fmt.Sprintf(verb, e)
		out["fmt holder "+verb] = fmt.Sprintf(verb, holder{name: "h", prov: Static(c.Username, c.Password)})
		out["fmt providers "+verb] = fmt.Sprintf(verb, []Provider{
			Static(c.Username, c.Password),
			Custom(func(context.Context) (Credentials, error) { return c, nil }),
		})
	}
	out["Sprint"] = fmt.Sprint(c, &c)
	out["Sprintln"] = fmt.Sprintln(c, &c)
	out["String"] = c.String()
	out["GoString"] = c.GoString()
	out["Errorf %v"] = fmt.Errorf("connect as %v: %w", c, errors.New("refused")).Error()

	for name, newHandler := range map[string]func(*bytes.Buffer) slog.Handler{
		"slog text": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
		"slog json": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
	} {
		var buf bytes.Buffer
		log := slog.New(newHandler(&buf))
		log.Info("connect", "creds", c, "ptr", &c)
		log.Info("connect", slog.Any("creds", c), slog.Group("g", "creds", c))
		log.Info("nested", "exposed", e)
		log.With("creds", c).Info("with")
		out[name] = buf.String()
	}

	for name, v := range map[string]any{"value": c, "pointer": &c, "nested": e, "map": map[string]Credentials{"k": c}} {
		data, err := json.Marshal(v)
		if err != nil {
			// Exposed.Prov holds a func, which JSON cannot encode; encode
			// the rest.
			e2 := e
			e2.Prov = nil
			data, err = json.Marshal(e2)
			if err != nil {
				t.Fatalf("json.Marshal %s: %v", name, err)
			}
		}
		out["json "+name] = string(data)
	}
	type xmlDoc struct {
		XMLName xml.Name    `xml:"doc"`
		Creds   Credentials `xml:"creds"`
	}
	data, err := xml.Marshal(xmlDoc{Creds: c})
	if err != nil {
		t.Fatalf("xml.Marshal: %v", err)
	}
	out["xml"] = string(data)
	return out
}

func TestCredentialsNeverShowPassword(t *testing.T) {
	c := Credentials{Username: "alice", Password: secret}
	for where, s := range renderings(t, c) {
		assertNoLeak(t, secret, where, s)
	}
}

func TestCredentialsRenderings(t *testing.T) {
	c := Credentials{Username: "alice", Password: secret}
	tests := []struct{ format, want string }{
		{"%v", "{Username:alice Password:***}"},
		{"%+v", "{Username:alice Password:***}"},
		{"%s", "{Username:alice Password:***}"},
		{"%#v", `auth.Credentials{Username:"alice", Password:"***"}`},
		{"%q", `"{Username:alice Password:***}"`},
		{"%d", "%!d(auth.Credentials={Username:alice Password:***})"},
		{"%32v|", fmt.Sprintf("%32s|", "{Username:alice Password:***}")},
		{"%-32s|", fmt.Sprintf("%-32s|", "{Username:alice Password:***}")},
	}
	for _, tt := range tests {
		if got := fmt.Sprintf(tt.format, c); got != tt.want {
			t.Errorf("Sprintf(%q) = %q, want %q", tt.format, got, tt.want)
		}
	}
	if got := fmt.Sprintf("%v", Credentials{Username: "bob"}); got != "{Username:bob Password:}" {
		t.Errorf("empty password renders as %q; an empty password should stay visible as empty", got)
	}
	data, _ := json.Marshal(c)
	if string(data) != `{"username":"alice","password":"***"}` {
		t.Errorf("json = %s", data)
	}
	data, _ = json.Marshal(Credentials{Username: "bob"})
	if string(data) != `{"username":"bob"}` {
		t.Errorf("json with empty password = %s", data)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTime})).Info("m", "creds", c)
	if want := `{"level":"INFO","msg":"m","creds":{"username":"alice","password":"***"}}` + "\n"; buf.String() != want {
		t.Errorf("slog json = %s, want %s", buf.String(), want)
	}
	buf.Reset()
	slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTime})).Info("m", "creds", c)
	if want := "level=INFO msg=m creds.username=alice creds.password=***\n"; buf.String() != want {
		t.Errorf("slog text = %s, want %s", buf.String(), want)
	}
}

func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// Random usernames and passwords: no rendering ever contains the password.
func TestCredentialsNeverShowPasswordProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := Credentials{
			Username: rapid.StringMatching(`[a-z][a-z0-9_.@-]{0,15}`).Draw(rt, "user"),
			Password: rapid.StringMatching(`PW[A-Za-z0-9 !#$%()*+,./:;=?@^_{|}~'"<>&\\-]{8,24}`).Draw(rt, "pass"),
		}
		for where, s := range renderings(rt, c) {
			assertNoLeak(rt, c.Password, where, s)
		}
	})
}

func TestProviderFunc(t *testing.T) {
	boom := errors.New("boom")
	var p Provider = ProviderFunc(func(ctx context.Context) (Credentials, error) {
		return Credentials{Username: "u"}, boom
	})
	_, err := p.Credentials(context.Background())
	if err != boom {
		t.Fatalf("ProviderFunc changed the error: %v", err)
	}
}

func TestFromEnvDefaults(t *testing.T) {
	t.Setenv("SCYLLA_USERNAME", "alice")
	t.Setenv("SCYLLA_PASSWORD", secret)
	c, err := FromEnv().Credentials(context.Background())
	if err != nil || c.Username != "alice" || c.Password != secret {
		t.Fatalf("FromEnv() = %v, %v", c, err)
	}
}

func TestFromEnvReadsFreshEachCall(t *testing.T) {
	t.Setenv("KANDRA_TEST_USER", "alice")
	t.Setenv("KANDRA_TEST_PASS", "first")
	p := FromEnvVars("KANDRA_TEST_USER", "KANDRA_TEST_PASS")
	c, err := p.Credentials(context.Background())
	if err != nil || c != (Credentials{"alice", "first"}) {
		t.Fatalf("first call = %v, %v", c, err)
	}
	os.Setenv("KANDRA_TEST_USER", "bob")
	os.Setenv("KANDRA_TEST_PASS", "second")
	c, err = p.Credentials(context.Background())
	if err != nil || c != (Credentials{"bob", "second"}) {
		t.Fatalf("after rotation = %v, %v; the provider cached the environment", c, err)
	}
}

func TestFromEnvErrors(t *testing.T) {
	const user, pass = "KANDRA_TEST_USER", "KANDRA_TEST_PASS"
	tests := []struct {
		name       string
		user, pass *string // nil: unset
		want       string
	}{
		{"username unset", nil, ptr(secret),
			"kandra: auth: environment variable KANDRA_TEST_USER is not set; set it, or use auth.FromFile or auth.Custom"},
		{"username empty", ptr(""), ptr(secret),
			"kandra: auth: environment variable KANDRA_TEST_USER is empty; set it, or use auth.FromFile or auth.Custom"},
		{"password unset", ptr("alice"), nil,
			"kandra: auth: environment variable KANDRA_TEST_PASS is not set"},
		{"password empty", ptr("alice"), ptr(""),
			"kandra: auth: environment variable KANDRA_TEST_PASS is empty"},
		{"both unset", nil, nil,
			"kandra: auth: environment variable KANDRA_TEST_USER is not set; set it, or use auth.FromFile or auth.Custom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setOrUnset(t, user, tt.user)
			setOrUnset(t, pass, tt.pass)
			c, err := FromEnvVars(user, pass).Credentials(context.Background())
			if err == nil {
				t.Fatalf("got %v, want an error", c)
			}
			if c != (Credentials{}) {
				t.Errorf("credentials on error = %v, want zero", c)
			}
			var ae *kerrors.AuthError
			if !errors.As(err, &ae) || !errors.Is(err, kerrors.ErrAuth) || !errors.Is(err, kerrors.ErrKandra) {
				t.Errorf("error %T is not an *kerrors.AuthError matching ErrAuth", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\nwant    %q", err, tt.want)
			}
			assertNoLeak(t, secret, "error", err.Error())
		})
	}
}

func ptr[T any](v T) *T { return &v }

func setOrUnset(t *testing.T, key string, v *string) {
	t.Helper()
	t.Setenv(key, "") // restores the original value after the test
	if v == nil {
		os.Unsetenv(key)
	} else {
		os.Setenv(key, *v)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestFromFile(t *testing.T) {
	dir := t.TempDir()
	userPath, passPath := filepath.Join(dir, "user"), filepath.Join(dir, "pass")
	writeFile(t, userPath, "  alice\n")
	writeFile(t, passPath, secret+"\r\n\n")
	p := FromFile(userPath, passPath)
	c, err := p.Credentials(context.Background())
	if err != nil || c != (Credentials{"alice", secret}) {
		t.Fatalf("FromFile = %#v, %v", c, err)
	}
	// Fresh on every call.
	writeFile(t, userPath, "bob")
	writeFile(t, passPath, "rotated")
	c, err = p.Credentials(context.Background())
	if err != nil || c != (Credentials{"bob", "rotated"}) {
		t.Fatalf("after rotation = %v, %v; the provider cached the files", c, err)
	}
	// Printing the provider shows paths, not content.
	for _, verb := range []string{"%v", "%+v", "%#v"} {
		assertNoLeak(t, "rotated", "fmt "+verb+" of FromFile", fmt.Sprintf(verb, p))
	}
}

func TestFromFileErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	writeFile(t, good, secret)
	missing := filepath.Join(dir, "missing")
	empty := filepath.Join(dir, "empty")
	writeFile(t, empty, " \n\t\n")
	large := filepath.Join(dir, "large")
	writeFile(t, large, strings.Repeat(secret, maxSecretFile/len(secret)+1))
	sub := filepath.Join(dir, "subdir")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name           string
		user, pass     string
		wantMsg        string
		wantPathErr    bool
		wantNotExist   bool
		wantPathInText string
	}{
		{"username missing", missing, good, `cannot read username file "` + missing + `"`, true, true, missing},
		{"password missing", good, missing, `cannot read password file "` + missing + `"`, true, true, missing},
		{"username empty", empty, good, `username file "` + empty + `" is empty`, false, false, empty},
		{"password empty", good, empty, `password file "` + empty + `" is empty`, false, false, empty},
		{"password too large", good, large, `password file "` + large + `" is larger than 64 KiB`, false, false, large},
		{"password is a directory", good, sub, `cannot read password file "` + sub + `"`, true, false, sub},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "password is a directory" && runtime.GOOS == "windows" {
				t.Skip("opening a directory fails differently on Windows")
			}
			c, err := FromFile(tt.user, tt.pass).Credentials(context.Background())
			if err == nil {
				t.Fatalf("got %v, want an error", c)
			}
			if c != (Credentials{}) {
				t.Errorf("credentials on error = %v, want zero", c)
			}
			var ae *kerrors.AuthError
			if !errors.As(err, &ae) || !errors.Is(err, kerrors.ErrAuth) {
				t.Fatalf("error %T is not an *kerrors.AuthError", err)
			}
			if !strings.Contains(ae.Message, tt.wantMsg) {
				t.Errorf("message %q does not contain %q", ae.Message, tt.wantMsg)
			}
			if !strings.Contains(err.Error(), tt.wantPathInText) {
				t.Errorf("error %q does not name the path", err)
			}
			var pe *fs.PathError
			if got := errors.As(err, &pe); got != tt.wantPathErr {
				t.Errorf("errors.As(*fs.PathError) = %v, want %v", got, tt.wantPathErr)
			} else if got && ae.Unwrap() != pe {
				t.Errorf("AuthError does not unwrap directly to the *fs.PathError")
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.wantNotExist {
				t.Errorf("errors.Is(fs.ErrNotExist) = %v, want %v", got, tt.wantNotExist)
			}
			assertNoLeak(t, secret, "error", err.Error())
			assertNoLeak(t, secret, "error %+v", fmt.Sprintf("%+v", err))
		})
	}
}

func TestStatic(t *testing.T) {
	p := Static("alice", secret)
	for range 2 {
		c, err := p.Credentials(context.Background())
		if err != nil || c != (Credentials{"alice", secret}) {
			t.Fatalf("Static = %v, %v", c, err)
		}
	}
}

type ctxKey struct{}

func TestCustom(t *testing.T) {
	t.Run("passes ctx and result through", func(t *testing.T) {
		ctx := context.WithValue(context.Background(), ctxKey{}, "vault-token")
		p := Custom(func(ctx context.Context) (Credentials, error) {
			return Credentials{Username: ctx.Value(ctxKey{}).(string), Password: secret}, nil
		})
		c, err := p.Credentials(ctx)
		if err != nil || c != (Credentials{"vault-token", secret}) {
			t.Fatalf("Custom = %v, %v", c, err)
		}
	})
	t.Run("wraps a foreign error", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		p := Custom(func(ctx context.Context) (Credentials, error) {
			return Credentials{Username: "half", Password: secret}, ctx.Err()
		})
		c, err := p.Credentials(ctx)
		if c != (Credentials{}) {
			t.Errorf("credentials on error = %v, want zero", c)
		}
		if !errors.Is(err, kerrors.ErrAuth) || !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v: want ErrAuth wrapping context.Canceled", err)
		}
		if want := "kandra: auth: custom credentials provider failed: context canceled"; err.Error() != want {
			t.Errorf("error = %q, want %q", err, want)
		}
	})
	t.Run("keeps an auth error as is", func(t *testing.T) {
		orig := &kerrors.AuthError{Message: "vault sealed"}
		p := Custom(func(context.Context) (Credentials, error) { return Credentials{}, orig })
		_, err := p.Credentials(context.Background())
		if err != orig {
			t.Fatalf("error = %v, want the original *AuthError", err)
		}
	})
	t.Run("nil function panics at construction", func(t *testing.T) {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal("Custom(nil) did not panic")
			}
		}()
		Custom(nil)
	})
}

// All providers are safe for concurrent use, including FromFile while the
// files are replaced atomically (write a temporary file, rename it over the
// old one) and FromEnv while the environment changes. Run with -race.
func TestProvidersConcurrent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows refuses to rename over a file another goroutine has open")
	}
	const (
		readers = 32
		iters   = 200
	)
	dir := t.TempDir()
	userPath, passPath := filepath.Join(dir, "user"), filepath.Join(dir, "pass")
	users := []string{"alice", "bob", "carol"}
	passes := []string{"pw-alice-1", "pw-bob-2", "pw-carol-3"}
	writeFile(t, userPath, users[0]+"\n")
	writeFile(t, passPath, passes[0]+"\n")
	t.Setenv("KANDRA_TEST_USER", users[0])
	t.Setenv("KANDRA_TEST_PASS", passes[0])

	valid := func(c Credentials) bool {
		u, p := false, false
		for i := range users {
			u = u || c.Username == users[i]
			p = p || c.Password == passes[i]
		}
		return u && p
	}
	replace := func(path, content string) error {
		tmp, err := os.CreateTemp(dir, "tmp-*")
		if err != nil {
			return err
		}
		if _, err := tmp.WriteString(content); err != nil {
			tmp.Close()
			return err
		}
		if err := tmp.Close(); err != nil {
			return err
		}
		return os.Rename(tmp.Name(), path)
	}

	var calls atomic.Int64
	providers := map[string]Provider{
		"FromFile":    FromFile(userPath, passPath),
		"FromEnvVars": FromEnvVars("KANDRA_TEST_USER", "KANDRA_TEST_PASS"),
		"Static":      Static("alice", "pw-alice-1"),
		"Custom": Custom(func(context.Context) (Credentials, error) {
			calls.Add(1)
			return Credentials{"bob", "pw-bob-2"}, nil
		}),
		"ProviderFunc": ProviderFunc(func(context.Context) (Credentials, error) {
			return Credentials{"carol", "pw-carol-3"}, nil
		}),
	}

	stop := make(chan struct{})
	var writers sync.WaitGroup
	writerErr := make(chan error, 2)
	writers.Add(2)
	go func() { // rotate the files
		defer writers.Done()
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			k := i % len(users)
			if err := replace(userPath, users[k]+"\n"); err != nil {
				writerErr <- err
				return
			}
			if err := replace(passPath, "  "+passes[k]+"\n"); err != nil {
				writerErr <- err
				return
			}
		}
	}()
	go func() { // rotate the environment
		defer writers.Done()
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			k := i % len(users)
			os.Setenv("KANDRA_TEST_USER", users[k])
			os.Setenv("KANDRA_TEST_PASS", passes[k])
		}
	}()

	var readersWG sync.WaitGroup
	errs := make(chan string, readers)
	for g := range readers {
		readersWG.Add(1)
		go func() {
			defer readersWG.Done()
			for i := range iters {
				for name, p := range providers {
					c, err := p.Credentials(context.Background())
					if err != nil || !valid(c) {
						errs <- fmt.Sprintf("reader %d, call %d, %s: %v, %v", g, i, name, c, err)
						return
					}
				}
			}
		}()
	}
	readersWG.Wait()
	close(stop)
	writers.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	select {
	case err := <-writerErr:
		t.Fatalf("rotating the files: %v", err)
	default:
	}
	if got := calls.Load(); got != readers*iters {
		t.Errorf("custom function called %d times, want %d", got, readers*iters)
	}
}
