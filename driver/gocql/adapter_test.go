package gocql

import (
	"context"
	"errors"
	"testing"

	gocql "github.com/gocql/gocql"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/auth"
	kerrors "github.com/kandra-go/kandra/errors"
)

type authEvents struct {
	kandra.NopEventListener
	failed    []string
	refreshed int
}

func (a *authEvents) OnEventualWriteFailed(string, any, error) {}
func (a *authEvents) OnAuthFailed(cp string, err error)        { a.failed = append(a.failed, cp) }
func (a *authEvents) OnCredentialRefreshed()                   { a.refreshed++ }

func TestAuthenticatorRotationAndFailure(t *testing.T) {
	pw := "one"
	fail := false
	p := auth.ProviderFunc(func(context.Context) (auth.Credentials, error) {
		if fail {
			return auth.Credentials{}, errors.New("vault down")
		}
		return auth.Credentials{Username: "app", Password: pw}, nil
	})
	l := &authEvents{}
	f := Authenticator(p, l)
	a, err := f(nil)
	if err != nil || a.(gocql.PasswordAuthenticator).Password != "one" {
		t.Fatalf("%#v %v", a, err)
	}
	pw = "two" // rotated: the next connection uses it
	if a, _ = f(nil); a.(gocql.PasswordAuthenticator).Password != "two" || l.refreshed != 1 {
		t.Fatalf("rotation: %d", l.refreshed)
	}
	fail = true
	_, err = f(nil)
	var ae *kerrors.AuthError
	if !errors.As(err, &ae) || len(l.failed) != 1 {
		t.Fatalf("%v %v", err, l.failed)
	}
}
