// The model engine of modelfuzz on TLC's own evaluator: a small HTTP server
// that answers the sidecar protocol (/v1/simulate, /v1/simulate/batch,
// /v1/health, /v1/model) and the reference fuzzer's /execute, with
// tlc2.tool.impl.FastTool doing every evaluation: the initial states, the
// successors of one action with its parameters fixed, the invariants, the
// VIEW and the fingerprints. modelfuzz compiles it against the user's
// tla2tools.jar on first use (tlc/tlcjava) and supervises it like its own
// sidecar.
//
// Usage: java -cp CACHE:tla2tools.jar ModelfuzzTLC SPEC.tla CONFIG.cfg [LIBDIR...]
// The bearer token comes from $MODELFUZZ_TLC_TOKEN; the server listens on
// 127.0.0.1 and prints "listening on http://127.0.0.1:PORT" when ready.

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import tla2sany.semantic.FormalParamNode;
import tla2sany.semantic.OpDeclNode;
import tla2sany.semantic.OpDefNode;
import tla2sany.semantic.SemanticNode;
import tlc2.tool.Action;
import tlc2.tool.StateVec;
import tlc2.tool.TLCState;
import tlc2.tool.impl.FastTool;
import tlc2.tool.impl.Tool;
import tlc2.util.Context;
import tlc2.util.FP64;
import tlc2.value.IValue;
import tlc2.value.impl.BoolValue;
import tlc2.value.impl.Enumerable;
import tlc2.value.impl.FcnRcdValue;
import tlc2.value.impl.IntValue;
import tlc2.value.impl.ModelValue;
import tlc2.value.impl.RecordValue;
import tlc2.value.impl.SetEnumValue;
import tlc2.value.impl.StringValue;
import tlc2.value.impl.TupleValue;
import tlc2.value.impl.Value;
import tlc2.value.impl.ValueVec;
import util.SimpleFilenameToStream;
import util.ToolIO;
import util.UniqueString;

public final class ModelfuzzTLC {
    private final Tool tool;
    private final String module;
    private final OpDeclNode[] vars;
    private final SemanticNode view;
    private final Action[] invariants;
    private final String[] invariantNames;
    private final TLCState[] inits;
    private final Map<String, OpDefNode> actions = new LinkedHashMap<>();
    private final Set<String> modelValues = new HashSet<>();
    private final byte[] tokenSum;
    private final AtomicLong requests = new AtomicLong();

