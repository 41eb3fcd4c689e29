// Program structure a compiled program keeps in its bytecode: many locals
// and constants (16-bit and 32-bit operands), closures, classes with computed
// and private keys, generators, async functions, labels, switch, exceptions.
function show(name, v) {
    print(name + ": " + JSON.stringify(v));
}

function locals() {
    var a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7, a8 = 8, a9 = 9;
    var b0 = 10, b1 = 11, b2 = 12, b3 = 13, b4 = 14, b5 = 15, b6 = 16, b7 = 17, b8 = 18, b9 = 19;
    var c0 = 20, c1 = 21, c2 = 22, c3 = 23, c4 = 24, c5 = 25, c6 = 26, c7 = 27, c8 = 28, c9 = 29;
    var d = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9];
    return d.reduce(function (x, y) { return x + y; }, 0);
}
show("locals", locals());

var consts = ["k000", "k001", "k002", "k003", "k004", "k005", "k006", "k007", "k008", "k009", "k010", "k011", "k012", "k013", "k014", "k015",
    "k016", "k017", "k018", "k019", "k020", "k021", "k022", "k023", "k024", "k025", "k026", "k027", "k028", "k029", "k030", "k031",
    1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5, 20.5, 0x100000001, 0x100000002];
show("constants", [consts.length, consts[0], consts[31], consts[32], consts[consts.length - 1]]);

function counter(start) {
    var n = start;
    return { next: function () { return n++; }, peek: () => n };
}
var c = counter(40);
c.next(); c.next();
show("closure", [c.peek(), c.next(), c.peek()]);

var key = "dyn" + "amic";
class Base {
    #secret = 42;
    static count = 0;
    [key] = "computed field";
    constructor(x) { this.x = x; Base.count++; }
    get double() { return this.x * 2; }
    [key + "Method"]() { return this.#secret + this.x; }
    static { this.initialised = true; }
}
class Derived extends Base {
    constructor(x) { super(x + 1); }
    get double() { return super.double + 0.5; }
}
var d = new Derived(10);
show("class", [d.x, d.double, d.dynamic, d.dynamicMethod(), Base.count, Base.initialised, Object.getOwnPropertyNames(Derived.prototype)]);

function* gen(n) { for (var i = 0; i < n; i++) { var r = yield i * i; if (r) i += r; } return "done"; }
var g = gen(10), out = [];
out.push(g.next().value, g.next().value, g.next(3).value, g.return("early").value, g.next().done);
show("generator", out);

var order = [];
async function af(x) { order.push("start " + x); await null; order.push("resumed " + x); return x * 2; }
af(1).then(function (v) { order.push("then " + v); });
af(2).then(function (v) { order.push("then " + v); });
Promise.resolve().then(function () { order.push("microtask"); });
order.push("sync end");

outer: for (var i = 0; i < 5; i++) {
    for (var j = 0; j < 5; j++) {
        if (j === 3) continue outer;
        if (i === 3) break outer;
    }
}
show("labels", [i, j]);

function sw(x) {
    switch (x) {
    case 0: return "zero"; case 1: return "one"; case 2: return "two"; case 3: return "three";
    case "a": return "letter"; case 1e10: return "big"; case 0x7fffffff: return "int-max";
    default: return "other";
    }
}
show("switch", [0, 1, 2, 3, "a", 1e10, 0x7fffffff, 99].map(sw));

function thrower(kind) {
    try {
        if (kind === 0) throw new RangeError("r");
        if (kind === 1) null.x;
        if (kind === 2) undefinedVariable;
        return "none";
    } catch (e) {
        return e.name;
    } finally {
        order.push("finally " + kind);
    }
}
show("exceptions", [0, 1, 2, 3].map(thrower));

var { a, b: [, second], ...rest } = { a: 1, b: [2, 3], c: 4, d: 5 };
show("destructuring", [a, second, rest]);
show("spread", Math.max(...[1, 5, 3], ...new Set([9, 2])));
show("json", JSON.parse(JSON.stringify({ n: 1e21, s: "é\u2028", a: [true, null] })));
show("sort-stable", [{ k: 1, v: "a" }, { k: 0, v: "b" }, { k: 1, v: "c" }, { k: 0, v: "d" }].sort(function (x, y) { return x.k - y.k; }).map(function (x) { return x.v; }));
show("map-order", Array.from(new Map([[3, "c"], ["x", 1], [1, "a"]]).keys()));
show("object-order", Object.keys({ b: 1, 2: 1, a: 1, 1: 1, [Symbol.iterator]: 1 }));
show("dates", [Date.UTC(2025, 3, 26, 12, 30), new Date(Date.UTC(2000, 1, 29)).toISOString(), new Date("2025-04-26T00:00:00Z").getUTCDay()]);
show("numbers", [(1234.5678).toFixed(2), (0.000001234).toPrecision(2), (255).toString(2), (-255).toString(36), parseFloat("1e-7"), Number("0x1F"), 0.1 + 0.2]);
show("strings", ["abc".padStart(6, "é"), "Straße".toUpperCase(), "İ".toLowerCase().length, "a,b,,c".split(","), "x".localeCompare("y") < 0, "\u0041\u030A".normalize("NFC")]);
Promise.resolve().then(function () { show("async-order", order); });
