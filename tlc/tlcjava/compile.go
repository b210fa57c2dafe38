package tlcjava

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed java/ModelfuzzTLC.java
var serverSource []byte

// MainClass is the server's class.
const MainClass = "ModelfuzzTLC"

// JarEnv names the environment variable that gives tla2tools.jar when no
// path is given.
const JarEnv = "TLA2TOOLS"

// fastToolClass is the class a jar must hold to be TLC's.
const fastToolClass = "tlc2/tool/impl/FastTool.class"

// Compiled is the server compiled against one jar.
type Compiled struct {
	Jar      string // the jar, absolute
	ClassDir string // where ModelfuzzTLC.class is
	// Cached says the class came from the cache (no javac ran).
	Cached bool
}

// Classpath is the classpath that runs the server: its classes, the jar,
// and CommunityModules-deps.jar (or CommunityModules.jar) when one lies
// beside the jar.
func (c *Compiled) Classpath() string {
	cp := []string{c.ClassDir, c.Jar}
	for _, name := range []string{"CommunityModules-deps.jar", "CommunityModules.jar"} {
		p := filepath.Join(filepath.Dir(c.Jar), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			cp = append(cp, p)
			break
		}
	}
	return strings.Join(cp, string(os.PathListSeparator))
}

// FindJar resolves the jar to use: path, or $TLA2TOOLS.
func FindJar(path string) (string, error) {
	if path == "" {
		path = os.Getenv(JarEnv)
	}
	if path == "" {
		return "", fmt.Errorf("--tlc java needs TLC's tla2tools.jar: give --tla2tools PATH or set $%s", JarEnv)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("tla2tools jar %s: no such file", path)
	case err != nil:
		return "", fmt.Errorf("tla2tools jar %s: %v", path, err)
	case st.IsDir():
		return "", fmt.Errorf("tla2tools jar %s: is a directory, not a jar", path)
	}
	return abs, nil
}

// checkJar makes sure jar is a zip that holds TLC's FastTool.
func checkJar(jar string) error {
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return fmt.Errorf("%s is not TLC's tla2tools.jar: not a jar (%v)", jar, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name == fastToolClass {
			return nil
		}
	}
	return fmt.Errorf("%s is not TLC's tla2tools.jar: it has no %s", jar, fastToolClass)
}

// DefaultCacheDir is where compiled servers are kept: the user's cache
// directory, modelfuzz/tlcjava.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the compiled TLC server (%v): set $XDG_CACHE_HOME", err)
	}
	return filepath.Join(d, "modelfuzz", "tlcjava"), nil
}

// Compile compiles the server against jar into cacheDir (default
// DefaultCacheDir), unless a class compiled from the same source against
// a jar with the same content is there already. The jar must be TLC's and
// javac must be on the PATH.
func Compile(jar, cacheDir string) (*Compiled, error) {
	jar, err := FindJar(jar)
	if err != nil {
		return nil, err
	}
	if cacheDir == "" {
		if cacheDir, err = DefaultCacheDir(); err != nil {
			return nil, err
		}
	}
	sum, err := hashFiles(jar)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cacheDir, sum)
	c := &Compiled{Jar: jar, ClassDir: dir}
	if _, err := os.Stat(filepath.Join(dir, MainClass+".class")); err == nil {
		c.Cached = true
		return c, nil
	}
	if err := checkJar(jar); err != nil {
		return nil, err
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		return nil, errors.New("--tlc java needs a JDK to compile its TLC server: javac is not on the PATH (install one, e.g. apt-get install default-jdk-headless)")
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("cache of the TLC server: %v", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, "build-")
	if err != nil {
		return nil, fmt.Errorf("cache of the TLC server: %v", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, MainClass+".java")
	if err := os.WriteFile(src, serverSource, 0o644); err != nil {
		return nil, err
	}
	out := filepath.Join(tmp, "classes")
	cmd := exec.Command(javac, "-nowarn", "-encoding", "UTF-8", "-d", out, "-cp", jar, src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("compiling the TLC server against %s: %v: %s", jar, err, firstLine(stderr.String()))
	}
	// Another campaign may have compiled the same at the same time: the
	// first rename wins, and its classes are the same.
	if err := os.Rename(out, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, MainClass+".class")); serr != nil {
			return nil, fmt.Errorf("cache of the TLC server: %v", err)
		}
	}
	return c, nil
}

// hashFiles is the cache key: the hash of the jar's content and of the
// server's source.
func hashFiles(jar string) (string, error) {
	f, err := os.Open(jar)
	if err != nil {
		return "", fmt.Errorf("tla2tools jar: %v", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("tla2tools jar %s: %v", jar, err)
	}
	h.Write(serverSource)
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return "(no message)"
}
