---- MODULE SVGModule ----
\* The community module SVG: its constructors, SVGElemToString,
\* NodeOfRingNetwork and PointOnLine. Every ASSUME holds in TLC too
\* (tla2tools with CommunityModules-deps, 2026-11-25): the strings are the
\* renderings TLC's Java code gives, attributes in TLC's order (the
\* spec's names first, in the order it names them).
EXTENDS Integers, Sequences, SVG, TLC
VARIABLE x
L == Line(1, 2, 30, 40, [stroke |-> "black", stroke_width |-> "2"])
C == Circle(5, 6, 7, <<>>)
R == Rect(0, 0, 10, 20, [fill |-> "red"])
T == Text(3, 4, "a <<b>> c", ("font-size" :> "12"))
I == Image(1, 2, 3, 4, "pic.png", <<>>)
G == Group(<<L, C>>, [transform |-> "scale(2)"])
D == SVGDoc(Group(<<G, R, T, I>>, <<>>), 0, 0, 100, 200, [class |-> "doc"])
Init == x = 0
Next == x < 2 /\ x' = x + 1
ASSUME L = [name |-> "line", attrs |-> [stroke |-> "black", stroke_width |-> "2", x1 |-> "1", y1 |-> "2", x2 |-> "30", y2 |-> "40"], children |-> <<>>, innerText |-> ""]
ASSUME SVGElemToString(L) = "<line stroke='black' stroke-width='2' x1='1' y1='2' x2='30' y2='40'></line>"
ASSUME SVGElemToString(C) = "<circle cx='5' cy='6' r='7'></circle>"
ASSUME SVGElemToString(R) = "<rect x='0' fill='red' y='0' width='10' height='20'></rect>"
ASSUME SVGElemToString(T) = "<text x='3' y='4' font-size='12'>a &lt;&lt;b&gt;&gt; c</text>"
ASSUME SVGElemToString(I) = "<image x='1' y='2' width='3' height='4' xlink:href='pic.png'></image>"
ASSUME SVGElemToString(G) = "<g transform='scale(2)'><line stroke='black' stroke-width='2' x1='1' y1='2' x2='30' y2='40'></line><circle cx='5' cy='6' r='7'></circle></g>"
ASSUME SVGElemToString(D) = "<svg class='doc' xmlns:xlink='http://www.w3.org/1999/xlink' xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 200'><g><g transform='scale(2)'><line stroke='black' stroke-width='2' x1='1' y1='2' x2='30' y2='40'></line><circle cx='5' cy='6' r='7'></circle></g><rect x='0' fill='red' y='0' width='10' height='20'></rect><text x='3' y='4' font-size='12'>a &lt;&lt;b&gt;&gt; c</text><image x='1' y='2' width='3' height='4' xlink:href='pic.png'></image></g></svg>"
ASSUME SVGElemToString(Svg(<<>>, [zeta |-> "1", alpha |-> "2"])) = "<svg zeta='1' alpha='2'></svg>"
ASSUME SVGElemToString(SVGElem("g", <<>>, [a |-> SVGElem("b", <<>>, <<>>, "t1"), c |-> SVGElem("d", <<>>, <<>>, "t2")], "in")) = "<g>in<b>t1</b><d>t2</d></g>"
ASSUME <<NodeOfRingNetwork(10, 10, 5, 1, 3), NodeOfRingNetwork(10, 10, 5, 2, 3), NodeOfRingNetwork(0, 0, 100, 7, 12), NodeOfRingNetwork(3, 4, 0, 1, 2)>>
       = <<[x |-> 7, y |-> 14], [x |-> 7, y |-> 5], [x |-> -86, y |-> -49], [x |-> 3, y |-> 4]>>
ASSUME <<PointOnLine([x |-> 0, y |-> 0], [x |-> 10, y |-> -7], 3), PointOnLine([x |-> 5, y |-> 5], [x |-> -6, y |-> 2], 2), PointOnLine([x |-> 1, y |-> 1], [x |-> 4, y |-> 9], 1)>>
       = <<[x |-> 3, y |-> -2], [x |-> 0, y |-> 3], [x |-> 4, y |-> 9]>>
ASSUME SVGElem("n", <<>>, <<>>, "") = [name |-> "n", attrs |-> <<>>, children |-> <<>>, innerText |-> ""]
====
