package guidance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Known disagreements. A spec and a system may disagree in a way that is
// understood: the spec is wrong or narrower than the system, and the
// system is right (etcd raft's spec grants a vote that the library,
// rightly, refuses). A campaign that stopped at such a disagreement, or
// counted it as a bug, would hide everything else; so a known-disagreements
// file names each one by its signature, and a failure that matches an
// entry is known: counted and listed apart, never a new bug
// (schedule.Failure.Known). docs/known.md describes the format.

// KnownFile is one known-disagreements file: the entries written for one
// version of one trace spec.
type KnownFile struct {
	// Spec is the trace spec's file name (Traceetcdraft.tla) and SHA256
	// its SpecHash when the entries were written: they apply only to that
	// spec, byte for byte.
	Spec   string `json:"spec"`
	SHA256 string `json:"sha256"`
	// About says which spec that is, for people (a module version).
	About string `json:"about,omitempty"`
	// Witnesses is a TLA+ module, a file beside this one, that EXTENDS the
	// trace spec and defines the entries' witnesses.
	Witnesses     string  `json:"witnesses,omitempty"`
	Disagreements []Known `json:"disagreements"`

	path string // where it was read from
}

// Known is one known disagreement.
type Known struct {
	ID string `json:"id"` // a short name, e.g. vote-refused-under-known-leader
	// Title says what disagrees, Reason why the system is right (one line
	// each), Doc where it is written up (a URL or a path).
	Title  string `json:"title"`
	Reason string `json:"reason"`
	Doc    string `json:"doc"`
	// Signatures are the ways the disagreement shows: a failure is this
	// disagreement when it matches one of them and, when Witness is set,
	// the witness holds.
	Signatures []KnownSignature `json:"signatures"`
	// Witness names a definition of the witnesses module, a state
	// predicate evaluated where the disagreement showed (a divergence: the
	// last state matched, with the trace spec's index at the event not
	// matched; an invariant: the state violating it). It must be TRUE for
	// the failure to be this disagreement.
	Witness string `json:"witness,omitempty"`
}

// KnownSignature is one way a known disagreement shows.
type KnownSignature struct {
	// Kind is spec-divergence (the spec allows no step for an event) or
	// model-invariant (an invariant of the spec is violated).
	Kind schedule.FailureKind `json:"kind"`
	// Event is the trace event the spec did not allow: its name, or its
	// name and message type ("ReceiveRequestVoteResponse MsgVoteResp");
	// empty: any.
	Event string `json:"event,omitempty"`
	// Condition is the spec's condition where its furthest action
	// stopped, as its source line reads (without a leading /\ or \/);
	// empty: any. Invariant names the violated invariant.
	Condition string `json:"condition,omitempty"`
	Invariant string `json:"invariant,omitempty"`
	// Where are fields of the event's trace line, by path
	// ("event.msg.reject"), and the values they must have (JSON values;
	// a list is any of its elements).
	Where map[string]any `json:"where,omitempty"`
}

// KnownSet is the known disagreements that apply to one trace spec.
type KnownSet struct {
	Entries []Known
	// From names, per entry, the file it came from.
	From []string
	// Witnesses is the witnesses module of the entries that have a
	// witness ("" when none has); entries of several files share it only
	// when they name the same one.
	Witnesses string
	// Skipped says, for each file that does not apply to this spec, why.
	Skipped []string
}

