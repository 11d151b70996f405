package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	in := `goos: linux
BenchmarkCompareSearch/rynek/diamond-2   	     100	    400000 ns/op	     53255 matches
BenchmarkCompareSearch/rynek/diamond-2   	     100	    500000 ns/op	     53255 matches
BenchmarkCompareSearch/rynek/diamond-2   	     100	    300000 ns/op	     53255 matches
BenchmarkCompareSearch/scan/diamond-2    	      10	  40000000 ns/op	     53255 matches
BenchmarkCompareWrites/rawcommit-2      	   20000	     13844 ns/op	     72000 ops/s
BenchmarkCompareWrites/rynek-sell-2     	   20000	     56649 ns/op	     18000 ops/s
BenchmarkCompareWrites/rawpurchase-2    	   20000	    200000 ns/op	      5000 ops/s	     120 allocs/op
BenchmarkCompareWrites/rynek-purchase-2 	   20000	    370370 ns/op	      2700 ops/s	    1500 allocs/op	     0.54 purchase-ratio	     0.61 purchase-cpu-ratio
PASS`
	res, order, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	report(&b, res, order)
	out := b.String()
	for _, want := range []string{
		"| diamond | 400.0 µs | 40.00 ms | 100.0× | 53255 / 53255 |",
		"| rawcommit | 72000 | 100% | — | — | — |",
		"| rynek-sell | 18000 | 25% | — | — | — |",
		"| rawpurchase | 5000 | 7% | — | — | 120 |",
		"| rynek-purchase | 2700 | 4% | 54% | 61% | 1500 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestReportSingleBenchmark(t *testing.T) {
	res, order, _ := parse(strings.NewReader("BenchmarkCompareLoad-2 1 5742428494 ns/op 635.6 heapB/listing 1000000 transactions\n"))
	var b strings.Builder
	report(&b, res, order)
	for _, want := range []string{"| time | 5.74 s |", "| heapB/listing | 635.6 |", "| transactions | 1000000 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
