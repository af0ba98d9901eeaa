package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/kandra-go/kandra/auth"
	"github.com/kandra-go/kandra/kerrors"
)

func ExampleFromEnv() {
	os.Setenv("SCYLLA_USERNAME", "app")
	os.Setenv("SCYLLA_PASSWORD", "s3cret")
	defer os.Unsetenv("SCYLLA_USERNAME")
	defer os.Unsetenv("SCYLLA_PASSWORD")

	p := auth.FromEnv()
	c, err := p.Credentials(context.Background())
	fmt.Println(c.Username, err)

	// The environment is read on every call.
	os.Unsetenv("SCYLLA_USERNAME")
	_, err = p.Credentials(context.Background())
	fmt.Println(err)
	fmt.Println(errors.Is(err, kerrors.ErrAuth))
	// Output:
	// app <nil>
	// kandra: auth: environment variable SCYLLA_USERNAME is not set; set it, or use auth.FromFile or auth.Custom
	// true
}

func ExampleFromFile() {
	dir, err := os.MkdirTemp("", "secrets")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	// Secret files usually end with a newline; it is trimmed.
	_ = os.WriteFile(filepath.Join(dir, "username"), []byte("app\n"), 0o600)
	_ = os.WriteFile(filepath.Join(dir, "password"), []byte("s3cret\n"), 0o600)

	p := auth.FromFile(filepath.Join(dir, "username"), filepath.Join(dir, "password"))
	c, err := p.Credentials(context.Background())
	fmt.Println(c, err)

	// A missing file is an *kerrors.AuthError that names the path and
	// unwraps to the *fs.PathError.
	_, err = auth.FromFile(filepath.Join(dir, "username"), filepath.Join(dir, "nope")).Credentials(context.Background())
	var pathErr *fs.PathError
	fmt.Println(errors.Is(err, kerrors.ErrAuth), errors.Is(err, fs.ErrNotExist), errors.As(err, &pathErr))
	// Output:
	// {Username:app Password:***} <nil>
	// true true true
}

func ExampleStatic() {
	// For development and tests only.
	p := auth.Static("cassandra", "cassandra")
	c, _ := p.Credentials(context.Background())
	fmt.Println(c.Username, c.Password == "cassandra")
	// Output: cassandra true
}

func ExampleCustom() {
	errSealed := errors.New("vault is sealed")
	p := auth.Custom(func(ctx context.Context) (auth.Credentials, error) {
		// Ask a secrets manager here, honouring ctx.
		return auth.Credentials{}, errSealed
	})
	_, err := p.Credentials(context.Background())
	fmt.Println(err)
	fmt.Println(errors.Is(err, kerrors.ErrAuth), errors.Is(err, errSealed))
	// Output:
	// kandra: auth: custom credentials provider failed: vault is sealed
	// true true
}

func ExampleCredentials() {
	c := auth.Credentials{Username: "app", Password: "s3cret"}

	fmt.Printf("%v\n", c)
	fmt.Printf("%#v\n", c)
	fmt.Printf("%q\n", c)
	data, _ := json.Marshal(c)
	fmt.Println(string(data))

	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{} // keep the output stable
			}
			return a
		},
	}))
	log.Info("connecting", "creds", c)
	// Output:
	// {Username:app Password:***}
	// auth.Credentials{Username:"app", Password:"***"}
	// "{Username:app Password:***}"
	// {"username":"app","password":"***"}
	// level=INFO msg=connecting creds.username=app creds.password=***
}