// ParseKnown reads a known-disagreements file.
func ParseKnown(path string, data []byte) (*KnownFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f KnownFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %v", path, jsonerr.Describe(data, err))
	}
	f.path = path
	switch {
	case f.Spec == "":
		return nil, fmt.Errorf("%s: no \"spec\": name the trace spec the entries are for", path)
	case f.SHA256 == "":
		return nil, fmt.Errorf("%s: no \"sha256\": give the spec's hash (modelfuzz known --model %s prints it)", path, f.Spec)
	}
	ids := map[string]bool{}
	for i, k := range f.Disagreements {
		where := fmt.Sprintf("%s: disagreement %d", path, i+1)
		if k.ID != "" {
			where += " (" + k.ID + ")"
		}
		switch {
		case k.ID == "":
			return nil, fmt.Errorf("%s: no \"id\"", where)
		case ids[k.ID]:
			return nil, fmt.Errorf("%s: id %s is used twice", where, k.ID)
		case k.Reason == "" || k.Doc == "":
			return nil, fmt.Errorf("%s: give a one-line \"reason\" and a \"doc\" that explains it", where)
		case len(k.Signatures) == 0:
			return nil, fmt.Errorf("%s: no \"signatures\"", where)
		case k.Witness != "" && f.Witnesses == "":
			return nil, fmt.Errorf("%s: witness %s, but the file names no \"witnesses\" module", where, k.Witness)
		}
		ids[k.ID] = true
		for j, s := range k.Signatures {
			switch s.Kind {
			case schedule.FailureSpecDivergence:
				if s.Invariant != "" {
					return nil, fmt.Errorf("%s, signature %d: a spec-divergence names no invariant", where, j+1)
				}
			case schedule.FailureModelInvariant:
				if s.Invariant == "" || s.Event != "" || s.Condition != "" {
					return nil, fmt.Errorf("%s, signature %d: a model-invariant names its invariant, and no event or condition", where, j+1)
				}
			default:
				return nil, fmt.Errorf("%s, signature %d: kind %q (want %s or %s)", where, j+1, s.Kind, schedule.FailureSpecDivergence, schedule.FailureModelInvariant)
			}
		}
	}
	return &f, nil
}

// MaxKnownBytes is the largest known-disagreements file read.
const MaxKnownBytes = 4 << 20

// ReadKnown reads a known-disagreements file from disk.
func ReadKnown(path string) (*KnownFile, error) {
	data, err := jsonerr.ReadFile(path, MaxKnownBytes, "a known-disagreements file", "guidance.MaxKnownBytes")
	if err != nil {
		return nil, fmt.Errorf("known disagreements: %v", err)
	}
	return ParseKnown(path, data)
}

// WitnessesPath is the witnesses module's file ("" when the file names
// none).
func (f *KnownFile) WitnessesPath() string {
	if f.Witnesses == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(f.path), f.Witnesses)
}

// KnownFor is the set of the files' entries that apply to the trace spec
// whose SpecHash is hash: those of the files written for it. A file for
// another spec, or for another version of it, applies not at all (Skipped
// says so): what was known of one spec says nothing of another.
func KnownFor(spec, hash string, files ...*KnownFile) (*KnownSet, error) {
	set := &KnownSet{}
	ids := map[string]string{}
	for _, f := range files {
		if f == nil {
			continue
		}
		if f.Spec != filepath.Base(spec) {
			set.Skipped = append(set.Skipped, fmt.Sprintf("%s is for %s, not %s", f.path, f.Spec, filepath.Base(spec)))
			continue
		}
		if f.SHA256 != hash {
			set.Skipped = append(set.Skipped, fmt.Sprintf("%s is for %s with sha256 %s (%s), and this one's is %s: its %d disagreement(s) are not known of it until checked again",
				f.path, f.Spec, f.SHA256, f.About, hash, len(f.Disagreements)))
			continue
		}
		for _, k := range f.Disagreements {
			if prev, ok := ids[k.ID]; ok {
				return nil, fmt.Errorf("known disagreement %s is in %s and in %s", k.ID, prev, f.path)
			}
			ids[k.ID] = f.path
			if k.Witness != "" {
				w := f.WitnessesPath()
				if set.Witnesses != "" && set.Witnesses != w {
					return nil, fmt.Errorf("%s: its witnesses module %s is not %s, which another file names: the witnesses of one spec are one module", f.path, w, set.Witnesses)
				}
				set.Witnesses = w
			}
			set.Entries = append(set.Entries, k)
			set.From = append(set.From, f.path)
		}
	}
	return set, nil
}

