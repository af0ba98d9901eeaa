package migrate

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kandra-go/kandra/kerrors"
)

// Hash identifies the plan: the hex SHA-256 (its first 16 bytes) of the
// steps' IDs and CQL, in order. Two plans with the same steps have the
// same hash, whatever their reasons say; the history records it.
func (p *Plan) Hash() string {
	h := sha256.New()
	for _, s := range p.Steps {
		// Lengths first, so that no two step lists hash the same input.
		h.Write([]byte(strconv.Itoa(len(s.ID)) + ":" + s.ID + strconv.Itoa(len(s.CQL)) + ":" + s.CQL))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Empty reports whether the plan has no steps: the live keyspace is what
// the model describes (Extra may still list what only live has).
func (p *Plan) Empty() bool { return len(p.Steps) == 0 }

// Select returns the steps of class c, in plan order.
func (p *Plan) Select(c Class) []Step {
	var out []Step
	for _, s := range p.Steps {
		if s.Class == c {
			out = append(out, s)
		}
	}
	return out
}

// counts renders "3 steps: 2 safe, 1 needs approval, 0 impossible".
func (p *Plan) counts() string {
	n := strconv.Itoa(len(p.Steps)) + " step"
	if len(p.Steps) != 1 {
		n += "s"
	}
	return n + ": " + strconv.Itoa(len(p.Select(Safe))) + " safe, " + strconv.Itoa(len(p.Select(NeedsApproval))) +
		" needs approval, " + strconv.Itoa(len(p.Select(Impossible))) + " impossible"
}

// Err returns nil when the plan is empty, and otherwise a
// *kerrors.MigrationError whose Message lists every step (ID, class,
// reason, and the manual path of an impossible one) and what only live
// has. Extra alone is not an error: the migrator never drops.
func (p *Plan) Err() error {
	if p.Empty() {
		return nil
	}
	var b strings.Builder
	b.WriteString("keyspace " + strconv.Quote(p.Keyspace) + " differs from the model (" + p.counts() + ", plan " + p.Hash() + "); ")
	switch {
	case len(p.Select(Impossible)) > 0:
		b.WriteString("the impossible steps need the manual paths below before the rest can be applied")
	case len(p.Select(NeedsApproval)) > 0:
		b.WriteString("apply the plan, approving the steps that need it by ID")
	default:
		b.WriteString("apply the plan")
	}
	b.WriteByte(':')
	for _, s := range p.Steps {
		b.WriteString("\n  " + s.ID + " [" + s.Class.String() + "]: " + s.Reason)
		if s.Manual != "" {
			b.WriteString("\n      manual path: " + s.Manual)
		}
	}
	if len(p.Extra) > 0 {
		b.WriteString("\n  only in live, kept: " + strings.Join(p.Extra, ", "))
	}
	for _, n := range p.Notes {
		b.WriteString("\n  note: " + n)
	}
	return &kerrors.MigrationError{Message: b.String()}
}

// scriptWidth is where Script wraps its comments, so that a reviewer
// reads them without scrolling.
const scriptWidth = 100

// comment writes text as "-- " lines, wrapped at spaces to scriptWidth;
// continuation lines are indented by indent.
func comment(b *strings.Builder, text, indent string) { commentAfter(b, "--", text, indent) }

// commentAfter is comment with the first line starting with head, kept
// whole ("-- [needs approval] backfill:users_by_email:").
func commentAfter(b *strings.Builder, head, text, indent string) {
	for _, line := range strings.Split(text, "\n") {
		out, words := head, 0 // words on out
		for _, word := range strings.Fields(line) {
			if words > 0 && len(out)+1+len(word) > scriptWidth {
				b.WriteString(out + "\n")
				out, words = "--"+indent, 0
			}
			out += " " + word
			words++
		}
		b.WriteString(out + "\n")
		head = "--"
	}
}

// Script renders the plan as a .cql file for review or for another
// runner: a header with the keyspace and the hash, then each step as a
// "-- [class] ID: reason" comment and its statement. Backfill steps are
// comments that say how to run them, and impossible steps comments with
// the manual path: neither has a statement to run. What only live has is
// listed at the end, as comments.
func (p *Plan) Script() string {
	var b strings.Builder
	comment(&b, "kandra migration plan for keyspace "+p.Keyspace, "")
	comment(&b, "plan hash: "+p.Hash(), "")
	if p.Empty() {
		comment(&b, "no steps: the keyspace is what the model describes", "")
	} else {
		comment(&b, p.counts(), "")
	}
	for _, s := range p.Steps {
		b.WriteByte('\n')
		// A newline in a quoted name must not end the comment.
		commentAfter(&b, "-- ["+s.Class.String()+"] "+strings.Join(strings.Fields(s.ID), " ")+":", s.Reason, "   ")
		switch {
		case s.Kind == StepBackfillLookup:
			comment(&b, "not a statement: run the migrator's backfill of "+s.Table+" (schema backfill "+s.Table+", or apply --approve "+s.ID+")", "   ")
		case s.Class == Impossible:
			comment(&b, "manual path: "+s.Manual, "   ")
		case s.CQL != "":
			b.WriteString(s.CQL + "\n")
		}
	}
	if len(p.Extra) > 0 {
		b.WriteByte('\n')
		comment(&b, "only in live, not in the model (kept; the migrator never drops):", "")
		for _, e := range p.Extra {
			b.WriteString("--   " + e + "\n")
		}
	}
	if len(p.Notes) > 0 {
		b.WriteByte('\n')
		for _, n := range p.Notes {
			commentAfter(&b, "-- note:", n, "   ")
		}
	}
	return b.String()
}

// String renders the plan as a table, one step a line: ID, class,
// reason; then what only live has.
func (p *Plan) String() string {
	var b strings.Builder
	b.WriteString("plan for keyspace " + p.Keyspace + " (" + p.Hash() + "): ")
	if p.Empty() {
		b.WriteString("no steps\n")
	} else {
		b.WriteString(p.counts() + "\n")
		w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		w.Write([]byte("ID\tCLASS\tREASON\n"))
		// Tabs and newlines (in a reason, or a quoted name in an ID)
		// would break the columns.
		flat := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ", "\v", " ", "\f", " ")
		for _, s := range p.Steps {
			w.Write([]byte(flat.Replace(s.ID) + "\t" + s.Class.String() + "\t" + flat.Replace(s.Reason) + "\n"))
		}
		w.Flush()
	}
	for _, e := range p.Extra {
		b.WriteString("only in live (kept): " + e + "\n")
	}
	for _, n := range p.Notes {
		b.WriteString("note: " + n + "\n")
	}
	return b.String()
}
