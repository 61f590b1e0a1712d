package convo_test

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fleet matrix's score: many passes of the matrix's runs, or of a few
// of its cells, counted cell by cell, to tell two versions of the adaptive
// limiter apart (see adaptive_acceptance_test.go for the matrix).

// TestAdaptiveFleetScore runs the fleet matrix CONVO_FLEET_SCORE times
// over (each pass the five runs of every cell, runs in parallel) and
// prints, cell by cell, how many runs broke which bound, and the mean of
// Jain's index and of the 429s: one pass varies too much to tell two
// versions of the limiter apart (the runs' goroutines interleave
// differently each time, and how depends on the machine's load). Eight
// passes of the whole matrix (1,080 runs, about two minutes) broke 10 to
// 23 runs on one tree; a cell's mean Jain moves by less (within ±0.004
// over 200 runs, in seven batches of one tree) and tells changes apart
// that counts of broken runs cannot. To look at a few cells with more
// runs, CONVO_FLEET_CELLS picks them by a regular expression over their
// names ("token bucket K=8 100/s"):
//
//	CONVO_FLEET_SCORE=8 go test -run TestAdaptiveFleetScore -v .
//	CONVO_FLEET_SCORE=40 CONVO_FLEET_CELLS='K=[48] 10?0/s' go test -run TestAdaptiveFleetScore -v .
//
// CONVO_ACCEPTANCE_RUNS=20 gives each cell 20 distinct runs a pass instead
// of the matrix's five (see acceptanceRuns), so that a pass covers more
// points of the ranges rather than the same five again. Compare a change
// with the tree before it in the same session, a pass or two of each in
// turn.
func TestAdaptiveFleetScore(t *testing.T) {
	passes, _ := strconv.Atoi(os.Getenv("CONVO_FLEET_SCORE"))
	if passes <= 0 {
		t.Skip("scores the fleet matrix with CONVO_FLEET_SCORE=passes")
	}
	cells, err := scoreCells(os.Getenv("CONVO_FLEET_CELLS"))
	require.NoError(t, err)
	var (
		mu     sync.Mutex
		scores = make([]cellScore, len(cells))
	)
	for i, cell := range cells {
		for range passes {
			for run := range acceptanceRuns() {
				t.Run(cell.name(), func(t *testing.T) {
					t.Parallel()
					synctest.Test(t, func(t *testing.T) {
						o := runFleet(t, cell, run)
						breaks := cell.breaks(o)
						mu.Lock()
						defer mu.Unlock()
						scores[i].add(o, breaks)
					})
				})
			}
		}
	}
	t.Cleanup(func() { t.Log(scoreReport(cells, scores)) })
}

// cellScore is what the runs of one fleet cell came to.
type cellScore struct {
	runs, broken, failedCalls int
	jain                      float64 // summed over the runs
	refused                   int     // summed over the runs
	bounds                    string  // one letter a broken bound: t, 4, j, f
}

func (s *cellScore) add(o simOutcome, breaks []fleetBreak) {
	s.runs++
	s.jain += o.jain()
	s.refused += o.refused()
	s.failedCalls += o.totalFailed()
	if len(breaks) > 0 {
		s.broken++
	}
	for _, b := range breaks {
		s.bounds += b.bound[:1]
	}
}

// scoreReport is the score's table: the runs broken of all, by bound, and
// a line per cell.
func scoreReport(cells []fleetCell, scores []cellScore) string {
	var (
		total     cellScore
		byBound   = map[byte]int{}
		perCell   strings.Builder
		boundName = map[byte]string{'t': "time", '4': "429s", 'j': "jain", 'f': "fail"}
	)
	for i, s := range scores {
		total.runs += s.runs
		total.broken += s.broken
		total.failedCalls += s.failedCalls
		for j := range len(s.bounds) {
			byBound[s.bounds[j]]++
		}
		if s.runs == 0 {
			continue
		}
		fmt.Fprintf(&perCell, "%-26s %4d of %4d  Jain %.3f  429s %6.1f  %s\n", cells[i].name(),
			s.broken, s.runs, s.jain/float64(s.runs), float64(s.refused)/float64(s.runs), s.bounds)
	}
	var head strings.Builder
	fmt.Fprintf(&head, "%d of %d runs broke a bound (", total.broken, total.runs)
	for i, c := range []byte("t4jf") {
		if i > 0 {
			head.WriteString(", ")
		}
		fmt.Fprintf(&head, "%s %d", boundName[c], byBound[c])
	}
	fmt.Fprintf(&head, " runs; %d calls failed)\n", total.failedCalls)
	head.WriteString("per cell: runs broken, mean Jain, mean 429s, one letter a broken run's bound (t, 4, j, f):\n")
	return head.String() + strings.TrimSuffix(perCell.String(), "\n")
}