// Disagreement is what a validation that failed shows: what the known
// entries are matched against.
type Disagreement struct {
	Kind      schedule.FailureKind
	Event     string // the event's name, and its message type if it has one
	Condition string // where the spec's furthest action stopped (a divergence)
	Invariant string // the violated invariant
	// Line is the event's trace line, decoded (nil: none, at the end of
	// the trace).
	Line map[string]any
}

// Match returns the known disagreement d is, if any: the first entry with
// a signature d matches and whose witness holds (witness evaluates one).
func (s *KnownSet) Match(d Disagreement, witness func(def string) (bool, error)) (*Known, error) {
	if s == nil {
		return nil, nil
	}
	for i := range s.Entries {
		k := &s.Entries[i]
		if !slices.ContainsFunc(k.Signatures, func(sig KnownSignature) bool { return sig.matches(d) }) {
			continue
		}
		if k.Witness == "" {
			return k, nil
		}
		ok, err := witness(k.Witness)
		if err != nil {
			return nil, fmt.Errorf("known disagreement %s: witness %s: %v", k.ID, k.Witness, err)
		}
		if ok {
			return k, nil
		}
	}
	return nil, nil
}

func (sig KnownSignature) matches(d Disagreement) bool {
	if sig.Kind != d.Kind {
		return false
	}
	if sig.Kind == schedule.FailureModelInvariant {
		if sig.Invariant != d.Invariant {
			return false
		}
	} else {
		if sig.Event != "" && sig.Event != d.Event && sig.Event != strings.SplitN(d.Event, " ", 2)[0] {
			return false
		}
		if sig.Condition != "" && sig.Condition != d.Condition {
			return false
		}
	}
	for path, want := range sig.Where {
		got, ok := lookupPath(d.Line, path)
		if !ok || !valueIs(got, want) {
			return false
		}
	}
	return true
}

// lookupPath finds a field of a decoded JSON object by its dotted path.
func lookupPath(v any, path string) (any, bool) {
	for _, key := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[key]; !ok {
			return nil, false
		}
	}
	return v, true
}

// valueIs compares decoded JSON values; want may be a list of the values
// allowed.
func valueIs(got, want any) bool {
	if alts, ok := want.([]any); ok {
		return slices.ContainsFunc(alts, func(w any) bool { return valueIs(got, w) })
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	return bytes.Equal(a, b)
}

// moduleRefs finds the modules a TLA+ module's text names in EXTENDS and
// INSTANCE.
var moduleRefs = regexp.MustCompile(`\bEXTENDS\s+([A-Za-z0-9_]+(?:\s*,\s*[A-Za-z0-9_]+)*)|\bINSTANCE\s+([A-Za-z0-9_]+)`)

// SpecHash identifies a trace spec's text: the SHA-256 of its file, its
// cfg, and the modules of its folder it extends or instantiates (and
// theirs), each as its base name, a newline and its bytes, in that order
// (the modules by name). Standard and community modules, which are not in
// the spec's folder, are not part of it.
func SpecHash(spec, config string) (string, error) {
	if config == "" {
		config = strings.TrimSuffix(spec, ".tla") + ".cfg"
	}
	dir := filepath.Dir(spec)
	h := sha256.New()
	add := func(path string) ([]byte, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s\n", filepath.Base(path))
		h.Write(data)
		return data, nil
	}
	root, err := add(spec)
	if err != nil {
		return "", err
	}
	if _, err := add(config); err != nil {
		return "", err
	}
	seen := map[string]bool{strings.TrimSuffix(filepath.Base(spec), ".tla"): true}
	var names []string
	var walk func(text []byte)
	walk = func(text []byte) {
		for _, m := range moduleRefs.FindAllSubmatch(text, -1) {
			for _, name := range strings.Split(string(m[1])+string(m[2]), ",") {
				name = strings.TrimSpace(name)
				if name == "" || seen[name] {
					continue
				}
				seen[name] = true
				data, err := os.ReadFile(filepath.Join(dir, name+".tla"))
				if err != nil {
					continue // a standard or community module
				}
				names = append(names, name)
				walk(data)
			}
		}
	}
	walk(root)
	slices.Sort(names)
	for _, name := range names {
		if _, err := add(filepath.Join(dir, name+".tla")); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
