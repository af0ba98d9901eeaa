package kandra

import (
	"errors"
	"reflect"
	"testing"
)

// deadLetter overrides the required callback and one optional one.
type deadLetter struct {
	NopEventListener
	failed []string
	auth   []string
}

func (d *deadLetter) OnEventualWriteFailed(table string, entity any, err error) {
	d.failed = append(d.failed, table+":"+entity.(string)+":"+err.Error())
}

func (d *deadLetter) OnAuthFailed(contactPoint string, err error) {
	d.auth = append(d.auth, contactPoint+":"+err.Error())
}

// Compile-time checks: embedding NopEventListener is enough.
var (
	_ EventListener = (*deadLetter)(nil)
	_ EventListener = EventListenerFunc(nil)
)

func TestEventListenerEmbeddingDispatch(t *testing.T) {
	d := &deadLetter{}
	var l EventListener = d
	boom := errors.New("boom")
	l.OnEventualWriteFailed("users_by_email", "u1", boom)
	l.OnAuthFailed("10.0.0.1:9042", boom)
	// Defaults from the embedded NopEventListener: no effect, no panic.
	l.OnCredentialRefreshed()

	if want := []string{"users_by_email:u1:boom"}; !reflect.DeepEqual(d.failed, want) {
		t.Errorf("failed = %q, want %q", d.failed, want)
	}
	if want := []string{"10.0.0.1:9042:boom"}; !reflect.DeepEqual(d.auth, want) {
		t.Errorf("auth = %q, want %q", d.auth, want)
	}
}

func TestEventListenerFunc(t *testing.T) {
	var gotTable string
	var gotEntity any
	var gotErr error
	var l EventListener = EventListenerFunc(func(table string, entity any, err error) {
		gotTable, gotEntity, gotErr = table, entity, err
	})
	boom := errors.New("boom")
	l.OnEventualWriteFailed("t", 42, boom)
	if gotTable != "t" || gotEntity != 42 || gotErr != boom {
		t.Fatalf("got %q %v %v", gotTable, gotEntity, gotErr)
	}
	l.OnAuthFailed("h", boom)
	l.OnCredentialRefreshed()
	if gotTable != "t" {
		t.Fatalf("an optional callback reached the function")
	}
}

// allCallbacksNoEmbed has every exported callback but does not embed
// NopEventListener.
type allCallbacksNoEmbed struct{}

func (allCallbacksNoEmbed) OnEventualWriteFailed(string, any, error) {}
func (allCallbacksNoEmbed) OnAuthFailed(string, error)               {}
func (allCallbacksNoEmbed) OnCredentialRefreshed()                   {}

// nopOnly embeds NopEventListener but lacks the required callback.
type nopOnly struct{ NopEventListener }

// The guarantee behind "adding a callback never breaks an implementation":
// only types that get defaults from kandra can implement EventListener, and
// the required callback has no default.
func TestEventListenerImplementationsMustEmbed(t *testing.T) {
	iface := reflect.TypeOf((*EventListener)(nil)).Elem()
	hasUnexported := false
	for i := range iface.NumMethod() {
		if !iface.Method(i).IsExported() {
			hasUnexported = true
		}
	}
	if !hasUnexported {
		t.Fatal("EventListener has no unexported method; implementations that do not embed NopEventListener would break when a callback is added")
	}
	if reflect.TypeOf(allCallbacksNoEmbed{}).Implements(iface) {
		t.Error("a type that does not embed NopEventListener implements EventListener")
	}
	if reflect.TypeOf(nopOnly{}).Implements(iface) {
		t.Error("NopEventListener alone provides the required OnEventualWriteFailed")
	}
	if reflect.TypeOf(NopEventListener{}).Implements(iface) {
		t.Error("NopEventListener implements EventListener by itself")
	}
	// Every optional callback has a default in both providers of defaults.
	for i := range iface.NumMethod() {
		m := iface.Method(i)
		if m.Name == "OnEventualWriteFailed" {
			continue
		}
		if _, ok := reflect.TypeOf(NopEventListener{}).MethodByName(m.Name); !ok && m.IsExported() {
			t.Errorf("NopEventListener has no default for %s", m.Name)
		}
		if _, ok := reflect.TypeOf(EventListenerFunc(nil)).MethodByName(m.Name); !ok && m.IsExported() {
			t.Errorf("EventListenerFunc has no default for %s", m.Name)
		}
	}
}
