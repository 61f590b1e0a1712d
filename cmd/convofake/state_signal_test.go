package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// These tests run convofake, or a save, in a child process (this test
// binary again, told by CONVOFAKE_CHILD what to do), so that a real signal
// can reach it.

const childEnv = "CONVOFAKE_CHILD"

// TestChild is the child's side: "run <args>" runs convofake as main does
// (SIGINT and SIGTERM end it); "half-save <path>" starts a save of --state
// path, says "half" once half the file is written, and waits to be killed.
func TestChild(t *testing.T) {
	mode, arg, ok := strings.Cut(os.Getenv(childEnv), " ")
	if !ok {
		t.Skip("run as a child process by the tests below")
	}
	switch mode {
	case "run":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		os.Exit(run(ctx, strings.Fields(arg), os.Stdout, os.Stderr, nil))
	case "half-save":
		_ = writeAtomic(arg, func(w io.Writer) error {
			_, _ = w.Write([]byte(`{"companies": [{"contacts": [`))
			fmt.Println("half")
			select {} // killed here
		})
	}
	os.Exit(2)
}

// child starts this test binary as a child in mode; it returns the command
// and its stdout, read line by line.
func child(t *testing.T, mode string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

// waitLine reads the child's stdout until a line starting with prefix; it
// returns the rest of that line.
func waitLine(t *testing.T, sc *bufio.Scanner, prefix string) string {
	t.Helper()
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			return rest
		}
	}
	t.Fatalf("the child ended before printing %q", prefix)
	return ""
}

// 2,000 writes, SIGTERM, restart: all 2,000 are back.
func TestStateFileSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "state.json")
	cmd, sc := child(t, "run --addr 127.0.0.1:0 --admin-token "+testAdminToken+" --rate-limit 0 --state "+path)
	base := strings.TrimSuffix(waitLine(t, sc, "CONVO_BASE_URL="), "/v1")
	go func() { // the child's stdout must be read, or it blocks on a full pipe
		for sc.Scan() {
		}
	}()
	p := &proc{t: t, base: base, client: &http.Client{Timeout: safetyTimeout}}
	before := contactCount(t, p)
	for i := range 2000 {
		r := p.do(http.MethodPost, "/v1/chatapp/contacts", "Bearer "+fake.DefaultAPIKey,
			fmt.Sprintf(`{"phone_number_id":"5511940000001","phone_number":"5521%09d","name":"Load %d"}`, i, i))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())

	again := start(t, "--state", path)
	assert.Equal(t, before+2000, contactCount(t, again))
}

// A save killed half-way (SIGKILL during the write) leaves the previous
// file whole: it loads, and the next start removes the temporary file.
func TestStateFileSIGKILLMidSave(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	p := start(t, "--state", path)
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/save", "").Status)
	count := contactCount(t, p)
	require.Equal(t, exitOK, p.stop())
	saved, err := os.ReadFile(path)
	require.NoError(t, err)

	cmd, sc := child(t, "half-save "+path)
	waitLine(t, sc, "half")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()

	now, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, saved, now, "the previous file is whole")
	temps, _ := filepath.Glob(filepath.Join(dir, ".state.json.tmp-*"))
	require.Len(t, temps, 1, "the killed save left its temporary file")
	again := start(t, "--state", path)
	assert.Equal(t, count, contactCount(t, again), "the previous state is loaded")
	assert.Equal(t, []string{".state.json.lock", "state.json"}, dirNames(t, dir), "no temporary file is left")
}

// A convofake in another process holds the --state file: a second one
// exits 2 naming the file and that process.
func TestStateFileLockAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "state.json")
	cmd, sc := child(t, "run --addr 127.0.0.1:0 --admin-token "+testAdminToken+" --state "+path)
	waitLine(t, sc, "CONVO_BASE_URL=")
	go func() {
		for sc.Scan() {
		}
	}()
	code, stderr := runOnce(t, "--addr", "127.0.0.1:0", "--state", path)
	assert.Equal(t, exitNoStart, code)
	assert.Contains(t, stderr, "--state "+path+": the file is in use by process "+fmt.Sprint(cmd.Process.Pid))
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())
	again := start(t, "--state", path)
	assert.Positive(t, contactCount(t, again), "free again once the holder ended")
}
