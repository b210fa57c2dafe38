package stdlib

// standardNames are the identifiers of the standard modules' texts, in
// order, as TLC's parser interns them (see module.names): they set the
// order in which a record whose fields only the spec's strings name
// prints. Listed from the modules of tla2tools.jar (1.8).
var standardNames = map[string][]string{
	"Naturals":      {"Naturals", "Nat", "a", "b", "n"},
	"Integers":      {"Integers", "Naturals", "Int", "a"},
	"Reals":         {"Reals", "Integers", "Real", "a", "b", "m", "Infinity", "i", "r"},
	"Sequences":     {"Sequences", "Naturals", "Seq", "S", "n", "Nat", "Len", "s", "t", "i", "Append", "e", "Head", "Tail", "SubSeq", "m", "SelectSeq", "Test", "F"},
	"FiniteSets":    {"FiniteSets", "Naturals", "Sequences", "IsFiniteSet", "S", "seq", "Seq", "s", "n", "Len", "Cardinality", "CS", "T", "x"},
	"Bags":          {"Bags", "TLC", "Naturals", "IsABag", "B", "n", "Nat", "BagToSet", "SetToBag", "S", "e", "BagIn", "EmptyBag", "B1", "B2", "d", "Sum", "f", "DSum", "elt", "BagUnion", "SubBag", "RemoveFromDom", "x", "y", "Combine", "BagSet", "i", "Biggest", "Range", "r", "s", "RSB", "BB", "BagOfAll", "F", "BagCardinality", "CopiesIn"},
	"TLC":           {"TLC", "Naturals", "Sequences", "FiniteSets", "Print", "out", "val", "PrintT", "Assert", "v", "JavaTime", "n", "Nat", "TLCGet", "i", "TLCSet", "d", "e", "x", "f", "g", "Permutations", "S", "w", "SortSeq", "s", "Op", "Perm", "p", "Len", "j", "RandomElement", "Any", "ToString", "a", "b", "TLCEval"},
	"TLCExt":        {"TLCExt", "TLC", "Integers", "AssertEq", "a", "b", "PrintT", "AssertError", "err", "exp", "FailsEval", "e", "TLCError", "s", "Assert", "TLCGetOrDefault", "key", "defaultVal", "n", "TLCGetAndSet", "Op", "val", "oldVal", "v", "TLCSet", "Trace", "CounterExample", "ToTrace", "CE", "TLCModelValue", "str", "ToString", "TLCDefer", "expression", "TLCNoOp", "PickSuccessor", "bool", "TLCCache", "closure", "TLCFP", "var", "i", "Int", "TLCEvalDefinition", "definitionName"},
	"Randomization": {"Randomization", "Naturals", "FiniteSets", "RandomSubset", "k", "S", "T", "Cardinality", "RandomSetOfSubsets", "n", "TestRandomSetOfSubsets", "i"},
	"Json":          {"Json", "Sequences", "FiniteSets", "TLC", "IsSequence", "F", "D", "ToJsonKeyValue", "d", "ToString", "ToJsonObjectString", "ToJsonArrayString", "ToJsonString", "IsFiniteSet", "ToJson", "value", "ToJsonArray", "ToJsonObject", "JsonSerialize", "absoluteFilename", "JsonDeserialize", "val", "ndJsonSerialize", "ndJsonDeserialize"},
	"RealTime":      {"RealTime", "Reals", "now", "RTBound", "A", "v", "D", "E", "TNext", "t", "_v", "Timer", "MaxTime", "MinTime", "RTnow", "NowNext", "r", "Real", "_now", "WF_now"},
}