    private ModelfuzzTLC(Tool tool, String module, byte[] tokenSum) {
        this.tool = tool;
        this.module = module;
        this.tokenSum = tokenSum;
        this.vars = tool.getSpecProcessor().getVariablesNodes();
        this.view = tool.getViewSpec();
        this.invariants = tool.getInvariants();
        this.invariantNames = tool.getInvNames();
        StateVec iv = tool.getInitStates();
        this.inits = new TLCState[iv.size()];
        for (int i = 0; i < iv.size(); i++) {
            inits[i] = iv.elementAt(i);
        }
        for (OpDefNode d : tool.getSpecProcessor().getRootModule().getOpDefs()) {
            // Action operators: definitions of the spec's own modules whose
            // level is that of an action (2).
            if (d.getLevel() == 2 && !d.isStandardModule()) {
                actions.put(d.getName().toString(), d);
            }
        }
        if (ModelValue.mvs != null) {
            for (ModelValue mv : ModelValue.mvs) {
                modelValues.add(mv.val.toString());
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: ModelfuzzTLC SPEC.tla CONFIG.cfg [LIBDIR...]");
            System.exit(2);
        }
        String token = System.getenv("MODELFUZZ_TLC_TOKEN");
        if (token == null || token.isEmpty()) {
            System.err.println("no token: set MODELFUZZ_TLC_TOKEN");
            System.exit(2);
        }
        File spec = new File(args[0]).getAbsoluteFile();
        File cfg = new File(args[1]).getAbsoluteFile();
        // TLC writes its messages (SANY's parse report among them) on
        // stdout, where modelfuzz looks for the ready line: send them to
        // stderr, which modelfuzz shows when the start fails.
        PrintStream out = System.out;
        System.setOut(System.err);
        ToolIO.out = System.err;
        ToolIO.setUserDir(spec.getParent() + File.separator);
        FP64.Init(0);
        String name = spec.getName().replaceAll("\\.tla$", "");
        String cfgName = cfg.getName().replaceAll("\\.cfg$", "");
        Tool tool;
        try {
            tool = new FastTool(spec.getParent() + File.separator, name, cfgName,
                    new SimpleFilenameToStream(libraryPath(spec.getParent(), args)), Tool.Mode.MC);
        } catch (Throwable t) {
            System.err.println("TLC rejects the spec: " + oneLine(t));
            System.exit(3);
            return;
        }
        ModelfuzzTLC s;
        try {
            s = new ModelfuzzTLC(tool, name, sha256(token));
        } catch (Throwable t) {
            System.err.println("TLC cannot prepare the spec: " + oneLine(t));
            System.exit(3);
            return;
        }
        if (s.inits.length == 0) {
            System.err.println("TLC: the spec has no initial state");
            System.exit(3);
        }
        // The JDK's server closes a connection idle for 30 s by default,
        // while modelfuzz's client keeps one for 90 s: a request sent on a
        // connection the server is closing at that moment fails with EOF,
        // and a POST is not retried. Close later than the client does.
        System.setProperty("sun.net.httpserver.idleInterval", "300");
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        http.createContext("/", s::handle);
        http.setExecutor(null); // one thread: the evaluator's caches are not shared
        http.start();
        out.println("listening on http://127.0.0.1:" + http.getAddress().getPort());
        out.flush();
        watchParent();
    }

    // libraryPath is where TLC looks for modules: the spec's directory,
    // then the directories given after the cfg.
    private static String[] libraryPath(String dir, String[] args) {
        String[] out = new String[args.length - 1];
        out[0] = dir;
        for (int i = 2; i < args.length; i++) {
            out[i - 1] = args[i];
        }
        return out;
    }

    // watchParent exits when the process that started this one is gone
    // ($MODELFUZZ_TLC_PARENT), so that a fuzzer killed with SIGKILL leaves
    // no JVM behind where the kernel does not see to it.
    private static void watchParent() {
        String p = System.getenv("MODELFUZZ_TLC_PARENT");
        if (p == null) {
            return;
        }
        long pid;
        try {
            pid = Long.parseLong(p.trim());
        } catch (NumberFormatException e) {
            return;
        }
        Thread t = new Thread(() -> {
            while (true) {
                java.util.Optional<ProcessHandle> h = ProcessHandle.of(pid);
                if (h.isEmpty() || !h.get().isAlive()) {
                    System.exit(0);
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
    }

    static String oneLine(Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            m = t.getClass().getName();
        }
        return m.trim().replaceAll("\\s+", " ");
    }

    static byte[] sha256(String s) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    }

    // ---- HTTP ----

    private void handle(HttpExchange ex) {
        try {
            String path = ex.getRequestURI().getPath();
            String method = ex.getRequestMethod();
            if (!authorized(ex)) {
                reply(ex, 401, err("missing or wrong bearer token"));
                return;
            }
            switch (path) {
                case "/v1/health":
                    reply(ex, 200, "{\"status\":\"ok\",\"model\":" + Json.quote(module) + ",\"requests\":" + requests.get() + "}");
                    return;
                case "/v1/model":
                    reply(ex, 200, modelInfo());
                    return;
                case "/v1/simulate":
                case "/v1/simulate/batch":
                case "/execute":
                    if (!method.equals("POST")) {
                        reply(ex, 405, err("method " + method + " not allowed on " + path + " (use POST)"));
                        return;
                    }
                    requests.incrementAndGet();
                    Object body;
                    try {
                        body = new Json(readAll(ex.getRequestBody())).parse();
                    } catch (IllegalArgumentException e) {
                        reply(ex, 400, err(e.getMessage()));
                        return;
                    }
                    String answer;
                    try {
                        answer = path.equals("/execute") ? execute(body)
                                : path.equals("/v1/simulate") ? simulate(body).toString()
                                : batch(body);
                    } catch (BadRequest e) {
                        reply(ex, 400, err(e.getMessage()));
                        return;
                    }
                    reply(ex, 200, answer);
                    return;
                default:
                    reply(ex, 404, err("no such path " + path));
            }
        } catch (Throwable t) {
            try {
                reply(ex, 500, err("internal error: " + oneLine(t)));
            } catch (Throwable ignored) {
                // the connection is gone
            }
        } finally {
            ex.close();
        }
    }

    private boolean authorized(HttpExchange ex) throws Exception {
        if (ex.getRequestURI().getPath().equals("/execute") && System.getenv("MODELFUZZ_TLC_OPEN_EXECUTE") != null) {
            return true;
        }
        String h = ex.getRequestHeaders().getFirst("Authorization");
        if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        return MessageDigest.isEqual(sha256(h.substring(7).trim()), tokenSum);
    }

    private static byte[] readAll(InputStream in) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) > 0) {
            b.write(buf, 0, n);
            if (b.size() > (16 << 20)) {
                throw new IllegalArgumentException("request body over the limit of 16 MiB");
            }
        }
        return b.toByteArray();
    }

