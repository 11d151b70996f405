// Command benchtable turns the output of the comparison benchmarks
// (go test -bench Compare -count N ./internal/compare) into markdown tables of
// medians and ratios, so that the comparison holds on a noisy machine: every
// contender ran on the same data set in the same run, and the ratio is what
// is reported.
//
//	go test ./internal/compare -run '^$' -bench Compare -count 5 | go run ./internal/benchtable
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// result holds every sample of one benchmark, per unit.
type result map[string][]float64

func main() {
	results, order, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	report(os.Stdout, results, order)
}

// parse reads benchmark lines: "BenchmarkName-2  N  v unit  v unit ...".
func parse(r io.Reader) (map[string]result, []string, error) {
	results := map[string]result{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		res := results[name]
		if res == nil {
			res = result{}
			results[name] = res
			order = append(order, name)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%q: %v", sc.Text(), err)
			}
			res[f[i+1]] = append(res[f[i+1]], v)
		}
	}
	return results, order, sc.Err()
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// duration renders nanoseconds readably.
func duration(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// report writes one table per family: "Compare<Family>/<contender>/<case>"
// becomes a row per case with a column per contender and, for each other
// contender, how many times slower it is than rynek.
func report(w io.Writer, results map[string]result, order []string) {
	type cell struct{ family, contender, kase string }
	families := map[string][]cell{}
	var famOrder []string
	for _, name := range order {
		parts := strings.SplitN(name, "/", 3)
		c := cell{family: parts[0]}
		if len(parts) > 1 {
			c.contender = parts[1]
		}
		if len(parts) > 2 {
			c.kase = parts[2]
		}
		if _, ok := families[c.family]; !ok {
			famOrder = append(famOrder, c.family)
		}
		families[c.family] = append(families[c.family], c)
	}
	for _, fam := range famOrder {
		cells := families[fam]
		fmt.Fprintf(w, "\n### %s\n\n", fam)
		var contenders, cases []string
		for _, c := range cells {
			if !slices.Contains(contenders, c.contender) {
				contenders = append(contenders, c.contender)
			}
			if !slices.Contains(cases, c.kase) {
				cases = append(cases, c.kase)
			}
		}
		key := func(contender, kase string) string {
			name := fam + "/" + contender
			if kase != "" {
				name += "/" + kase
			}
			return name
		}
		// A family without contenders (one benchmark): its figures.
		if len(contenders) == 1 && contenders[0] == "" {
			res := results[fam]
			fmt.Fprintf(w, "| figure | median |\n|---|---:|\n| time | %s |\n", duration(median(res["ns/op"])))
			var units []string
			for u := range res {
				if u != "ns/op" {
					units = append(units, u)
				}
			}
			slices.Sort(units)
			for _, u := range units {
				fmt.Fprintf(w, "| %s | %s |\n", u, strconv.FormatFloat(median(res[u]), 'f', -1, 64))
			}
			continue
		}
		// Throughput families (ops/s) compare against their first contender,
		// and a contender that measured itself against its own floor in the
		// same run (a unit name-ratio, name-cpu-ratio) says so.
		if _, ok := results[key(contenders[0], cases[0])]["ops/s"]; ok {
			base := median(results[key(contenders[0], cases[0])]["ops/s"])
			fmt.Fprintf(w, "| contender | ops/s (median) | of %s | of its floor | by CPU time | allocs/op |\n|---|---:|---:|---:|---:|---:|\n", contenders[0])
			for _, c := range contenders {
				res := results[key(c, cases[0])]
				v := median(res["ops/s"])
				floor, cpu, allocs := "—", "—", "—"
				for unit, xs := range res {
					switch {
					case strings.HasSuffix(unit, "-cpu-ratio"):
						cpu = fmt.Sprintf("%.0f%%", 100*median(xs))
					case strings.HasSuffix(unit, "-ratio"):
						floor = fmt.Sprintf("%.0f%%", 100*median(xs))
					case unit == "allocs/op":
						allocs = strconv.FormatFloat(median(xs), 'f', -1, 64)
					}
				}
				fmt.Fprintf(w, "| %s | %.0f | %.0f%% | %s | %s | %s |\n", c, v, 100*v/base, floor, cpu, allocs)
			}
			continue
		}
		header := "| case |"
		sep := "|---|"
		for _, c := range contenders {
			header += " " + c + " |"
			sep += "---:|"
		}
		for _, c := range contenders {
			if c != "rynek" && slices.Contains(contenders, "rynek") {
				header += " " + c + " ÷ rynek |"
				sep += "---:|"
			}
		}
		extra := map[string]bool{}
		for _, c := range cells {
			for unit := range results[key(c.contender, c.kase)] {
				if unit != "ns/op" && !strings.Contains(unit, "B/op") && unit != "allocs/op" {
					extra[unit] = true
				}
			}
		}
		var units []string
		for u := range extra {
			units = append(units, u)
		}
		slices.Sort(units)
		for _, u := range units {
			header += " " + u + " |"
			sep += "---:|"
		}
		fmt.Fprintln(w, header)
		fmt.Fprintln(w, sep)
		for _, k := range cases {
			row := "| " + strings.ReplaceAll(k, "_", " ") + " |"
			base := median(results[key("rynek", k)]["ns/op"])
			for _, c := range contenders {
				row += " " + duration(median(results[key(c, k)]["ns/op"])) + " |"
			}
			for _, c := range contenders {
				if c != "rynek" && slices.Contains(contenders, "rynek") {
					v := median(results[key(c, k)]["ns/op"])
					if base > 0 && v > 0 {
						row += fmt.Sprintf(" %.1f× |", v/base)
					} else {
						row += " — |"
					}
				}
			}
			for _, u := range units {
				var vals []string
				for _, c := range contenders {
					if xs, ok := results[key(c, k)][u]; ok {
						vals = append(vals, strconv.FormatFloat(median(xs), 'f', -1, 64))
					}
				}
				row += " " + strings.Join(vals, " / ") + " |"
			}
			fmt.Fprintln(w, row)
		}
	}
}
