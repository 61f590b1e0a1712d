package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxImageBytes is the most an image of one platform may weigh, compressed
// (what a registry stores and a CI job pulls).
const maxImageBytes = 20 << 20

// buildOnce builds the image index once for the tests of the package.
var buildOnce = sync.OnceValues(func() (v1.ImageIndex, error) {
	root, err := findRoot()
	if err != nil {
		return nil, err
	}
	return build(context.Background(), options{root: root})
})

// builtIndex is the image index, or the test's end: where CI is set a
// missing builder fails the run, elsewhere the test is skipped and says
// why.
func builtIndex(t *testing.T) v1.ImageIndex {
	t.Helper()
	idx, err := buildOnce()
	if errors.Is(err, errNoBuilder) {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and the image cannot be built: %v", err)
		}
		t.Skipf("the image cannot be built here: %v", err)
	}
	require.NoError(t, err)
	return idx
}

// TestImage builds the image for linux/amd64 and linux/arm64 and checks,
// without a container engine, what can be checked here: each platform's
// configuration (entrypoint, user, port, health check, labels), its size,
// and its files.
func TestImage(t *testing.T) {
	idx := builtIndex(t)
	m, err := idx.IndexManifest()
	require.NoError(t, err)
	var platforms []string
	for _, d := range m.Manifests {
		require.NotNil(t, d.Platform)
		platforms = append(platforms, d.Platform.OS+"/"+d.Platform.Architecture)
		img, err := idx.Image(d.Digest)
		require.NoError(t, err)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		c := cf.Config
		assert.Equal(t, d.Platform.Architecture, cf.Architecture)
		assert.Equal(t, "linux", cf.OS)
		assert.Equal(t, []string{"/convofake", "--addr", ":8080", "--admin-on-public-if-token"}, c.Entrypoint)
		assert.Equal(t, "65532:65532", c.User, "not root")
		assert.NotContains(t, []string{"", "0", "root", "0:0"}, c.User)
		assert.Contains(t, c.ExposedPorts, "8080/tcp")
		require.NotNil(t, c.Healthcheck)
		assert.Equal(t, []string{"CMD", "/convofake", "healthcheck", "--addr", "127.0.0.1:8080"}, c.Healthcheck.Test)
		version, err := moduleVersion(mustRoot(t))
		require.NoError(t, err)
		assert.Equal(t, version, c.Labels["org.opencontainers.image.version"])
		assert.Equal(t, "https://github.com/convoapi/convo-go", c.Labels["org.opencontainers.image.source"])
		assert.NotEmpty(t, c.Labels["org.opencontainers.image.created"])

		size := imageSize(t, img)
		assert.LessOrEqual(t, size, int64(maxImageBytes))
		files := imageFiles(t, img)
		assert.Equal(t, []string{"etc/", "etc/group", "etc/passwd", "tmp/", "convofake"}, sortedNames(files), "FROM scratch: these files only")
		assert.Contains(t, string(files["etc/passwd"].body), "nonroot:x:65532:65532:")
		assert.Equal(t, int64(0o755), files["convofake"].mode)
		t.Logf("%s: %.1f MB compressed (manifest, config and layer), binary %.1f MB; user %s; entrypoint %q",
			d.Platform.Architecture, float64(size)/1e6, float64(len(files["convofake"].body))/1e6, c.User, c.Entrypoint)
	}
	assert.ElementsMatch(t, []string{"linux/amd64", "linux/arm64"}, platforms)
}