    private static void reply(HttpExchange ex, int status, String body) throws Exception {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
        }
    }

    private static String err(String msg) {
        return "{\"error\":" + Json.quote(msg) + "}";
    }

    private String modelInfo() {
        StringBuilder b = new StringBuilder();
        b.append("{\"module\":").append(Json.quote(module)).append(",\"variables\":[");
        for (int i = 0; i < vars.length; i++) {
            b.append(i > 0 ? "," : "").append(Json.quote(vars[i].getName().toString()));
        }
        b.append("],\"actions\":[");
        int k = 0;
        for (Map.Entry<String, OpDefNode> e : actions.entrySet()) {
            b.append(k++ > 0 ? "," : "").append("{\"name\":").append(Json.quote(e.getKey())).append(",\"params\":[");
            FormalParamNode[] ps = e.getValue().getParams();
            for (int i = 0; i < ps.length; i++) {
                b.append(i > 0 ? "," : "").append(Json.quote(ps[i].getName().toString()));
            }
            b.append("]}");
        }
        b.append("],\"invariants\":[");
        for (int i = 0; i < invariantNames.length; i++) {
            b.append(i > 0 ? "," : "").append(Json.quote(invariantNames[i]));
        }
        b.append("],\"view\":").append(view != null).append("}");
        return b.toString();
    }

    static final class BadRequest extends Exception {
        BadRequest(String m) {
            super(m);
        }
    }

    // ---- simulation ----

    private String batch(Object body) throws BadRequest {
        if (!(body instanceof Map) || !(((Map<?, ?>) body).get("requests") instanceof List)) {
            throw new BadRequest("invalid request: a batch is {\"requests\":[...]}");
        }
        StringBuilder b = new StringBuilder("{\"results\":[");
        int i = 0;
        for (Object r : (List<?>) ((Map<?, ?>) body).get("requests")) {
            b.append(i++ > 0 ? "," : "").append(simulate(r));
        }
        return b.append("]}").toString();
    }

    /** One action as the request gives it. */
    static final class Step {
        String name;
        Map<?, ?> params;
    }

    private StringBuilder simulate(Object body) throws BadRequest {
        if (!(body instanceof Map)) {
            throw new BadRequest("invalid request: want a JSON object");
        }
        Map<?, ?> req = (Map<?, ?>) body;
        List<Step> steps = new ArrayList<>();
        Object acts = req.get("actions");
        if (acts != null) {
            if (!(acts instanceof List)) {
                throw new BadRequest("invalid request: actions: want an array");
            }
            for (Object a : (List<?>) acts) {
                if (!(a instanceof Map) || !(((Map<?, ?>) a).get("name") instanceof String)) {
                    throw new BadRequest("invalid request: an action is {\"name\": NAME, \"params\": {...}}");
                }
                Step s = new Step();
                s.name = (String) ((Map<?, ?>) a).get("name");
                Object p = ((Map<?, ?>) a).get("params");
                s.params = p instanceof Map ? (Map<?, ?>) p : Map.of();
                steps.add(s);
            }
        }
        boolean withStates = !Boolean.FALSE.equals(req.get("include_states"));
        boolean resync = Boolean.TRUE.equals(req.get("resync"));
        Object init = req.get("init");
        return run(steps, init instanceof Map ? (Map<?, ?>) init : null, withStates, resync, null);
    }

    /**
     * run applies steps from the selected initial state and writes the
     * result as the sidecar protocol has it; when printed is not null it
     * also collects each visited state's printed form and TLC fingerprint
     * (for /execute).
     */
    private StringBuilder run(List<Step> steps, Map<?, ?> init, boolean withStates, boolean resync,
            List<Object[]> printed) {
        StringBuilder states = new StringBuilder();
        StringBuilder violations = new StringBuilder();
        StringBuilder choices = new StringBuilder();
        String divergence = null;
        int skipped = 0;
        TLCState cur;
        try {
            cur = selectInit(init);
        } catch (BadRequest e) {
            divergence = divergence(-1, "Init", e.getMessage());
            return result(states, divergence, violations, choices, 0);
        }
        long[] lastKey = {0};
        boolean[] any = {false};
        visit(cur, 0, withStates, false, states, violations, lastKey, any, printed);
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            String reason;
            TLCState next = null;
            int n = 0;
            try {
                StateVec succ = successors(s, cur);
                n = succ.size();
                if (n == 0) {
                    reason = "not enabled";
                } else {
                    reason = null;
                    next = succ.elementAt(0);
                }
            } catch (BadRequest e) {
                reason = e.getMessage();
            } catch (Throwable t) {
                reason = "evaluation error: " + oneLine(t);
            }
            if (reason != null) {
                if (divergence == null) {
                    divergence = divergence(i, s.name, reason);
                }
                if (!resync) {
                    break;
                }
                skipped++;
                continue;
            }
            if (n > 1) {
                choices.append(choices.length() > 0 ? "," : "").append("{\"index\":").append(i).append(",\"successors\":").append(n).append("}");
            }
            cur = next;
            visit(cur, i + 1, withStates, divergence != null, states, violations, lastKey, any, printed);
        }
        return result(states, divergence, violations, choices, skipped);
    }

    private StringBuilder result(StringBuilder states, String divergence, StringBuilder violations,
            StringBuilder choices, int skipped) {
        StringBuilder b = new StringBuilder(states.length() + 128);
        b.append("{\"states\":[").append(states).append("],\"divergence\":").append(divergence == null ? "null" : divergence);
        b.append(",\"violations\":[").append(violations).append("]");
        if (choices.length() > 0) {
            b.append(",\"choices\":[").append(choices).append("]");
        }
        if (skipped > 0) {
            b.append(",\"skipped\":").append(skipped);
        }
        return b.append("}");
    }

    private static String divergence(int index, String action, String reason) {
        return "{\"index\":" + index + ",\"action\":" + Json.quote(action) + ",\"reason\":" + Json.quote(reason) + "}";
    }

    private void visit(TLCState st, int index, boolean withStates, boolean pastDivergence, StringBuilder states,
            StringBuilder violations, long[] lastKey, boolean[] any, List<Object[]> printed) {
        if (!pastDivergence) {
            for (int k = 0; k < invariants.length; k++) {
                boolean ok;
                try {
                    ok = tool.isValid(invariants[k], st);
                } catch (Throwable t) {
                    ok = false;
                }
                if (!ok) {
                    violations.append(violations.length() > 0 ? "," : "").append("{\"invariant\":")
                            .append(Json.quote(invariantNames[k])).append(",\"index\":").append(index).append("}");
                }
            }
        }
        long fp = st.fingerPrint(); // of the VIEW when the cfg has one
        if (any[0] && lastKey[0] == fp) {
            return; // consecutive states with the same view are one abstract state
        }
        any[0] = true;
        lastKey[0] = fp;
        if (printed != null) {
            printed.add(new Object[] {st.toString().trim(), fp});
        }
        StringBuilder b = new StringBuilder();
        b.append(states.length() > 0 ? "," : "").append("{\"key\":\"").append(String.format("%016x", fp)).append("\"");
        if (withStates) {
            b.append(",\"state\":{");
            for (int i = 0; i < vars.length; i++) {
                UniqueString v = vars[i].getName();
                b.append(i > 0 ? "," : "").append(Json.quote(v.toString())).append(":");
                encode(b, (Value) st.lookup(v));
            }
            b.append("}");
        }
        b.append(",\"index\":").append(index).append(",\"view\":");
        if (view != null) {
            encode(b, (Value) tool.eval(view, Context.Empty, st));
        } else {
            // No VIEW: the abstract state is the variables, which
            // modelfuzz orders as its engine does.
            b.append("{\"vars\":{");
            for (int i = 0; i < vars.length; i++) {
                b.append(i > 0 ? "," : "").append(Json.quote(vars[i].getName().toString())).append(":");
                encode(b, (Value) st.lookup(vars[i].getName()));
            }
            b.append("}}");
        }
        states.append(b.append("}"));
    }

    private TLCState selectInit(Map<?, ?> want) throws BadRequest {
        if (want == null || want.isEmpty()) {
            return inits[0];
        }
        for (Object k : want.keySet()) {
            boolean found = false;
            for (OpDeclNode v : vars) {
                found |= v.getName().toString().equals(k);
            }
            if (!found) {
                throw new BadRequest("init: the model has no variable " + k);
            }
        }
        for (TLCState st : inits) {
            boolean ok = true;
            for (Map.Entry<?, ?> e : want.entrySet()) {
                Value v = toValue(e.getValue(), "init: " + e.getKey());
                IValue have = st.lookup(UniqueString.uniqueStringOf((String) e.getKey()));
                if (!v.equals(have)) {
                    ok = false;
                    break;
                }
            }
            if (ok) {
                return st;
            }
        }
        throw new BadRequest("no initial state has the values given in init");
    }

    private StateVec successors(Step s, TLCState cur) throws BadRequest {
        OpDefNode def = actions.get(s.name);
        if (def == null) {
            throw new BadRequest("the model has no action " + Json.quote(s.name));
        }
        FormalParamNode[] ps = def.getParams();
        Context ctx = Context.Empty;
        for (FormalParamNode p : ps) {
            String pn = p.getName().toString();
            if (!s.params.containsKey(pn)) {
                throw new BadRequest("missing parameter " + pn);
            }
            ctx = ctx.cons(p, toValue(s.params.get(pn), "parameter " + pn));
        }
        if (s.params.size() > ps.length) {
            List<String> extra = new ArrayList<>();
            List<String> formal = new ArrayList<>();
            for (FormalParamNode p : ps) {
                formal.add(p.getName().toString());
            }
            for (Object k : s.params.keySet()) {
                if (!formal.contains(k)) {
                    extra.add((String) k);
                }
            }
            java.util.Collections.sort(extra);
            throw new BadRequest("unknown parameter(s) [" + String.join(" ", extra) + "] (the action takes ["
                    + String.join(" ", formal) + "])");
        }
        return tool.getNextStates(new Action(def.getBody(), ctx, def), cur);
    }

    // ---- values ----

    /** toValue turns a JSON-shaped parameter into a TLC value, as modelfuzz's engine does. */
    private Value toValue(Object x, String what) throws BadRequest {
        if (x instanceof Long) {
            long l = (Long) x;
            if (l != (int) l) {
                throw new BadRequest(what + ": " + l + " is beyond TLC's 32-bit integers");
            }
            return IntValue.gen((int) l);
        }
        if (x instanceof Double) {
            throw new BadRequest(what + ": JSON number " + x + " is not an integer");
        }
        if (x instanceof String) {
            String s = (String) x;
            if (modelValues.contains(s)) {
                return (Value) ModelValue.make(s);
            }
            return new StringValue(s);
        }
        if (x instanceof Boolean) {
            return (Boolean) x ? BoolValue.ValTrue : BoolValue.ValFalse;
        }
        if (x instanceof List) {
            List<?> l = (List<?>) x;
            Value[] elems = new Value[l.size()];
            for (int i = 0; i < elems.length; i++) {
                elems[i] = toValue(l.get(i), what);
            }
            return new TupleValue(elems);
        }
        if (x instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) x;
            List<String> names = new ArrayList<>();
            for (Object k : m.keySet()) {
                names.add((String) k);
            }
            java.util.Collections.sort(names);
            UniqueString[] us = new UniqueString[names.size()];
            Value[] vals = new Value[names.size()];
            for (int i = 0; i < us.length; i++) {
                us[i] = UniqueString.uniqueStringOf(names.get(i));
                vals[i] = toValue(m.get(names.get(i)), what);
            }
            return new RecordValue(us, vals, false);
        }
        throw new BadRequest(what + ": null is no TLA+ value");
    }

    /**
     * encode writes v in the tagged form modelfuzz reads back into its own
     * values: integers and booleans as JSON, {"s":..} a string, {"m":..} a
     * model value, {"set":[..]} a set, {"fn":[[k,v],..]} a function
     * (records and tuples are functions).
     */
    static void encode(StringBuilder b, Value v) {
        if (v instanceof IntValue) {
            b.append(((IntValue) v).val);
        } else if (v instanceof BoolValue) {
            b.append(((BoolValue) v).val);
        } else if (v instanceof StringValue) {
            b.append("{\"s\":").append(Json.quote(((StringValue) v).val.toString())).append("}");
        } else if (v instanceof ModelValue) {
            b.append("{\"m\":").append(Json.quote(((ModelValue) v).val.toString())).append("}");
        } else if (v instanceof RecordValue) {
            RecordValue r = (RecordValue) v;
            b.append("{\"fn\":[");
            for (int i = 0; i < r.names.length; i++) {
                b.append(i > 0 ? "," : "").append("[{\"s\":").append(Json.quote(r.names[i].toString())).append("},");
                encode(b, r.values[i]);
                b.append("]");
            }
            b.append("]}");
        } else if (v instanceof TupleValue) {
            TupleValue t = (TupleValue) v;
            b.append("{\"fn\":[");
            for (int i = 0; i < t.elems.length; i++) {
                b.append(i > 0 ? "," : "").append("[").append(i + 1).append(",");
                encode(b, t.elems[i]);
                b.append("]");
            }
            b.append("]}");
        } else if (v instanceof FcnRcdValue) {
            FcnRcdValue f = (FcnRcdValue) v;
            b.append("{\"fn\":[");
            for (int i = 0; i < f.values.length; i++) {
                b.append(i > 0 ? "," : "").append("[");
                if (f.intv != null) {
                    b.append(f.intv.low + i);
                } else {
                    encode(b, f.domain[i]);
                }
                b.append(",");
                encode(b, f.values[i]);
                b.append("]");
            }
            b.append("]}");
        } else if (v instanceof Enumerable) {
            ValueVec elems = ((SetEnumValue) v.toSetEnum()).elems;
            b.append("{\"set\":[");
            for (int i = 0; i < elems.size(); i++) {
                if (i > 0) {
                    b.append(",");
                }
                encode(b, elems.elementAt(i));
            }
            b.append("]}");
        } else {
            Value f = v.toFcnRcd();
            if (f == null || f == v) {
                throw new IllegalStateException("a value modelfuzz cannot read back: " + v);
            }
            encode(b, f);
        }
    }

    // ---- /execute: the reference fuzzer's protocol ----

    private String execute(Object body) throws BadRequest {
        if (!(body instanceof List)) {
            throw new BadRequest("invalid request: /execute takes a JSON array of events ending with {\"reset\": true}");
        }
        List<Step> steps = new ArrayList<>();
        for (Object e : (List<?>) body) {
            if (!(e instanceof Map)) {
                throw new BadRequest("invalid request: an event is a JSON object");
            }
            Map<?, ?> m = (Map<?, ?>) e;
            if (Boolean.TRUE.equals(field(m, "reset"))) {
                break;
            }
            Object name = field(m, "name");
            if (!(name instanceof String)) {
                throw new BadRequest("invalid request: an event has a Name");
            }
            Step s = new Step();
            s.name = (String) name;
            Object p = field(m, "params");
            s.params = p instanceof Map ? (Map<?, ?>) p : Map.of();
            steps.add(s);
        }
        List<Object[]> printed = new ArrayList<>();
        run(steps, null, false, false, printed);
        StringBuilder b = new StringBuilder("{\"States\":[");
        for (int i = 0; i < printed.size(); i++) {
            b.append(i > 0 ? "," : "").append(Json.quote((String) printed.get(i)[0]));
        }
        b.append("],\"Keys\":[");
        for (int i = 0; i < printed.size(); i++) {
            b.append(i > 0 ? "," : "").append((long) printed.get(i)[1]);
        }
        return b.append("]}").toString();
    }

    /** field reads an event's field by its name in any case, as Go's encoding/json does. */
    private static Object field(Map<?, ?> m, String name) {
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (name.equalsIgnoreCase((String) e.getKey())) {
                return e.getValue();
            }
        }
        return null;
    }

    // ---- a small JSON reader and quoting ----

    static final class Json {
        private final String s;
        private int i;

        Json(byte[] b) {
            this.s = new String(b, StandardCharsets.UTF_8);
        }

        Object parse() {
            ws();
            Object v = value();
            ws();
            if (i != s.length()) {
                throw new IllegalArgumentException("invalid JSON at offset " + i + ": data after the value");
            }
            return v;
        }

        private void ws() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        private IllegalArgumentException bad(String what) {
            return new IllegalArgumentException("invalid JSON at offset " + i + ": " + what);
        }

        private Object value() {
            if (i >= s.length()) {
                throw bad("unexpected end of input");
            }
            char c = s.charAt(i);
            switch (c) {
                case '{': {
                    i++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    ws();
                    if (i < s.length() && s.charAt(i) == '}') {
                        i++;
                        return m;
                    }
                    while (true) {
                        ws();
                        if (i >= s.length() || s.charAt(i) != '"') {
                            throw bad("want a string key");
                        }
                        String k = string();
                        ws();
                        expect(':');
                        ws();
                        m.put(k, value());
                        ws();
                        if (i < s.length() && s.charAt(i) == ',') {
                            i++;
                            continue;
                        }
                        expect('}');
                        return m;
                    }
                }
                case '[': {
                    i++;
                    List<Object> l = new ArrayList<>();
                    ws();
                    if (i < s.length() && s.charAt(i) == ']') {
                        i++;
                        return l;
                    }
                    while (true) {
                        ws();
                        l.add(value());
                        ws();
                        if (i < s.length() && s.charAt(i) == ',') {
                            i++;
                            continue;
                        }
                        expect(']');
                        return l;
                    }
                }
                case '"':
                    return string();
                case 't':
                    word("true");
                    return Boolean.TRUE;
                case 'f':
                    word("false");
                    return Boolean.FALSE;
                case 'n':
                    word("null");
                    return null;
                default:
                    return number();
            }
        }

        private void expect(char c) {
            if (i >= s.length() || s.charAt(i) != c) {
                throw bad("want '" + c + "'");
            }
            i++;
        }

        private void word(String w) {
            if (!s.startsWith(w, i)) {
                throw bad("unexpected character");
            }
            i += w.length();
        }

        private Object number() {
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            String t = s.substring(start, i);
            if (t.isEmpty()) {
                throw bad("unexpected character");
            }
            try {
                return Long.parseLong(t);
            } catch (NumberFormatException e) {
                try {
                    return Double.parseDouble(t);
                } catch (NumberFormatException e2) {
                    throw bad("bad number " + t);
                }
            }
        }

        private String string() {
            i++; // the opening quote
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) {
                    throw bad("unterminated string");
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    throw bad("unterminated string");
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u':
                        if (i + 4 > s.length()) {
                            throw bad("bad \\u escape");
                        }
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default: b.append(e);
                }
            }
        }

        static String quote(String s) {
            StringBuilder b = new StringBuilder(s.length() + 2).append('"');
            for (int k = 0; k < s.length(); k++) {
                char c = s.charAt(k);
                switch (c) {
                    case '"': b.append("\\\""); break;
                    case '\\': b.append("\\\\"); break;
                    case '\n': b.append("\\n"); break;
                    case '\r': b.append("\\r"); break;
                    case '\t': b.append("\\t"); break;
                    default:
                        if (c < 0x20) {
                            b.append(String.format("\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                }
            }
            return b.append('"').toString();
        }
    }
}
