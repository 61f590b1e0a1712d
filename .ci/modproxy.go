//go:build ignore

// Command modproxy publishes one module of this repository, as its tracked
// files are in the work tree, into a module proxy on the file system
// (GOPROXY=file://DIR) at a version: DIR/<module>/@v/{list,VERSION.info,
// VERSION.mod,VERSION.zip}, the layout the go command reads. The files of a
// nested module (a folder with its own go.mod) are left out, as the go
// command leaves them out of a module's zip.
//
//	go run .ci/modproxy.go -dir otelconvo -version v0.1.0 -out /tmp/proxy
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
)

func main() {
	dir := flag.String("dir", ".", "the module's folder")
	version := flag.String("version", "", "the version to publish it at, e.g. v0.1.0")
	out := flag.String("out", "", "the proxy's folder")
	flag.Parse()
	if err := publish(*dir, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func publish(dir, version, out string) error {
	if version == "" || out == "" {
		return fmt.Errorf("-version and -out are required")
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	module := modulePath(gomod)
	if module == "" {
		return fmt.Errorf("%s/go.mod has no module line", dir)
	}
	files, err := moduleFiles(dir)
	if err != nil {
		return err
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		w, err := zw.Create(module + "@" + version + "/" + name)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	at := filepath.Join(out, filepath.FromSlash(escape(module)), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	info, _ := json.Marshal(map[string]string{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, content := range map[string][]byte{version + ".zip": zbuf.Bytes(), version + ".mod": gomod, version + ".info": info} {
		if err := os.WriteFile(filepath.Join(at, name), content, 0o644); err != nil {
			return err
		}
	}
	list, _ := os.ReadFile(filepath.Join(at, "list"))
	if !slices.Contains(strings.Fields(string(list)), version) {
		list = append(list, version+"\n"...)
	}
	fmt.Printf("modproxy: %s@%s, %d files\n", module, version, len(files))
	return os.WriteFile(filepath.Join(at, "list"), list, 0o644)
}

// modulePath reads the module line of a go.mod file.
func modulePath(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// moduleFiles lists the tracked regular files of the module in dir, with
// slashes, relative to it, outside any nested module.
func moduleFiles(dir string) ([]string, error) {
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z", "--", ".").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", dir, err)
	}
	var names, nested []string
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if path.Base(name) == "go.mod" && name != "go.mod" {
			nested = append(nested, path.Dir(name)+"/")
		}
		names = append(names, name)
	}
	var files []string
	for _, name := range names {
		if slices.ContainsFunc(nested, func(n string) bool { return strings.HasPrefix(name, n) }) {
			continue
		}
		if info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); err == nil && info.Mode().IsRegular() {
			files = append(files, name)
		}
	}
	return files, nil
}

// escape writes a module path as the proxy protocol does: an upper-case
// letter as '!' and its lower case.
func escape(module string) string {
	var b strings.Builder
	for _, r := range module {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
