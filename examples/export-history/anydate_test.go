package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportAnswers is what an export gives, in terms that do not depend on the
// date: which messages, in which order, which files, how many addresses.
type exportAnswers struct {
	MessageIDs     []string
	MediaFiles     int
	AddressAsks    int
	ResumedIsSame  bool
	CompleteNotice bool
}

// TestExportOnAnyDate runs a full export and an interrupted-then-resumed one
// with the service's clock at 2001-01-01, at 2099-12-31 and at today's date
// (the world and --since 82 days before it): the answers are those at the
// reference date.
func TestExportOnAnyDate(t *testing.T) {
	reference := exportAt(t, t0)
	require.Len(t, reference.MessageIDs, 12)
	for _, at := range []time.Time{
		time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC),
		time.Date(2099, 12, 31, 12, 0, 0, 0, time.UTC),
		time.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour),
	} {
		t.Run(at.Format("2006-01-02"), func(t *testing.T) {
			assert.Equal(t, reference, exportAt(t, at))
		})
	}
}

// exportAt moves the test world (t0 and --since) to another service date for
// the time of one run.
func exportAt(t *testing.T, at time.Time) exportAnswers {
	t.Helper()
	savedT0, savedSince := t0, since
	t.Cleanup(func() { t0, since = savedT0, savedSince })
	t0, since = at, at.AddDate(0, 0, -82).Format("2006-01-02")

	w := newWorld(t)
	var got exportAnswers
	dir := t.TempDir()
	code, _, errOut := export(t, dir)
	require.Equal(t, 0, code, errOut)
	for _, l := range readLines(t, filepath.Join(dir, "history.jsonl")) {
		got.MessageIDs = append(got.MessageIDs, l.MessageID)
	}
	media, err := os.ReadDir(filepath.Join(dir, "media"))
	require.NoError(t, err)
	got.MediaFiles = len(media)
	for _, r := range w.s.Requests() {
		if strings.Contains(r.Path, "/attachments/") {
			got.AddressAsks++
		}
	}
	_, out, _ := export(t, dir)
	got.CompleteNotice = strings.Contains(out, "Export already complete")

	resumed := t.TempDir()
	code, _ = exportInterrupted(t, resumed, 5)
	require.Equal(t, 1, code)
	code, _, errOut = export(t, resumed)
	require.Equal(t, 0, code, errOut)
	want, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
	require.NoError(t, err)
	have, err := os.ReadFile(filepath.Join(resumed, "history.jsonl"))
	require.NoError(t, err)
	got.ResumedIsSame = string(want) == string(have)
	return got
}
