// Package report holds the benchmarks' result rows and prints them as one
// Markdown table, so the output can be pasted into docs/benchmarks.md.
package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Verdict says whether a row met its target.
type Verdict string

// Verdicts of a row.
const (
	Pass Verdict = "pass"
	Fail Verdict = "FAIL"
	// Info rows have no target (context for the others).
	Info Verdict = "-"
	// NA rows could not be measured on this build (a service not built yet).
	NA Verdict = "n/a"
)

// Row is one line of the table.
type Row struct {
	Benchmark string
	Figure    string // the product's figure
	Baseline  string // the same work done bare, measured in the same run
	Ratio     string // figure / baseline where both are rates
	Target    string
	Verdict   Verdict
}

// Judge returns Pass when every condition holds, else Fail.
func Judge(conds ...bool) Verdict {
	for _, ok := range conds {
		if !ok {
			return Fail
		}
	}
	return Pass
}

// Print writes rows as a Markdown table with aligned columns.
func Print(w io.Writer, rows []Row) error {
	t := Table{Header: []string{"benchmark", "figure", "baseline", "ratio", "target", "result"}}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.Benchmark, r.Figure, r.Baseline, r.Ratio, r.Target, string(r.Verdict)})
	}
	return PrintTable(w, t)
}

// Table is a table of other columns than Row's (the data-growth benchmark's).
type Table struct {
	Header []string
	Rows   [][]string
}

// PrintTable writes t as a Markdown table with aligned columns; a row
// shorter than the header gets empty cells.
func PrintTable(w io.Writer, t Table) error {
	table := [][]string{t.Header}
	for _, r := range t.Rows {
		line := make([]string, len(t.Header))
		copy(line, r)
		table = append(table, line)
	}
	widths := make([]int, len(t.Header))
	for _, line := range table {
		for i, cell := range line {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for n, line := range table {
		writeLine(&b, line, widths)
		if n == 0 {
			sep := make([]string, len(widths))
			for i, wd := range widths {
				sep[i] = strings.Repeat("-", wd)
			}
			writeLine(&b, sep, widths)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeLine(b *strings.Builder, cells []string, widths []int) {
	b.WriteString("|")
	for i, cell := range cells {
		b.WriteString(" ")
		b.WriteString(cell)
		b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)))
		b.WriteString(" |")
	}
	b.WriteString("\n")
}

// Ms formats a duration in milliseconds with one decimal.
func Ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// Seconds formats a duration in seconds with two decimals.
func Seconds(d time.Duration) string {
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// MB formats a byte count in MiB with one decimal.
func MB(bytes int64) string {
	return fmt.Sprintf("%.1f MB", float64(bytes)/(1<<20))
}

// Ratio formats a/b with two decimals, truncated ("-" when b is zero).
func Ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	// Truncated, not rounded: every target is "ratio ≥ x", so a ratio
	// shown as 0.35 meets 0.35 (0.347 shows as 0.34, not 0.35 beside FAIL).
	return fmt.Sprintf("%.2f", math.Floor(a/b*100)/100)
}
