---- MODULE LtlGeneral ----
\* Properties outside the forms of liveness.go, checked through the
\* tableau. x counts around 0..3; Finish sets done while x = 2, and is
\* enabled only intermittently: WF_vars(Finish) does not force it, SF does.
EXTENDS Naturals
VARIABLES x, done
vars == <<x, done>>
Init == x = 0 /\ done = FALSE
Step == x' = (x + 1) % 4 /\ UNCHANGED done
Finish == x = 2 /\ ~done /\ done' = TRUE /\ UNCHANGED x
Next == Step \/ Finish
SpecNone == Init /\ [][Next]_vars
SpecWF == Init /\ [][Next]_vars /\ WF_vars(Step) /\ WF_vars(Finish)
SpecSF == Init /\ [][Next]_vars /\ WF_vars(Step) /\ SF_vars(Finish)
\* The spec's other temporal conjuncts are assumed: here, Finish is taken
\* infinitely often or never enabled from some point on, written as a
\* disjunction that is not one of the forms.
SpecAssume == Init /\ [][Next]_vars /\ WF_vars(Step) /\ (<>(done \/ []~ENABLED Finish) \/ []<><<Finish>>_vars)

\* <>(P \/ []Q)
OrAlways == <>(done \/ [](x # 3))
\* [](P => <>[]Q) nested otherwise
Nested == [](x = 2 => <>(done /\ <>[]done))
NestedFalse == [](x = 2 => <>(done /\ [](x # 3)))
\* []<>P \/ <>[]Q under negation
NegOr == ~([]<>(x = 1) \/ <>[](x = 1))
NegOrTrue == ~([]<>(x = 5) \/ <>[](x = 5))
\* (P ~> Q) /\ ([]<>R => []<>S)
LeadsAndImpl == ((x = 3) ~> (x = 0)) /\ ([]<>done => []<>(x = 2))
LeadsAndImplFalse == ((x = 3) ~> (x = 0)) /\ ([]<>(x = 2) => []<>done)
\* implications between temporal formulas
ImplEventually == ([]<>(ENABLED Finish) => <>done)
ImplNested == (<>[](x # 1) => <>(done /\ []<>(x = 1)))
ImplInside == <>([]<>(ENABLED Finish) => done)
\* [][A]_v inside a disjunction with liveness
BoxActionOr == [][x' = x + 1]_x \/ <>done
BoxActionOrTrue == [][x' = (x + 1) % 4 \/ x' = x]_x \/ <>done
\* actions inside the tableau
BoxInside == <>(done \/ [][x' # 2]_vars)
AngleInside == <>(done \/ <>[][Step]_vars) \/ []<>(x = 5)
AngleAlways == [](<>[][Step]_vars \/ <>done)
AngleInf == []<><<Step /\ x = 3>>_vars /\ <>(done \/ []<><<Finish>>_vars)
====
