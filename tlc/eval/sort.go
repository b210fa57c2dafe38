package eval

import "sort"

func sortActions(a []ActionInfo) { sort.Slice(a, func(i, j int) bool { return a[i].Name < a[j].Name }) }
