package seed_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/rynek/rynek/seed"
)

func TestTmpProf(t *testing.T) {
	if os.Getenv("TMPPROF") == "" {
		t.Skip()
	}
	days, _ := strconv.Atoi(os.Getenv("TMPDAYS"))
	n, _ := strconv.Atoi(os.Getenv("TMPN"))
	spd, _ := strconv.Atoi(os.Getenv("TMPSPD"))
	st := openStore(t)
	defer st.Close()
	t0 := time.Now()
	res, err := seed.Load(st, seed.Options{Listings: n, Days: days, SalesPerDay: spd, Rand: 1, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v in %v", res, time.Since(t0))
}