// scoreCells is the cells of the fleet matrix whose name matches the
// regular expression only; all of them when it is empty.
func scoreCells(only string) ([]fleetCell, error) {
	re, err := regexp.Compile(only)
	if err != nil {
		return nil, fmt.Errorf("CONVO_FLEET_CELLS: %w", err)
	}
	var cells []fleetCell
	for _, c := range fleetCells() {
		if re.MatchString(c.name()) {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("CONVO_FLEET_CELLS %q matches no cell of the fleet matrix", only)
	}
	return cells, nil
}

// name is how the score names the cell: "token bucket K=8 100/s".
func (c fleetCell) name() string {
	return fmt.Sprintf("%s K=%d %d/s", c.kind.name, c.k, c.rate)
}

// TestScoreCells: CONVO_FLEET_CELLS picks the fleet cells whose names match
// it, all of them when empty, and a pattern that is not one, or that picks
// nothing, is refused with the reason.
func TestScoreCells(t *testing.T) {
	tests := []struct {
		only    string
		want    []string
		wantErr string
	}{
		{only: "token bucket K=8 100/s", want: []string{"token bucket K=8 100/s"}},
		{only: "^sliding window K=[24] 10/s$", want: []string{"sliding window K=2 10/s", "sliding window K=4 10/s"}},
		{only: "[", wantErr: "CONVO_FLEET_CELLS: error parsing regexp"},
		{only: "leaky bucket", wantErr: `"leaky bucket" matches no cell`},
	}
	for _, tt := range tests {
		t.Run(tt.only, func(t *testing.T) {
			cells, err := scoreCells(tt.only)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			var names []string
			for _, c := range cells {
				names = append(names, c.name())
			}
			assert.Equal(t, tt.want, names)
		})
	}
	all, err := scoreCells("")
	require.NoError(t, err)
	assert.Len(t, all, len(fleetCells()), "an empty pattern picks every cell")
	assert.Len(t, all, 27)
}

// TestScoreReport: the score's table counts the broken runs of all cells
// by bound, and gives each cell scored its runs broken, mean Jain and mean
// 429s; a cell with no runs has no line.
func TestScoreReport(t *testing.T) {
	cells := []fleetCell{{4, 100, 1000, simKinds[0]}, {2, 10, 200, simKinds[1]}, {8, 1000, 5000, simKinds[2]}}
	scores := []cellScore{
		{runs: 4, broken: 2, failedCalls: 1, jain: 3.6, refused: 400, bounds: "jjf"},
		{runs: 2, jain: 1.98, refused: 30},
		{},
	}
	got := scoreReport(cells, scores)
	assert.Contains(t, got, "2 of 6 runs broke a bound (time 0, 429s 0, jain 2, fail 1 runs; 1 calls failed)")
	assert.Regexp(t, `token bucket K=4 100/s +2 of +4  Jain 0\.900  429s +100\.0  jjf\n`, got)
	assert.Regexp(t, `fixed window K=2 10/s +0 of +2  Jain 0\.990  429s +15\.0  $`, got)
	assert.NotContains(t, got, "sliding window", "a cell with no runs")
}

// missTally counts, cell by cell, the runs of an acceptance test (the
// joiner's, the leaver's, the recovery's) that missed, so that a pass ends
// with one line to compare rather than FAIL lines to count. Its interval
// says how far the count moves on chance alone: any change of the code,
// even one that changes no decision of the limiter, reshuffles which runs
// miss (see adaptive_acceptance_test.go).
type missTally struct {
	cells          []string // in the order first seen
	missed, ofRuns map[string]int
}

func newMissTally() *missTally {
	return &missTally{missed: map[string]int{}, ofRuns: map[string]int{}}
}

// run runs f as the subtest cell/name of t and counts it as a run of cell.
func (m *missTally) run(t *testing.T, cell, name string, f func(t *testing.T)) {
	t.Helper()
	m.add(cell, t.Run(cell+"/"+name, f))
}

// add counts one run of cell; ok says it held.
func (m *missTally) add(cell string, ok bool) {
	if _, seen := m.ofRuns[cell]; !seen {
		m.cells = append(m.cells, cell)
	}
	m.ofRuns[cell]++
	if !ok {
		m.missed[cell]++
	}
}

// report is the total with its 95 % interval, then a line per cell.
func (m *missTally) report() string {
	missed, runs, width := 0, 0, 0
	for _, c := range m.cells {
		width = max(width, len(c))
	}
	var b strings.Builder
	for _, c := range m.cells {
		missed += m.missed[c]
		runs += m.ofRuns[c]
		fmt.Fprintf(&b, "  %-*s %3d of %3d\n", width, c, m.missed[c], m.ofRuns[c])
	}
	lo, hi := wilson(missed, runs)
	return fmt.Sprintf("missed in %d of %d runs (95 %% interval %.0f–%.0f %%):\n%s", missed, runs, 100*lo, 100*hi, strings.TrimSuffix(b.String(), "\n"))
}

// wilson is the Wilson score interval (95 %) of a share of k in n: unlike
// k/n ± 2σ it stays within 0 and 1 when k is near either end.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959964
	p, fn := float64(k)/float64(n), float64(n)
	denom := 1 + z*z/fn
	center := (p + z*z/(2*fn)) / denom
	half := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / denom
	return max(center-half, 0), min(center+half, 1)
}

