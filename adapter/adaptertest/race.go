//go:build race

package adaptertest

// raceEnabled: the race detector's sync.Pool drops a quarter of what is
// put back, so a pooled call allocates by chance: RunAllocations does not
// count under it.
const raceEnabled = true
