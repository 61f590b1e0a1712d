// Command image builds convofake's container image without a container
// engine and without pulling anything: it builds a static convofake for
// linux/amd64 and linux/arm64 with the go command, and puts each FROM
// scratch, as an OCI image index (go-containerregistry, as a library).
//
// The image runs convofake with its demo data on port 8080 of every
// interface, as user 65532 (not root), with the admin API on the same port
// only when $CONVOFAKE_ADMIN_TOKEN is given; its HEALTHCHECK runs
// `convofake healthcheck` (scratch has no shell); its labels are the OCI
// ones (version, source, revision, created, licenses).
//
//	cd cmd/convofake/image
//	go run . -out ../../../dist/convofake-oci                  # an OCI layout directory
//	go run . -out ../../../dist/convofake-oci -tar ../../../dist/convofake-amd64.tar   # and a tarball for docker load
//	go run . -push ghcr.io/convoapi/convofake:v0.9.0            # push, with docker's credentials
//
// It lives in a module of its own, so that the core module does not
// depend on go-containerregistry. RELEASING.md says how a release pushes
// the image.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command; it returns the exit code: 0 built (and written or
// pushed), 1 the build or a write failed, 2 bad flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "the repository's `DIR` (default: found from the working directory)")
	out := fs.String("out", "", "write the image index as an OCI layout in `DIR` (replaced)")
	tarFile := fs.String("tar", "", "also write the image of this machine's architecture as a `FILE` for docker load, tagged convofake:<version>")
	push := fs.String("push", "", "push the image index to `REF` (e.g. ghcr.io/convoapi/convofake:v0.9.0), with docker's credentials")
	version := fs.String("version", "", "the version label (default: convo.Version of client.go)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *out == "" && *push == "" {
		fmt.Fprintln(stderr, "image: give -out DIR, -push REF or both")
		return 2
	}
	if *root == "" {
		r, err := findRoot()
		if err != nil {
			fmt.Fprintln(stderr, "image:", err)
			return 2
		}
		*root = r
	}
	idx, err := build(ctx, options{root: *root, version: *version})
	if err != nil {
		fmt.Fprintln(stderr, "image:", err)
		return 1
	}
	if err := write(ctx, idx, *out, *tarFile, *push, stdout); err != nil {
		fmt.Fprintln(stderr, "image:", err)
		return 1
	}
	return 0
}

// write writes the index as an OCI layout, a docker tarball and to a
// registry, as asked.
func write(ctx context.Context, idx v1.ImageIndex, out, tarFile, push string, stdout io.Writer) error {
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	if out != "" {
		if err := os.RemoveAll(out); err != nil {
			return err
		}
		if _, err := layout.Write(out, idx); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (OCI layout, index %s)\n", out, digest)
	}
	if tarFile != "" {
		img, version, err := hostImage(idx)
		if err != nil {
			return err
		}
		tag, err := name.NewTag("convofake:" + version)
		if err != nil {
			return err
		}
		if err := tarball.WriteToFile(tarFile, tag, img); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (docker load -i %s: %s)\n", tarFile, tarFile, tag)
	}
	if push != "" {
		ref, err := name.ParseReference(push)
		if err != nil {
			return err
		}
		if err := remote.WriteIndex(ref, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "pushed %s@%s\n", ref, digest)
	}
	return nil
}

// hostImage is the index's image for this machine's architecture, and its
// version label.
func hostImage(idx v1.ImageIndex) (v1.Image, string, error) {
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, "", err
	}
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.Architecture == runtime.GOARCH {
			img, err := idx.Image(d.Digest)
			if err != nil {
				return nil, "", err
			}
			cf, err := img.ConfigFile()
			if err != nil {
				return nil, "", err
			}
			return img, cf.Config.Labels["org.opencontainers.image.version"], nil
		}
	}
	return nil, "", fmt.Errorf("the image has no %s platform", runtime.GOARCH)
}

// findRoot walks up from the working directory to the core module's
// go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/convoapi/convo-go\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("the repository's root (the go.mod of github.com/convoapi/convo-go) is not above the working directory: give -root")
		}
		dir = parent
	}
}
