package market

import (
	"runtime/debug"
	"testing"
)

// TestOverlappingLoadsPutTheCollectorBack: two services' loads overlapping
// in one process leave the program's setting behind, whichever ends first.
func TestOverlappingLoadsPutTheCollectorBack(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	first := raiseCollectorGrowth()
	second := raiseCollectorGrowth()
	first()
	first() // a second call changes nothing
	if got := debug.SetGCPercent(-1); got != loadGrowth {
		t.Fatalf("with one load still under way the growth is %d%%, want %d%%", got, loadGrowth)
	}
	debug.SetGCPercent(loadGrowth)
	second()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("after both loads the growth is %d%%, want the program's 150%%", got)
	}
}

// TestALoadLeavesALowerCollectorAlone: a program that collects less often
// than a load would (GOGC off under a memory limit) keeps its setting.
func TestALoadLeavesALowerCollectorAlone(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	lower := raiseCollectorGrowth()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("during the load the growth is %d%%, want the program's off", got)
	}
	lower()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("after the load the growth is %d%%, want the program's off", got)
	}
}
