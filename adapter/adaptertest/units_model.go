package adaptertest

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kandra-go/kandra/kerrors"
	"github.com/kandra-go/kandra/kstore"
)

// Units of work against a model: random units of saves, partial writes,
// conditional writes and deletes over two boards of cards and a shard's
// rows, each predicted (refused before sending, applied, or not applied
// with the rows its conditions read) and applied to an in-memory model
// the node's rows must match after every unit.

// shardPart is the shard's partition among a unit's partitions (0 and 1
// are the boards).
const shardPart = 2

// unitStep is one drawn step of a unit: what the unit's rules see of it,
// its condition and its write in the model, and the check of its Outcome.
type unitStep struct {
	what     string
	part     int    // the partition: a board's index, or shardPart
	row      int64  // the row in its partition: a card's pos, a task id
	rowDel   bool   // deletes the row
	rangeDel bool   // deletes a range of its partition
	hasTS    bool   // carries a Timestamp
	cells    []cell // the cells it writes
	cond     bool   // a conditional statement
	// condKind is its conditions' kind: "exists" (IF EXISTS), "absent"
	// (IF NOT EXISTS), "columns" (IF column conditions), "" for none.
	condKind string
	conds    []string // the columns its conditions compare
	addErr   bool     // refused when added to the unit
	// readsList: a list's change the server makes from the list it reads
	// (SetAt, RemoveValues).
	readsList bool
	// met is its condition against the model before the unit.
	met func() bool
	// apply is its write to the model, once the unit applied.
	apply func(run *unitRun)
	// check is the check of its Outcome and stamps after Apply.
	check func(r *unitResult) error
}

// cell is one cell, or set of cells, a step writes in its row: a whole
// column (val its value when known), or one element of a set or one key
// of a map (elem).
type cell struct {
	col, elem, val string
	known          bool
}

// unitRun is the model's side of one applied unit.
type unitRun struct {
	// stamps is the UpdatedAt each row's steps wrote: the batch gives
	// them one timestamp, so the server keeps the largest value.
	stamps map[*modelRow]time.Time
}

// unitResult is what one unit's Apply did, for the steps' checks.
type unitResult struct {
	sent    bool // not refused before sending, and no error
	applied bool
	// A conditional unit that did not apply: the rows its conditions
	// read, and the columns the server returns of each (all of them with
	// IF EXISTS or IF NOT EXISTS in the batch).
	read map[[2]int64]bool
	cols map[string]bool
	all  bool
}

// shardModel is the model of one task row of the shard.
type shardModel struct {
	exists    bool
	rangeNull bool // range_id never written: a condition on it is not met
	RangeID   int64
	State     string
}

// unitsModel is the model of the rows the units write, and the repos.
type unitsModel struct {
	rnd    *rand.Rand
	cards  *kstore.Repo[card]
	rows   *kstore.Repo[shardRow]
	boards [2]string
	shard  string
	model  [2]map[int32]*modelRow
	tasks  map[int64]*shardModel
	// titles are the titles the unit's saves of each card row write, so
	// that two saves of a row differ by a column: their UpdatedAt, stamped
	// at Apply, may or may not be the same millisecond.
	titles map[[2]int64][]string
	// stamped are the rows of the unit's steps with a Timestamp, which no
	// other step writes: the server keeps, cell by cell, the write of the
	// later timestamp, which the model does not follow.
	stamped map[[2]int64]bool
	// saves are the unit's saves of each task row, which a save of the
	// row may repeat.
	saves map[int64]*shardRow
	// saved is the unit's save of each card row, and written the cells
	// the unit's steps write in each row: a Patch mostly writes others, or
	// the saved values.
	saved   map[[2]int64]*card
	written map[[2]int64][]cell
}

// unitStats counts the units by what became of them.
type unitStats struct {
	units, applied, notApplied, refused, ok int
}

