package syntax

// Inspect traverses the tree rooted at n in depth-first order, calling f for
// each node before its children; when f returns false the children of that
// node are skipped. Nil children (absent ELSE-less parts, unbounded binder
// sets) are not visited. Bounds, fields, arms and EXCEPT paths are not nodes
// themselves: their expressions are visited in source order.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	expr := func(e Expr) {
		if e != nil {
			Inspect(e, f)
		}
	}
	exprs := func(es []Expr) {
		for _, e := range es {
			expr(e)
		}
	}
	bounds := func(bs []Bound) {
		for _, b := range bs {
			expr(b.Set)
		}
	}
	switch x := n.(type) {
	case *Module:
		for _, u := range x.Units {
			Inspect(u, f)
		}
	case *Assume:
		expr(x.Expr)
	case *OpDef:
		expr(x.Body)
	case *FuncDef:
		bounds(x.Bounds)
		expr(x.Body)
	case *Instance:
		for _, s := range x.Subst {
			expr(s.Expr)
		}
	case *Theorem:
		expr(x.Expr)
	case *OpApp:
		for _, s := range x.Path {
			exprs(s.Args)
		}
		exprs(x.Args)
	case *Prime:
		expr(x.X)
	case *Quant:
		bounds(x.Bounds)
		expr(x.Body)
	case *TemporalQuant:
		expr(x.Body)
	case *Choose:
		expr(x.Bound.Set)
		expr(x.Body)
	case *SetEnum:
		exprs(x.Elems)
	case *SetFilter:
		expr(x.Bound.Set)
		expr(x.Pred)
	case *SetMap:
		expr(x.Elem)
		bounds(x.Bounds)
	case *FuncLit:
		bounds(x.Bounds)
		expr(x.Body)
	case *FuncSet:
		expr(x.Domain)
		expr(x.Range)
	case *RecordLit:
		for _, fv := range x.Fields {
			expr(fv.Val)
		}
	case *RecordSet:
		for _, fv := range x.Fields {
			expr(fv.Val)
		}
	case *Except:
		expr(x.Func)
		for _, u := range x.Updates {
			for _, s := range u.Path {
				exprs(s.Index)
			}
			expr(u.Value)
		}
	case *FuncApp:
		expr(x.Func)
		exprs(x.Args)
	case *Field:
		expr(x.Rec)
	case *Tuple:
		exprs(x.Elems)
	case *CrossProduct:
		exprs(x.Sets)
	case *If:
		expr(x.Cond)
		expr(x.Then)
		expr(x.Else)
	case *Case:
		for _, a := range x.Arms {
			expr(a.Cond)
			expr(a.Body)
		}
		expr(x.Other)
	case *Let:
		for _, d := range x.Defs {
			Inspect(d, f)
		}
		expr(x.Body)
	case *Lambda:
		expr(x.Body)
	case *Unchanged:
		expr(x.X)
	case *Enabled:
		expr(x.X)
	case *ActionBox:
		expr(x.Action)
		expr(x.Sub)
	case *ActionAngle:
		expr(x.Action)
		expr(x.Sub)
	case *Always:
		expr(x.X)
	case *Eventually:
		expr(x.X)
	case *LeadsTo:
		expr(x.L)
		expr(x.R)
	case *Fairness:
		expr(x.Sub)
		expr(x.Action)
	case *Label:
		expr(x.Body)
	case *BulletList:
		exprs(x.Items)
	case *SubExpr:
		expr(x.Base)
	}
}
