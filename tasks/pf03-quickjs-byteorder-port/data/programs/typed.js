// Byte order where a program can see it. DataView with an explicit order
// has one answer on every machine; typed arrays store elements in the
// machine's own order, so this program prints whether every view agrees on
// one order, never which order that is.
function hex(buf) {
    return Array.from(new Uint8Array(buf), function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join(" ");
}
function show(name, v) {
    print(name + ": " + (typeof v === "string" ? v : JSON.stringify(v, function (k, x) { return typeof x === "bigint" ? x.toString() + "n" : x; })));
}

var buf = new ArrayBuffer(24);
var dv = new DataView(buf);
var widths = [
    ["Int8", 1, -2], ["Uint8", 1, 0xfe], ["Int16", 2, -0x1234], ["Uint16", 2, 0xfedc],
    ["Int32", 4, -0x12345678], ["Uint32", 4, 0xfedcba98], ["Float32", 4, -1.5],
    ["Float64", 8, 1.0000000000000002], ["BigInt64", 8, -0x123456789abcdefn], ["BigUint64", 8, 0xfedcba9876543210n],
];
widths.forEach(function (w) {
    [false, true].forEach(function (le) {
        [0, 3].forEach(function (off) {
            new Uint8Array(buf).fill(0);
            dv["set" + w[0]](off, w[2], le);
            show(w[0] + (le ? "-le" : "-be") + "@" + off, hex(buf).slice(0, 3 * (off + w[1]) - 1) + " | " + String(dv["get" + w[0]](off, le)) + " | " + String(dv["get" + w[0]](off, !le)));
        });
    });
});
show("default-is-big-endian", (function () { dv.setUint32(0, 0x01020304); return hex(buf).slice(0, 11); })());

// Coherence: whichever order the machine uses, every width must use it.
var u8 = new Uint8Array(16);
new Uint16Array(u8.buffer)[0] = 0x0102;
var little = u8[0] === 2;
function native(bytes) { return little ? bytes.slice().reverse() : bytes; }
function same(a, b) { return a.join(",") === b.join(","); }
var checks = {};
u8.fill(0); new Uint16Array(u8.buffer)[0] = 0x0102; checks.u16 = same(Array.from(u8.slice(0, 2)), native([1, 2]));
u8.fill(0); new Uint32Array(u8.buffer)[0] = 0x01020304; checks.u32 = same(Array.from(u8.slice(0, 4)), native([1, 2, 3, 4]));
u8.fill(0); new Int32Array(u8.buffer)[1] = -2; checks.i32 = same(Array.from(u8.slice(4, 8)), native([255, 255, 255, 254]));
u8.fill(0); new Float32Array(u8.buffer)[0] = 1; checks.f32 = same(Array.from(u8.slice(0, 4)), native([0x3f, 0x80, 0, 0]));
u8.fill(0); new Float64Array(u8.buffer)[1] = -2; checks.f64 = same(Array.from(u8.slice(8, 16)), native([0xc0, 0, 0, 0, 0, 0, 0, 0]));
u8.fill(0); new BigInt64Array(u8.buffer)[0] = 0x0102030405060708n; checks.i64 = same(Array.from(u8.slice(0, 8)), native([1, 2, 3, 4, 5, 6, 7, 8]));
u8.fill(0); new DataView(u8.buffer).setUint32(0, 0x0a0b0c0d, little); checks.dataview_native = new Uint32Array(u8.buffer)[0] === 0x0a0b0c0d;
u8.fill(0); new Uint16Array(u8.buffer)[1] = 0xabcd; checks.cross_width = new Uint32Array(u8.buffer)[0] === (little ? 0xabcd0000 : 0x0000abcd);
show("coherent", checks);

var f = new Float64Array([1.5, -0, NaN, Infinity, 5e-324]);
show("float64-roundtrip", Array.from(new Float64Array(f.buffer.slice(0)), function (x) { return Object.is(x, -0) ? "-0" : String(x); }));
show("float32-rounding", Array.from(new Float32Array([0.1, 16777217, 3.4028235e38])));
show("clamped", Array.from(new Uint8ClampedArray([-5, 1.5, 2.5, 300])));
show("subarray", (function () { var a = new Int16Array(10).subarray(2, 7); return [a.length, a.byteOffset, a.byteLength]; })());
show("set-overlap", (function () { var a = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]); new Uint16Array(a.buffer, 2, 2).set(new Uint16Array(a.buffer, 0, 2)); return Array.from(a); })());
show("sort", Array.from(new Int32Array([5, -3, 2147483647, -2147483648, 0]).sort()));
show("bigint-array", Array.from(new BigUint64Array([1n, 0xffffffffffffffffn, 0x8000000000000000n])));

var sab = new SharedArrayBuffer(32);
var ia = new Int32Array(sab), ba = new BigInt64Array(sab, 8, 2), i16 = new Int16Array(sab, 24, 4);
show("atomics-i32", [Atomics.add(ia, 0, 5), Atomics.sub(ia, 0, 2), Atomics.or(ia, 0, 0x100), Atomics.xor(ia, 0, 1), Atomics.and(ia, 0, 0x1ff), Atomics.load(ia, 0)]);
show("atomics-cas", [Atomics.compareExchange(ia, 1, 0, 0x7fffffff), Atomics.compareExchange(ia, 1, 0, 1), Atomics.exchange(ia, 1, -1), Atomics.load(ia, 1)]);
show("atomics-i64", [Atomics.add(ba, 0, 0x100000000n), Atomics.add(ba, 0, 1n), Atomics.load(ba, 0), Atomics.compareExchange(ba, 1, 0n, -5n), Atomics.load(ba, 1)]);
show("atomics-i16", [Atomics.store(i16, 1, 0x7fff), Atomics.add(i16, 1, 1), Atomics.load(i16, 1)]);
