package redisraft

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// RedisRaft and the Redis it needs are built from their source archives
// (../shared/systems/redisraft: build.sh and two archives) once, into the
// user's cache directory, in a directory named by a hash of the archives
// and the script, so that a changed archive is built again and an
// unchanged one never. Nothing of them enters the repository.

// SourcesEnv names the directory of the archives, overriding the search.
const SourcesEnv = "MODELFUZZ_REDISRAFT_SOURCES"

// sourcesRel is where the archives are, relative to a directory beside
// the repository's clone.
const sourcesRel = "shared/systems/redisraft"

// FindSources returns the directory holding build.sh and the archives:
// $MODELFUZZ_REDISRAFT_SOURCES, else ../shared/systems/redisraft from the
// current directory or one of its ancestors (a clone beside ../shared, run
// from anywhere inside it).
func FindSources() (string, error) {
	if d := os.Getenv(SourcesEnv); d != "" {
		if _, err := os.Stat(filepath.Join(d, "build.sh")); err != nil {
			return "", fmt.Errorf("redisraft: %s=%s holds no build.sh", SourcesEnv, d)
		}
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(filepath.Dir(dir), sourcesRel)
		if _, err := os.Stat(filepath.Join(cand, "build.sh")); err == nil {
			return cand, nil
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return "", fmt.Errorf("redisraft: no RedisRaft sources: ../%s (build.sh and its archives) is not beside this directory or its parents, and %s is not set; give --redis-server and --redisraft-module instead", sourcesRel, SourcesEnv)
}

// sourceHash is the first 12 hex digits of the sha256 of the directory's
// build.sh and archives, in the order of their names.
func sourceHash(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("redisraft sources: %w", err)
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); n == "build.sh" || strings.HasSuffix(n, ".tar.gz") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	if !slices.Contains(names, "build.sh") || len(names) < 3 {
		return "", fmt.Errorf("redisraft sources %s: want build.sh and the two archives, found %v", dir, names)
	}
	h := sha256.New()
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// BuildDir is where the sources of dir are built.
func BuildDir(dir string) (string, error) {
	hash, err := sourceHash(dir)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("redisraft: no cache directory to build in: %w", err)
	}
	return filepath.Join(cache, "modelfuzz", "redisraft-"+hash), nil
}

// Build returns the binaries built from the sources in dir, building them
// first if the cache does not hold them (minutes; progress goes to
// progress). Concurrent builders wait for each other.
func Build(dir string, progress io.Writer) (redisServer, module string, err error) {
	out, err := BuildDir(dir)
	if err != nil {
		return "", "", err
	}
	if rs, mod, ok := built(out); ok {
		return rs, mod, nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", "", fmt.Errorf("redisraft: %w", err)
	}
	lock, err := os.OpenFile(out+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", "", fmt.Errorf("redisraft: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", "", fmt.Errorf("redisraft: locking %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if rs, mod, ok := built(out); ok {
		return rs, mod, nil // another process built it meanwhile
	}
	var missing []string
	for _, tool := range []string{"gcc", "make", "cmake"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		return "", "", fmt.Errorf("redisraft: building RedisRaft needs %s, not found (Debian: apt-get install build-essential cmake); or give --redis-server and --redisraft-module", strings.Join(missing, ", "))
	}
	if progress != nil {
		fmt.Fprintf(progress, "building Redis and RedisRaft from %s into %s (a few minutes, once)\n", dir, out)
	}
	cmd := exec.Command("bash", filepath.Join(dir, "build.sh"), out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("redisraft: build.sh failed (%v):\n%s", err, strings.TrimSpace(stderr.String()))
	}
	if rs, mod, ok := built(out); ok {
		return rs, mod, nil
	}
	return "", "", errors.New("redisraft: build.sh succeeded but left no redis-server and redisraft.so in " + out)
}

// built finds the two binaries of a finished build in out.
func built(out string) (string, string, bool) {
	rs, _ := filepath.Glob(filepath.Join(out, "redis-*", "src", "redis-server"))
	mod, _ := filepath.Glob(filepath.Join(out, "redisraft-*", "redisraft.so"))
	if len(rs) != 1 || len(mod) != 1 {
		return "", "", false
	}
	return rs[0], mod[0], true
}

// CheckBinaries checks that the two files a cluster runs exist.
func CheckBinaries(redisServer, module string) error {
	if fi, err := os.Stat(redisServer); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("redisraft: redis-server %s is not an executable file", redisServer)
	}
	if fi, err := os.Stat(module); err != nil || fi.IsDir() {
		return fmt.Errorf("redisraft: module %s is not a file", module)
	}
	return nil
}