// TestMissTally: the tally counts each cell's runs and misses in the order
// the cells came, in a column as wide as the longest cell's name, and
// gives the total's Wilson interval.
func TestMissTally(t *testing.T) {
	m := newMissTally()
	for i := range 40 {
		m.add("fixed window/100", i%4 != 0)
		m.add("token bucket/1000", true)
	}
	got := m.report()
	assert.Equal(t, []string{"fixed window/100", "token bucket/1000"}, m.cells)
	assert.Contains(t, got, "missed in 10 of 80 runs (95 % interval 7–22 %)")
	assert.Contains(t, got, "\n  fixed window/100   10 of  40\n  token bucket/1000   0 of  40", "a column as wide as the longest cell's name")
}

// TestMissTallyRun: a run is the subtest cell/name, counted as a run of
// cell whether it held or not.
func TestMissTallyRun(t *testing.T) {
	m := newMissTally()
	var names []string
	for _, name := range []string{"run0", "run1"} {
		m.run(t, "fixed window/100", name, func(t *testing.T) { names = append(names, t.Name()) })
	}
	assert.Equal(t, []string{"TestMissTallyRun/fixed_window/100/run0", "TestMissTallyRun/fixed_window/100/run1"}, names)
	assert.Equal(t, 2, m.ofRuns["fixed window/100"])
	assert.Zero(t, m.missed["fixed window/100"])
}

// TestWilson: the interval holds the share and stays within [0, 1].
func TestWilson(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{k: 51, n: 240, lo: 0.166, hi: 0.268},
		{k: 0, n: 20, lo: 0, hi: 0.161},
		{k: 20, n: 20, lo: 0.839, hi: 1},
		{k: 0, n: 0, lo: 0, hi: 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d of %d", tt.k, tt.n), func(t *testing.T) {
			lo, hi := wilson(tt.k, tt.n)
			assert.InDelta(t, tt.lo, lo, 0.001)
			assert.InDelta(t, tt.hi, hi, 0.001)
		})
	}
}
