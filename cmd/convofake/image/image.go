package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed parts.
const (
	// binaryPath is where convofake lies in the image.
	binaryPath = "/convofake"
	// port is the port convofake listens on in the image.
	port = "8080"
	// user is the image's user and group: not root (the "nonroot" id of
	// distroless images).
	user = "65532:65532"
	// source is the repository, for the OCI source label.
	source = "https://github.com/convoapi/convo-go"
)

// entrypoint runs convofake on every interface of the container, with the
// demo data, and the admin API on the same port only when an admin token
// is given ($CONVOFAKE_ADMIN_TOKEN).
var entrypoint = []string{binaryPath, "--addr", ":" + port, "--admin-on-public-if-token"}

// options say what to build.
type options struct {
	root      string        // the repository's root (where client.go is)
	version   string        // the image's version label; "" reads convo.Version from client.go
	revision  string        // the commit; "" asks git
	created   time.Time     // the image's and its files' time; zero: the commit's time, or the Unix epoch
	platforms []v1.Platform // linux/amd64 and linux/arm64 by default
	workDir   string        // where the binaries are built; "" a temporary directory
	goCommand string        // "" is "go" on PATH
}

// defaultPlatforms are the platforms of the image.
var defaultPlatforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

// errNoBuilder: the go command, which builds the binary, is not on PATH.
var errNoBuilder = errors.New("the go command is not on PATH: it builds convofake's binary")

// build makes the image index: one image a platform, each FROM scratch with
// a static convofake, /etc/passwd and /etc/group naming its user, and a
// /tmp it may write (for --state files).
func build(ctx context.Context, o options) (v1.ImageIndex, error) {
	if err := o.fill(ctx); err != nil {
		return nil, err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range o.platforms {
		img, err := o.image(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", p.OS, p.Architecture, err)
		}
		plat := p
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &plat}})
	}
	return idx, nil
}

// fill sets the options left empty.
func (o *options) fill(ctx context.Context) error {
	if o.goCommand == "" {
		o.goCommand = "go"
	}
	if _, err := exec.LookPath(o.goCommand); err != nil {
		return errNoBuilder
	}
	if len(o.platforms) == 0 {
		o.platforms = defaultPlatforms
	}
	if o.version == "" {
		v, err := moduleVersion(o.root)
		if err != nil {
			return err
		}
		o.version = v
	}
	if o.revision == "" {
		o.revision = gitOutput(ctx, o.root, "rev-parse", "HEAD")
	}
	if o.created.IsZero() {
		o.created = time.Unix(0, 0).UTC()
		if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				o.created = time.Unix(n, 0).UTC()
			}
		} else if n, err := strconv.ParseInt(gitOutput(ctx, o.root, "log", "-1", "--format=%ct"), 10, 64); err == nil {
			o.created = time.Unix(n, 0).UTC()
		}
	}
	return nil
}

// versionRE finds convo.Version in client.go.
var versionRE = regexp.MustCompile(`(?m)^const Version = "([^"]+)"$`)

// moduleVersion is convo.Version, read from the repository's client.go.
func moduleVersion(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "client.go"))
	if err != nil {
		return "", fmt.Errorf("reading the version: %w", err)
	}
	m := versionRE.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("no `const Version = \"X.Y.Z\"` in %s", filepath.Join(root, "client.go"))
	}
	return string(m[1]), nil
}

// gitOutput is the trimmed output of a git command in dir, "" when it fails
// (a tree without .git builds an image too, without those labels).
func gitOutput(ctx context.Context, dir string, args ...string) string {
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// image is the image of one platform.
func (o *options) image(ctx context.Context, p v1.Platform) (v1.Image, error) {
	bin, err := o.binary(ctx, p)
	if err != nil {
		return nil, err
	}
	files, err := o.layerTar(bin)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(files)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.BestCompression))
	if err != nil {
		return nil, err
	}
	img, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1), mutate.Addendum{Layer: layer,
		History: v1.History{Created: v1.Time{Time: o.created}, CreatedBy: "convofake image: go build, FROM scratch", Comment: "convofake " + o.version}})
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: o.created}
	cf.Config = o.config()
	return mutate.ConfigFile(img, cf)
}

// config is the image's run configuration.
func (o *options) config() v1.Config {
	labels := map[string]string{
		"org.opencontainers.image.title":       "convofake",
		"org.opencontainers.image.description": "the fake of the conversational messaging service, with its demo data: the API on port " + port + ", key fake-api-key",
		"org.opencontainers.image.version":     o.version,
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.url":         source + "/tree/main/cmd/convofake",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.created":     o.created.Format(time.RFC3339),
	}
	if o.revision != "" {
		labels["org.opencontainers.image.revision"] = o.revision
	}
	return v1.Config{
		Entrypoint:   entrypoint,
		User:         user,
		WorkingDir:   "/tmp",
		ExposedPorts: map[string]struct{}{port + "/tcp": {}},
		Labels:       labels,
		Env:          []string{"PATH=/"},
		StopSignal:   "SIGTERM",
		Healthcheck: &v1.HealthConfig{Test: []string{"CMD", binaryPath, "healthcheck", "--addr", "127.0.0.1:" + port},
			Interval: 10 * time.Second, Timeout: 5 * time.Second, StartPeriod: 2 * time.Second, Retries: 3},
	}
}

// binary builds convofake for p: static, without the build's paths, and
// stripped.
func (o *options) binary(ctx context.Context, p v1.Platform) ([]byte, error) {
	dir := o.workDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "convofake-image-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	out := filepath.Join(dir, "convofake-"+p.OS+"-"+p.Architecture)
	cmd := exec.CommandContext(ctx, o.goCommand, "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/convofake")
	cmd.Dir = o.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture)
	if p.Variant != "" && p.Architecture == "arm" {
		cmd.Env = append(cmd.Env, "GOARM="+strings.TrimPrefix(p.Variant, "v"))
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return os.ReadFile(out)
}

// layerTar is the image's one layer: the binary, the user's passwd and
// group entries, and /tmp.
func (o *options) layerTar(bin []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	uid, gid, _ := strings.Cut(user, ":")
	files := []struct {
		name string
		mode int64
		body []byte
		dir  bool
	}{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/passwd", mode: 0o644, body: []byte("root:x:0:0:root:/:/sbin/nologin\nnonroot:x:" + uid + ":" + gid + ":nonroot:/tmp:/sbin/nologin\n")},
		{name: "etc/group", mode: 0o644, body: []byte("root:x:0:\nnonroot:x:" + gid + ":\n")},
		{name: "tmp/", mode: 0o1777, dir: true},
		{name: strings.TrimPrefix(binaryPath, "/"), mode: 0o755, body: bin},
	}
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, ModTime: o.created, Format: tar.FormatPAX, Typeflag: tar.TypeReg, Size: int64(len(f.body))}
		if f.dir {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