// TestImageBinaryServesTheDemoData takes convofake out of the image's own
// filesystem (this machine's architecture) and runs it with the image's
// entrypoint, on loopback instead of every interface: it answers GET
// /v1/channels with the demo key, and its healthcheck subcommand, the
// image's HEALTHCHECK, passes.
func TestImageBinaryServesTheDemoData(t *testing.T) {
	idx := builtIndex(t)
	img, _, err := hostImage(idx)
	if err != nil {
		t.Skipf("no image for this machine's architecture: %v", err)
	}
	files := imageFiles(t, img)
	bin := filepath.Join(t.TempDir(), "convofake")
	require.NoError(t, os.WriteFile(bin, files["convofake"].body, 0o755))
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	args := append([]string(nil), cf.Config.Entrypoint[1:]...)
	for i := range args {
		if args[i] == "--addr" {
			args[i+1] = "127.0.0.1:0" // the test talks to loopback only
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"PATH=/"} // the image's environment, no admin token
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr lockedBuffer // written by the command's copying goroutine
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	base := ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CONVO_BASE_URL="); ok {
			base = v
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if base == "" {
		t.Fatalf("no start lines; stderr: %s", stderr.String())
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/channels", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer fake-api-key")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body struct {
		Success bool `json:"success"`
		Data    struct {
			Items []struct {
				DisplayName string `json:"display_name"`
			} `json:"items"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, body.Success)
	require.NotEmpty(t, body.Data.Items)
	assert.Equal(t, "Acme Support", body.Data.Items[0].DisplayName, "the demo data")

	hostPort := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/v1")
	hc := exec.CommandContext(ctx, bin, "healthcheck", "--addr", hostPort)
	out, err := hc.CombinedOutput()
	assert.NoError(t, err, "healthcheck: %s", out)

	cancel()
	_ = cmd.Wait()
	t.Logf("GET %s/channels: %d, %d channel accounts; healthcheck passed", base, resp.StatusCode, len(body.Data.Items))
}

// TestImageLayoutAndPush writes the index as an OCI layout, reads it back
// whole, and pushes it to a registry served in the test, on loopback.
func TestImageLayoutAndPush(t *testing.T) {
	idx := builtIndex(t)
	dir := filepath.Join(t.TempDir(), "oci")
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	ref := strings.TrimPrefix(reg.URL, "http://") + "/convofake:test"
	tarFile := filepath.Join(t.TempDir(), "convofake.tar")
	var out bytes.Buffer
	require.NoError(t, write(t.Context(), idx, dir, tarFile, ref, &out))
	t.Log(out.String())

	p, err := layout.FromPath(dir)
	require.NoError(t, err)
	back, err := p.ImageIndex()
	require.NoError(t, err)
	want, err := idx.Digest()
	require.NoError(t, err)
	got, err := back.Digest()
	require.NoError(t, err)
	assert.Equal(t, want, got)

	pr, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	pushed, err := remote.Index(pr)
	require.NoError(t, err)
	got, err = pushed.Digest()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	st, err := os.Stat(tarFile)
	require.NoError(t, err)
	assert.Less(t, st.Size(), int64(maxImageBytes))
}

func TestRunFlags(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run(t.Context(), nil, &out, &errb))
	assert.Contains(t, errb.String(), "give -out DIR, -push REF or both")
}

func mustRoot(t *testing.T) string {
	root, err := findRoot()
	require.NoError(t, err)
	return root
}

// imageSize is what a registry stores of one image: manifest, config and
// compressed layers.
func imageSize(t *testing.T, img v1.Image) int64 {
	m, err := img.Manifest()
	require.NoError(t, err)
	raw, err := img.RawManifest()
	require.NoError(t, err)
	size := int64(len(raw)) + m.Config.Size
	for _, l := range m.Layers {
		size += l.Size
	}
	return size
}

type file struct {
	mode int64
	body []byte
}

// imageFiles reads every file of the image's layers.
func imageFiles(t *testing.T, img v1.Image) map[string]file {
	layers, err := img.Layers()
	require.NoError(t, err)
	files := map[string]file{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		require.NoError(t, err)
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			files[h.Name] = file{mode: h.Mode, body: b}
		}
		require.NoError(t, rc.Close())
	}
	return files
}

func sortedNames(files map[string]file) []string {
	var names []string
	for _, n := range []string{"etc/", "etc/group", "etc/passwd", "tmp/", "convofake"} {
		if _, ok := files[n]; ok {
			names = append(names, n)
		}
	}
	if len(names) != len(files) {
		for n := range files {
			names = append(names, "unexpected:"+n)
		}
	}
	return names
}

// lockedBuffer is a buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