// testUnitsModel draws random units of 1 to 5 steps over a few rows of
// two boards of cards and of a shard's partition, predicts from the model
// whether Apply refuses each before sending (Unit.Apply's rules, and what
// a conditional batch cannot do: see batchGap), whether it applies (every
// condition met by the rows as they were before the unit), and what each
// step's Outcome holds when it does not (the row, for every step on a row
// a condition read, as Step.Outcome says); then it applies the unit to
// the model and compares every row with it. The seed is fixed
// (KANDRA_UNITS_SEED overrides it, and KANDRA_UNITS_STEPS the number of
// units); a failure prints the seed and the last units.
func testUnitsModel(t *testing.T, h *harness) {
	seed := uint64(20261236)
	if s := os.Getenv("KANDRA_UNITS_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	n := 300
	if s := os.Getenv("KANDRA_UNITS_STEPS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	e := h.env(t)
	m := &unitsModel{rnd: rand.New(rand.NewPCG(seed, 36)), cards: e.cards(t), rows: e.shardRows(t),
		boards: [2]string{uniq("um"), uniq("um")}, shard: uniq("us"),
		model: [2]map[int32]*modelRow{{}, {}}, tasks: map[int64]*shardModel{}}
	var st unitStats
	var log []string
	defer func() {
		fmt.Printf("real-server: units-model adapter=%s units=%d applied=%d not-applied=%d refused=%d ok=%d seed=%d\n",
			h.n.Name, st.units, st.applied, st.notApplied, st.refused, st.ok, seed)
	}()
	for i := 0; i < n; i++ {
		st.units++
		line, err := m.unit(e.rt.Unit(), &st)
		log = append(log, fmt.Sprintf("%d %s", i, line))
		if err == nil {
			err = m.compare()
		}
		if err != nil {
			from := max(0, len(log)-30)
			t.Fatalf("seed %d, unit %d: %v\nunits (from %d):\n%s", seed, i, err, from, strings.Join(log[from:], "\n"))
		}
		st.ok++
	}
}

// unit draws one unit, applies it, checks it against the prediction and
// applies it to the model; it returns the unit's description.
func (m *unitsModel) unit(u *kstore.Unit, st *unitStats) (string, error) {
	home := m.rnd.IntN(3)
	used := map[[2]int64]bool{}
	m.titles, m.stamped, m.saves = map[[2]int64][]string{}, map[[2]int64]bool{}, map[int64]*shardRow{}
	m.saved, m.written = map[[2]int64]*card{}, map[[2]int64][]cell{}
	var steps []*unitStep
	for range 1 + m.rnd.IntN(5) {
		part := home
		if m.rnd.IntN(12) == 0 {
			part = m.rnd.IntN(3)
		}
		// Mostly a row the unit does not write yet, so that more units
		// pass the clash rules; sometimes one it does, to see them.
		rows := 5
		if part == shardPart {
			rows = 4
		}
		var free, open []int64
		for r := range int64(rows) {
			if k := [2]int64{int64(part), r}; !m.stamped[k] {
				open = append(open, r)
				if !used[k] {
					free = append(free, r)
				}
			}
		}
		row := open[m.rnd.IntN(len(open))]
		if len(free) > 0 && m.rnd.IntN(8) > 2 {
			row = free[m.rnd.IntN(len(free))]
		}
		fresh := !used[[2]int64{int64(part), row}]
		used[[2]int64{int64(part), row}] = true
		if part == shardPart {
			steps = append(steps, m.shardStep(u, row))
		} else {
			steps = append(steps, m.cardStep(u, part, int32(row), fresh))
		}
	}
	whats := make([]string, len(steps))
	for i, s := range steps {
		whats[i] = fmt.Sprintf("[%d] %s", i, s.what)
	}
	line := strings.Join(whats, "; ")

	refusedAt, gap := refusal(steps), ""
	if refusedAt < 0 {
		gap = batchGap(steps)
	}
	conditional, met := false, true
	for _, s := range steps {
		if s.cond {
			conditional = true
			met = met && s.met()
		}
	}
	want := "applies"
	switch {
	case refusedAt >= 0:
		want = fmt.Sprintf("refused at step %d", refusedAt)
	case gap != "":
		want = "refused: " + gap
	case !met:
		want = "not applied"
	}
	applied, err := u.Apply(ctx)
	line += fmt.Sprintf(" => want %s, got applied=%t err=%v", want, applied, err)
	res := &unitResult{}
	var ae *kerrors.ArgumentError
	switch {
	case refusedAt >= 0:
		// Apply's refusal names the step "step N (op on table)", a step's
		// own "unit step N, op on table".
		if n := fmt.Sprintf("step %d", refusedAt); !errors.As(err, &ae) || !strings.Contains(err.Error(), n+" (") && !strings.Contains(err.Error(), n+",") {
			return line, fmt.Errorf("want a refusal of step %d before sending, got applied=%t err=%v", refusedAt, applied, err)
		}
		st.refused++
	case gap != "":
		if !errors.As(err, &ae) {
			return line, fmt.Errorf("%s: want a refusal before sending, got applied=%t err=%v", gap, applied, err)
		}
		st.refused++
	case err != nil:
		return line, err
	case applied != met:
		return line, fmt.Errorf("applied %t, the model says %t", applied, met)
	default:
		res.sent, res.applied = true, applied
		if applied {
			st.applied++
		} else {
			st.notApplied++
		}
	}
	if res.sent && !applied && conditional {
		res.read, res.cols = map[[2]int64]bool{}, map[string]bool{}
		for _, s := range steps {
			if s.cond {
				res.read[[2]int64{int64(s.part), s.row}] = true
				res.all = res.all || s.condKind == "exists" || s.condKind == "absent"
				for _, c := range s.conds {
					res.cols[c] = true
				}
			}
		}
	}
	for i, s := range steps {
		if err := s.check(res); err != nil {
			return line, fmt.Errorf("step %d (%s): %v", i, s.what, err)
		}
	}
	if res.applied {
		run := &unitRun{stamps: map[*modelRow]time.Time{}}
		for _, s := range steps {
			s.apply(run)
		}
	}
	return line, nil
}

// refusal is the step Unit.Apply names when it refuses the unit before
// sending it, -1 when it does not: a step refused when added; in a
// conditional unit, a write of another partition or with a Timestamp;
// then a step that clashes with an earlier one.
func refusal(steps []*unitStep) int {
	for i, s := range steps {
		if s.addErr {
			return i
		}
	}
	for _, c := range steps {
		if !c.cond {
			continue
		}
		for i, s := range steps {
			if s.part != c.part || s.hasTS {
				return i
			}
		}
		break
	}
	for i, s := range steps {
		for _, t := range steps[:i] {
			if clashes(t, s) {
				return i
			}
		}
	}
	return -1
}

// clashes reports two steps one batch cannot hold (Unit.Apply's clash
// rules): a range delete and another write of its partition, a delete of
// a row and another write of it, two writes of one cell (a column, a
// set's element, a map's key) but of one known value.
func clashes(t, s *unitStep) bool {
	switch {
	case t.part != s.part:
		return false
	case t.rangeDel || s.rangeDel:
		return true
	case t.row != s.row:
		return false
	case t.rowDel || s.rowDel:
		return true
	}
	for _, a := range t.cells {
		for _, b := range s.cells {
			switch {
			case a.col != b.col:
			case a.elem == "" && b.elem == "" && a.known && b.known && a.val == b.val:
			case a.elem == "" || b.elem == "" || a.elem == b.elem:
				return true
			}
		}
	}
	return false
}

// batchGap is what a conditional batch cannot do as its steps say,
// beyond the rules refusal follows, "" when nothing: conditions of two
// kinds on one row (IF EXISTS, IF NOT EXISTS, IF on columns), which the
// server refuses ("Cannot mix IF conditions and IF EXISTS for the same
// row"); a list's change that reads the list (SetAt, RemoveValues) in a
// row no condition reads, which the server runs on a null list (SetAt
// fails, RemoveValues removes nothing). The unit should refuse them
// before sending.
func batchGap(steps []*unitStep) string {
	read := map[[2]int64]bool{}
	for _, s := range steps {
		if s.cond {
			read[[2]int64{int64(s.part), s.row}] = true
		}
	}
	if len(read) == 0 {
		return ""
	}
	for i, s := range steps {
		for j, t := range steps[:i] {
			if s.part == t.part && s.row == t.row && s.condKind != "" && t.condKind != "" && s.condKind != t.condKind {
				return fmt.Sprintf("conditions of two kinds on one row (steps %d and %d)", j, i)
			}
		}
	}
	for i, s := range steps {
		if s.readsList && !read[[2]int64{int64(s.part), s.row}] {
			return fmt.Sprintf("a list change that reads the list, in a row no condition reads (step %d)", i)
		}
	}
	return ""
}

// card is the model's row of a board's pos, gone when there is none.
func (m *unitsModel) card(part int, pos int32) *modelRow {
	r := m.model[part][pos]
	if r == nil {
		r = &modelRow{}
		*r = gone
		m.model[part][pos] = r
	}
	return r
}

// cloneRow copies r, its collections and note included.
func cloneRow(r modelRow) modelRow {
	r.c = cloneCard(r.c)
	return r
}

// cloneCard copies c, its collections and note included.
func cloneCard(c card) card {
	c.Tags, c.Labels, c.Attrs = slices.Clone(c.Tags), maps.Clone(c.Labels), maps.Clone(c.Attrs)
	if c.Note != nil {
		c.Note = ptr(*c.Note)
	}
	return c
}

// cardChange is one change of a Patch, its cell and its write in the
// model.
type cardChange struct {
	cell  cell
	reads bool // SetAt, RemoveValues: the server reads the list
	p     kstore.Patch[card]
	apply func(r *modelRow)
}

// cardCond is a condition of a Patch or a DeleteIf, and whether the row
// before the unit meets it.
type cardCond struct {
	c      kstore.Cond[card]
	cols   []string
	exists bool // Exists: IF EXISTS
	met    bool
}

// pick draws one of xs.
func (m *unitsModel) pick(xs ...string) string { return xs[m.rnd.IntN(len(xs))] }

// cardChanges draws n changes of distinct columns of a card (before is
// its row: SetAt only at an index its list has).
func (m *unitsModel) cardChanges(before modelRow, n int, k [2]int64) []cardChange {
	var out []cardChange
	if saved := m.saved[k]; saved != nil && m.rnd.IntN(2) == 0 {
		// The values a save of the row in the unit writes: the same
		// value twice is no clash.
		title, score := saved.Title, saved.Score
		out = append(out, cardChange{cell: cell{col: "title", val: title, known: true}, p: kstore.Set(cardTitle, title),
			apply: func(r *modelRow) { r.c.Title = title }})
		out = append(out, cardChange{cell: cell{col: "score", val: strconv.Itoa(int(score)), known: true}, p: kstore.Set(cardScore, score),
			apply: func(r *modelRow) { r.c.Score, r.scoreNull = score, false }})
		note := cardChange{cell: cell{col: "note", val: noteVal(nil), known: true}, p: kstore.Clear(cardNote),
			apply: func(r *modelRow) { r.c.Note = nil }}
		if saved.Note != nil {
			v := *saved.Note
			note.cell.val = noteVal(&v)
			note.p, note.apply = kstore.Set(cardNote, ptr(v)), func(r *modelRow) { r.c.Note = ptr(v) }
		}
		out = append(out, note)
		m.rnd.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out[:n]
	}
	cols := []string{"title", "score", "note", "tags", "labels", "attrs"}
	m.rnd.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	if m.rnd.IntN(4) > 0 {
		// Mostly columns the unit's earlier steps do not write in the
		// row: writes one batch merges.
		free := slices.DeleteFunc(slices.Clone(cols), func(c string) bool {
			return slices.ContainsFunc(m.written[k], func(w cell) bool { return w.col == c })
		})
		if len(free) > 0 {
			cols = free
		}
	}
	for _, col := range cols[:min(n, len(cols))] {
		var ch cardChange
		ch.cell = cell{col: col}
		switch col {
		case "title":
			v := m.pick("a", "b", "c")
			ch.cell.val, ch.cell.known = v, true
			ch.p, ch.apply = kstore.Set(cardTitle, v), func(r *modelRow) { r.c.Title = v }
		case "score":
			v := int32(m.rnd.IntN(3))
			ch.cell.val, ch.cell.known = strconv.Itoa(int(v)), true
			ch.p, ch.apply = kstore.Set(cardScore, v), func(r *modelRow) { r.c.Score, r.scoreNull = v, false }
		case "note":
			ch.cell.known = true
			if m.rnd.IntN(3) == 0 {
				ch.cell.val = noteVal(nil)
				ch.p, ch.apply = kstore.Clear(cardNote), func(r *modelRow) { r.c.Note = nil }
				break
			}
			v := m.pick("n1", "n2")
			ch.cell.val = noteVal(&v)
			ch.p, ch.apply = kstore.Set(cardNote, ptr(v)), func(r *modelRow) { r.c.Note = ptr(v) }
		case "tags": // a list's change: its cells are not known
			v := m.pick("x", "y")
			switch k := m.rnd.IntN(4); {
			case k == 3 && len(before.c.Tags) > 0:
				i := m.rnd.IntN(len(before.c.Tags))
				ch.p, ch.apply, ch.reads = kstore.SetAt(cardTags, i, v), func(r *modelRow) { r.c.Tags[i] = v }, true
			case k == 2:
				ch.reads = true
				ch.p, ch.apply = kstore.RemoveValues(cardTags, v), func(r *modelRow) {
					r.c.Tags = slices.DeleteFunc(r.c.Tags, func(s string) bool { return s == v })
				}
			case k == 1:
				ch.p, ch.apply = kstore.Prepend(cardTags, v), func(r *modelRow) { r.c.Tags = append([]string{v}, r.c.Tags...) }
			default:
				ch.p, ch.apply = kstore.Append(cardTags, v), func(r *modelRow) { r.c.Tags = append(r.c.Tags, v) }
			}
		case "labels":
			v := m.pick("l1", "l2")
			ch.cell.elem = v
			if m.rnd.IntN(3) == 0 {
				ch.p, ch.apply = kstore.Remove(cardLabels, v), func(r *modelRow) { delete(r.c.Labels, v) }
				break
			}
			ch.p, ch.apply = kstore.Add(cardLabels, v), func(r *modelRow) {
				if r.c.Labels == nil {
					r.c.Labels = map[string]struct{}{}
				}
				r.c.Labels[v] = struct{}{}
			}
		case "attrs":
			k := m.pick("a", "b")
			ch.cell.elem = k
			if m.rnd.IntN(3) == 0 {
				ch.p, ch.apply = kstore.RemoveKeys(cardAttrs, k), func(r *modelRow) { delete(r.c.Attrs, k) }
				break
			}
			v := int32(m.rnd.IntN(2))
			ch.p, ch.apply = kstore.Put(cardAttrs, k, v), func(r *modelRow) {
				if r.c.Attrs == nil {
					r.c.Attrs = map[string]int32{}
				}
				r.c.Attrs[k] = v
			}
		}
		out = append(out, ch)
	}
	return out
}

// cardCond draws a condition on the row before: of those that imply the
// row exists when implies (a guarded Patch's), of any other kind when not
// (a DeleteIf's, an Upsert's), Exists too when exists.
func (m *unitsModel) cardCond(before modelRow, implies, exists bool) cardCond {
	kinds := 4
	if !implies {
		kinds = 6
	}
	if exists && m.rnd.IntN(5) == 0 {
		return cardCond{c: kstore.Exists[card](), exists: true, met: before.exists}
	}
	scoreIs := func(v int32) bool { return before.exists && !before.scoreNull && before.c.Score == v }
	switch m.rnd.IntN(kinds) {
	case 0:
		v := int32(m.rnd.IntN(3))
		return cardCond{c: kstore.Eq(cardScore, v), cols: []string{"score"}, met: scoreIs(v)}
	case 1:
		k := m.pick("a", "b")
		v, has := before.c.Attrs[k]
		return cardCond{c: kstore.EqAt(cardAttrs, k, 1), cols: []string{"attrs"}, met: has && v == 1}
	case 2:
		return cardCond{c: kstore.NotNull(cardNote), cols: []string{"note"}, met: before.c.Note != nil}
	case 3:
		v := int32(m.rnd.IntN(3))
		return cardCond{c: kstore.Eq(cardScore, v).And(kstore.IsNull(cardNote)), cols: []string{"score", "note"},
			met: scoreIs(v) && before.c.Note == nil}
	case 4: // a missing row meets it: its title is null
		v := m.pick("a", "b")
		return cardCond{c: kstore.Ne(cardTitle, v), cols: []string{"title"}, met: before.c.Title != v}
	default:
		return cardCond{c: kstore.IsNull(cardNote), cols: []string{"note"}, met: before.c.Note == nil}
	}
}

// noteVal is a note's value as a cell's.
func noteVal(n *string) string {
	if n == nil {
		return "null"
	}
	return "=" + *n
}

// saveCells are the cells a save of c writes: every column but
// UpdatedAt, whose later stamp the server keeps, as either save means.
func saveCells(c *card) []cell {
	return []cell{{col: "title", val: c.Title, known: true}, {col: "score", val: strconv.Itoa(int(c.Score)), known: true},
		{col: "note", val: noteVal(c.Note), known: true}, {col: "tags", val: fmt.Sprint(c.Tags), known: true},
		{col: "labels", val: fmt.Sprint(slices.Sorted(maps.Keys(c.Labels))), known: true},
		{col: "attrs", val: fmt.Sprint(c.Attrs), known: true}}
}

// randomCard draws a whole card of a board's pos, of a title no other
// save of the row in the unit writes.
func (m *unitsModel) randomCard(part int, pos int32) *card {
	k := [2]int64{int64(part), int64(pos)}
	var titles []string
	for _, t := range []string{"a", "b", "c", "d", "e", "f"} {
		if !slices.Contains(m.titles[k], t) {
			titles = append(titles, t)
		}
	}
	c := &card{Board: m.boards[part], Pos: pos, Title: m.pick(titles...), Score: int32(m.rnd.IntN(3))}
	m.titles[k] = append(m.titles[k], c.Title)
	m.saved[k] = c
	if m.rnd.IntN(2) == 0 {
		c.Note = ptr(m.pick("n1", "n2"))
	}
	if m.rnd.IntN(2) == 0 {
		c.Tags = []string{m.pick("x", "y"), m.pick("x", "y")}
	}
	if m.rnd.IntN(3) == 0 {
		c.Labels = map[string]struct{}{m.pick("l1", "l2"): {}}
	}
	if m.rnd.IntN(2) == 0 {
		c.Attrs = map[string]int32{m.pick("a", "b"): int32(m.rnd.IntN(2))}
	}
	return c
}

// cardStep draws one step on the card of a board's pos and adds it to u;
// fresh when no earlier step of u writes the row (only then may it carry
// a Timestamp).
func (m *unitsModel) cardStep(u *kstore.Unit, part int, pos int32, fresh bool) *unitStep {
	r := m.card(part, pos)
	before := cloneRow(*r)
	board := m.boards[part]
	key := &card{Board: board, Pos: pos}
	s := &unitStep{part: part, row: int64(pos), met: func() bool { return true }}
	w := m.cards.In(u)
	var step *kstore.Step[card]
	var stamp *time.Time // the UpdatedAt that moves only when the unit applied
	ts := func() bool {
		if !fresh || m.rnd.IntN(16) > 0 {
			return false
		}
		m.stamped[[2]int64{int64(part), int64(pos)}] = true
		return true
	}
	saved := func(c *card) func(*unitRun) {
		return func(run *unitRun) {
			*r = modelRow{exists: true, marker: true, c: cloneCard(*c)}
			run.stamp(r, c.UpdatedAt)
		}
	}
	switch k := m.rnd.IntN(24); {
	case k < 4:
		c := m.randomCard(part, pos)
		var opts []kstore.WriteOption
		if s.hasTS = ts(); s.hasTS {
			opts = append(opts, kstore.Timestamp(time.Now()))
		}
		s.what = fmt.Sprintf("Save b%d/%d %s", part, pos, cardString(*c))
		step, stamp, s.cells, s.apply = w.Save(c, opts...), &c.UpdatedAt, saveCells(c), saved(c)
	case k < 6:
		c := m.randomCard(part, pos)
		s.what = fmt.Sprintf("SaveIfNotExists b%d/%d %s", part, pos, cardString(*c))
		step, stamp, s.cells, s.apply = w.SaveIfNotExists(c), &c.UpdatedAt, saveCells(c), saved(c)
		s.cond, s.condKind, s.met = true, "absent", func() bool { return !before.exists }
	case k < 17:
		chs := m.cardChanges(before, 1+m.rnd.IntN(2), [2]int64{int64(part), int64(pos)})
		p := chs[0].p
		for _, ch := range chs {
			s.cells = append(s.cells, ch.cell)
			s.readsList = s.readsList || ch.reads
		}
		for _, ch := range chs[1:] {
			p = p.And(ch.p)
		}
		var opts []kstore.PatchOption
		mode := "guarded"
		switch k := m.rnd.IntN(20); {
		case k < 6: // the default guard: IF EXISTS
			s.cond, s.condKind, s.met = true, "exists", func() bool { return before.exists }
		case k < 10:
			mode = "Upsert"
			opts = append(opts, kstore.Upsert())
			if s.hasTS = ts(); s.hasTS {
				opts = append(opts, kstore.Timestamp(time.Now()))
			}
		case k < 16:
			c := m.cardCond(before, true, true)
			p = p.If(c.c)
			s.cond, s.condKind, s.conds, s.met = true, c.kind(), c.cols, func() bool { return c.met }
		case k < 19:
			mode = "Upsert"
			opts = append(opts, kstore.Upsert())
			c := m.cardCond(before, false, false)
			p = p.If(c.c)
			s.cond, s.condKind, s.conds, s.met = true, c.kind(), c.cols, func() bool { return c.met }
		default: // a condition a missing row meets, alone: refused when added
			p = p.If(kstore.IsNull(cardNote))
			s.addErr = true
		}
		s.what = fmt.Sprintf("Patch b%d/%d %s %s", part, pos, p, mode)
		step, stamp = w.Patch(key, p, opts...), &key.UpdatedAt
		s.apply = func(run *unitRun) {
			r.c.Board, r.c.Pos = board, pos
			for _, ch := range chs {
				ch.apply(r)
			}
			r.exists = true
			run.stamp(r, key.UpdatedAt)
		}
	case k < 19:
		var opts []kstore.DeleteOption
		if s.hasTS = ts(); s.hasTS {
			opts = append(opts, kstore.Timestamp(time.Now()))
		}
		s.what = fmt.Sprintf("Delete b%d/%d", part, pos)
		step, s.rowDel, s.apply = w.Delete(key, opts...), true, func(*unitRun) { *r = gone }
	case k < 23:
		c := m.cardCond(before, false, true)
		s.what = fmt.Sprintf("DeleteIf b%d/%d %s", part, pos, c.c)
		step, s.rowDel, s.apply = w.DeleteIf(key, c.c), true, func(*unitRun) { *r = gone }
		s.cond, s.condKind, s.conds, s.met = true, c.kind(), c.cols, func() bool { return c.met }
	default:
		lo, hi := int32(m.rnd.IntN(5)), int32(m.rnd.IntN(6))
		opts := []kstore.RangeOption{kstore.From(cardPos, lo, true), kstore.To(cardPos, hi, false)}
		s.what = fmt.Sprintf("DeleteRange b%d %d <= pos < %d", part, lo, hi)
		if m.rnd.IntN(3) == 0 {
			lo, hi, opts = 0, 5, nil
			s.what = fmt.Sprintf("DeleteRange b%d", part)
		}
		if s.hasTS = ts(); s.hasTS {
			opts = append(opts, kstore.Timestamp(time.Now()))
		}
		step, s.rangeDel, s.row = w.DeleteRange(&card{Board: board}, opts...), true, -1
		s.apply = func(*unitRun) {
			for p, x := range m.model[part] {
				if p >= lo && p < hi {
					*x = gone
				}
			}
		}
	}
	if s.hasTS {
		s.what += " Timestamp"
	}
	m.written[[2]int64{int64(part), int64(pos)}] = append(m.written[[2]int64{int64(part), int64(pos)}], s.cells...)
	s.check = func(res *unitResult) error {
		out := step.Outcome()
		if err := checkStamp(stamp, res.applied); err != nil {
			return err
		}
		if !res.read[[2]int64{int64(part), s.row}] || s.rangeDel {
			return checkNoRow(out.Applied, out.Exists, out.Current != nil, res)
		}
		if out.Applied || out.Exists != before.exists || out.Exists != (out.Current != nil) {
			return fmt.Errorf("outcome applied=%t exists=%t current=%v, the model's row exists=%t", out.Applied, out.Exists, out.Current != nil, before.exists)
		}
		if out.Current == nil {
			return nil
		}
		return sameCardCols(*out.Current, before.c, res)
	}
	return s
}

// stamp records the UpdatedAt a step wrote into r: the largest of the
// unit's is the row's.
func (run *unitRun) stamp(r *modelRow, at time.Time) {
	if run.stamps[r].Before(at) {
		run.stamps[r] = at
	}
	r.c.UpdatedAt = run.stamps[r]
}

// kind is the kind of c's conditions (see unitStep.condKind).
func (c cardCond) kind() string {
	if c.exists {
		return "exists"
	}
	return "columns"
}

// checkStamp checks the UpdatedAt a step stamps (nil when it stamps
// none): moved when the unit applied, put back when it did not.
func checkStamp(at *time.Time, applied bool) error {
	if at != nil && at.IsZero() == applied {
		return fmt.Errorf("UpdatedAt %v after Apply, and the unit applied=%t", *at, applied)
	}
	return nil
}

// checkNoRow checks the Outcome of a step whose row no condition read:
// Applied is the unit's, and no row came back.
func checkNoRow(applied, exists, current bool, res *unitResult) error {
	if applied != res.applied || exists || current {
		return fmt.Errorf("outcome applied=%t exists=%t current=%t, want applied=%t and no row", applied, exists, current, res.applied)
	}
	return nil
}

// sameCardCols compares the columns the server returned of a row with
// the model's.
func sameCardCols(got, want card, res *unitResult) error {
	if got.Board != want.Board || got.Pos != want.Pos {
		return fmt.Errorf("current row %s/%d, the model's %s/%d", got.Board, got.Pos, want.Board, want.Pos)
	}
	has := func(c string) bool { return res.all || res.cols[c] }
	g, w := normCard(got), normCard(want)
	switch {
	case has("title") && g.Title != w.Title,
		has("score") && g.Score != w.Score,
		has("note") && !reflect.DeepEqual(g.Note, w.Note),
		has("tags") && !slices.Equal(g.Tags, w.Tags),
		has("labels") && !maps.Equal(g.Labels, w.Labels),
		has("attrs") && !maps.Equal(g.Attrs, w.Attrs),
		res.all && !g.UpdatedAt.Equal(w.UpdatedAt):
		return fmt.Errorf("current %s, the model's %s (columns %v, all %t)", cardString(got), cardString(want), slices.Sorted(maps.Keys(res.cols)), res.all)
	}
	return nil
}

// cardString shows c's columns.
func cardString(c card) string {
	note := "null"
	if c.Note != nil {
		note = *c.Note
	}
	return fmt.Sprintf("{title=%q score=%d note=%s tags=%v labels=%v attrs=%v at=%s}", c.Title, c.Score, note, c.Tags,
		slices.Sorted(maps.Keys(c.Labels)), c.Attrs, c.UpdatedAt.Format("15:04:05.000"))
}

// task is the model's task row id of the shard.
func (m *unitsModel) task(id int64) *shardModel {
	r := m.tasks[id]
	if r == nil {
		r = &shardModel{rangeNull: true}
		m.tasks[id] = r
	}
	return r
}

// shardStep draws one step on the shard's task row id and adds it to u.
func (m *unitsModel) shardStep(u *kstore.Unit, id int64) *unitStep {
	r := m.task(id)
	before := *r
	key := &shardRow{Shard: m.shard, Kind: taskRow, TaskID: id}
	s := &unitStep{part: shardPart, row: id, met: func() bool { return true }}
	w := m.rows.In(u)
	var step *kstore.Step[shardRow]
	rangeIs := func(v int64) bool { return before.exists && !before.rangeNull && before.RangeID == v }
	switch k := m.rnd.IntN(20); {
	case k < 6:
		e := &shardRow{Shard: m.shard, Kind: taskRow, TaskID: id, RangeID: int64(m.rnd.IntN(3)), State: m.pick("s1", "s2")}
		if prev := m.saves[id]; prev != nil && m.rnd.IntN(2) == 0 {
			*e = *prev // the same row again: one value of each cell
		}
		m.saves[id] = e
		s.what = fmt.Sprintf("Save task %d range=%d state=%s", id, e.RangeID, e.State)
		// Every column is a cell, the same value twice is no clash.
		step = w.Save(e)
		s.cells = []cell{{col: "range", val: strconv.FormatInt(e.RangeID, 10), known: true}, {col: "state", val: e.State, known: true},
			{col: "done", val: "null", known: true}, {col: "owner", known: true}, {col: "round", val: "0", known: true}}
		s.apply = func(*unitRun) { *r = shardModel{exists: true, RangeID: e.RangeID, State: e.State} }
	case k < 14:
		var p kstore.Patch[shardRow]
		var change func()
		if m.rnd.IntN(2) == 0 {
			v := m.pick("s1", "s2", "s3")
			p, change = kstore.Set(shardState, v), func() { r.State = v }
			s.cells = []cell{{col: "state", val: v, known: true}}
		} else {
			v := int64(m.rnd.IntN(3))
			p, change = kstore.Set(shardRange, v), func() { r.RangeID, r.rangeNull = v, false }
			s.cells = []cell{{col: "range", val: strconv.FormatInt(v, 10), known: true}}
		}
		var opts []kstore.PatchOption
		mode := "guarded"
		switch m.rnd.IntN(3) {
		case 0:
			s.cond, s.condKind, s.met = true, "exists", func() bool { return before.exists }
		case 1:
			mode = "Upsert"
			opts = append(opts, kstore.Upsert())
		default:
			v := int64(m.rnd.IntN(3))
			p = p.If(kstore.Eq(shardRange, v))
			s.cond, s.condKind, s.conds, s.met = true, "columns", []string{"range"}, func() bool { return rangeIs(v) }
		}
		s.what = fmt.Sprintf("Patch task %d %s %s", id, p, mode)
		step = w.Patch(key, p, opts...)
		s.apply = func(*unitRun) { change(); r.exists = true }
	case k < 16:
		s.what = fmt.Sprintf("Delete task %d", id)
		step, s.rowDel, s.apply = w.Delete(key), true, func(*unitRun) { *r = shardModel{rangeNull: true} }
	case k < 19:
		v := int64(m.rnd.IntN(3))
		c, met := kstore.Eq(shardRange, v), rangeIs(v)
		s.conds, s.condKind = []string{"range"}, "columns"
		if m.rnd.IntN(3) == 0 {
			c, met, s.conds, s.condKind = kstore.Exists[shardRow](), before.exists, nil, "exists"
		}
		s.what = fmt.Sprintf("DeleteIf task %d %s", id, c)
		step, s.rowDel, s.apply = w.DeleteIf(key, c), true, func(*unitRun) { *r = shardModel{rangeNull: true} }
		s.cond, s.met = true, func() bool { return met }
	default:
		s.what = "DeleteRange shard"
		step, s.rangeDel, s.row = w.DeleteRange(&shardRow{Shard: m.shard}), true, -1
		s.apply = func(*unitRun) {
			for _, x := range m.tasks {
				*x = shardModel{rangeNull: true}
			}
		}
	}
	s.check = func(res *unitResult) error {
		out := step.Outcome()
		if !res.read[[2]int64{shardPart, s.row}] || s.rangeDel {
			return checkNoRow(out.Applied, out.Exists, out.Current != nil, res)
		}
		if out.Applied || out.Exists != before.exists || out.Exists != (out.Current != nil) {
			return fmt.Errorf("outcome applied=%t exists=%t current=%v, the model's row exists=%t", out.Applied, out.Exists, out.Current != nil, before.exists)
		}
		if c := out.Current; c != nil && (c.TaskID != id || (res.all || res.cols["range"]) && c.RangeID != before.RangeID ||
			(res.all || res.cols["state"]) && c.State != before.State) {
			return fmt.Errorf("current %+v, the model's %+v", *c, before)
		}
		return nil
	}
	return s
}

// compare reads the rows of both boards and of the shard and compares
// them with the model.
func (m *unitsModel) compare() error {
	for i, b := range m.boards {
		if err := compareModel(m.cards, b, m.model[i]); err != nil {
			return fmt.Errorf("board %d: %w", i, err)
		}
	}
	rows, err := m.rows.List(ctx, &shardRow{Shard: m.shard}).All()
	if err != nil {
		return err
	}
	seen := map[int64]bool{}
	for _, r := range rows {
		seen[r.TaskID] = true
		x := m.tasks[r.TaskID]
		if r.Kind != taskRow || x == nil || !x.exists || r.RangeID != x.RangeID || r.State != x.State {
			return fmt.Errorf("shard row %+v, the model's %+v", *r, x)
		}
	}
	for id, x := range m.tasks {
		if x.exists && !seen[id] {
			return fmt.Errorf("task %d is gone; the model has %+v", id, *x)
		}
	}
	return nil
}
