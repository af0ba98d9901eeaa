package adapter

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/kandra-go/kandra/kerrors"
)

// TestUnknownOutcome: the wrapped error matches ErrUnknownOutcome and
// still its cause; the server codes that leave a write open are the write
// timeouts and failures, CAS_WRITE_UNKNOWN and the server error; an error
// of kandra's family and a UDTFieldError come before sending.
func TestUnknownOutcome(t *testing.T) {
	err := UnknownOutcome(io.EOF)
	if !errors.Is(err, kerrors.ErrUnknownOutcome) || !errors.Is(err, io.EOF) || errors.Is(err, kerrors.ErrKandra) {
		t.Errorf("UnknownOutcome(io.EOF) = %v", err)
	}
	if err.Error() != "kandra: write outcome unknown (it may have applied): EOF" {
		t.Errorf("message %q", err)
	}
	open := map[int]bool{0x0000: true, 0x1000: true, 0x1100: true, 0x1500: true, 0x1700: true}
	for _, code := range []int{0x0000, 0x000A, 0x0100, 0x1000, 0x1001, 0x1002, 0x1003, 0x1100, 0x1200, 0x1300, 0x1400, 0x1500, 0x1600, 0x1700, 0x2000, 0x2100, 0x2200, 0x2300, 0x2400, 0x2500} {
		if got := MayHaveApplied(code); got != open[code] {
			t.Errorf("MayHaveApplied(0x%04x) = %v", code, got)
		}
	}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{&kerrors.ArgumentError{Op: "o", Arg: "a", Message: "m"}, true},
		{fmt.Errorf("marshal: %w", &kerrors.UDTFieldError{Keyspace: "ks", Type: "t", Field: "f"}), true},
		{io.EOF, false},
		{UnknownOutcome(io.EOF), false},
	} {
		if got := NotSent(tt.err); got != tt.want {
			t.Errorf("NotSent(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
