package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
)

// TestTraceFlag: the tutorial with -trace on a real node writes the
// spans of its statements to stdout, as the README says: a Save's, a
// Find's, a List's, with the conventions' attributes and no value (the
// tutorial's own lines, which name emails, are not spans).
func TestTraceFlag(t *testing.T) {
	needNode(t)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ks := "todoapp_trace_" + hex.EncodeToString(b)
	s, err := session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); s.Close() })
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-trace", "-keyspace", ks}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	o := out.String()
	for _, want := range []string{`"Name":"save ` + ks + `.users"`, `"Name":"find ` + ks + `.users_by_email"`, `"Name":"list ` + ks + `.todos"`, `"Key":"db.system.name"`, `"Key":"db.collection.name"`} {
		if !strings.Contains(strings.ReplaceAll(o, " ", ""), strings.ReplaceAll(want, " ", "")) {
			t.Errorf("the trace lacks %s:\n%.2000s", want, o)
		}
	}
	spans := 0
	for _, line := range strings.Split(o, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue // the tutorial's own lines
		}
		spans++
		if strings.Contains(line, "@example.com") || strings.Contains(line, "TICKET-") {
			t.Errorf("a span carries a value (an email or a ticket the tutorial saves): %.300s", line)
		}
	}
	if spans < 10 {
		t.Errorf("%d spans", spans)
	}
}
