// Constants of every kind a compiled program stores: strings in 8-bit and
// 16-bit storage, numbers that do not fit 32 bits, BigInt literals of one and
// of several limbs, template literals. Each line prints one constant.
function show(name, v) {
    var s;
    if (typeof v === "bigint")
        s = v.toString() + "n 0x" + v.toString(16);
    else if (typeof v === "number")
        s = (Object.is(v, -0) ? "-0" : String(v)) + " " + v.toString(16);
    else if (typeof v === "string")
        s = JSON.stringify(v) + " " + v.length + " " + Array.from(v, function (c) { return c.codePointAt(0).toString(16); }).join(",");
    else
        s = JSON.stringify(v);
    print(name + ": " + s);
}

show("latin1", "plain ascii and latin-1 é ñ ü ÿ");
show("wide", "Ωμέγα Жизнь 日本語 한국어");
show("wide-last", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u0101");
show("astral", "\u{1F600}\u{1D11E}\u{20BB7}");
show("lone-surrogates", "\uD800x\uDC00");
show("nul", "a\u0000b");
show("key-wide", Object.keys({ "clé": 1, "ключ": 2, "鍵": 3, "\u{1F511}": 4 }));
show("template", `α${1 + 1}β${"\u{1F600}"}γ`);
show("raw-template", String.raw`\u{41}\n${"é"}`);
show("int32-max", 2147483647);
show("int32-min", -2147483648);
show("int32-over", 2147483648);
show("uint32-max", 4294967295);
show("int53", 9007199254740991);
show("hex-wide", 0x123456789abcd);
show("fraction", 0.1);
show("third", 1 / 3);
show("negative-zero", -0);
show("min-subnormal", 5e-324);
show("max-subnormal", 2.225073858507201e-308);
show("min-normal", 2.2250738585072014e-308);
show("max-double", 1.7976931348623157e308);
show("asymmetric", 1.0000000000000002);
show("pi", 3.141592653589793);
show("exponent", 6.02214076e23);
show("float-array", [1.5, -2.25, 1e21, 1e-7, 123456789.125]);
show("bigint-zero", 0n);
show("bigint-small", 123n);
show("bigint-negative", -123n);
show("bigint-64", 0x0123456789abcdefn);
show("bigint-64-negative", -0x0123456789abcdefn);
show("bigint-128", 0x0123456789abcdef_fedcba9876543210n);
show("bigint-130", 0x3_0123456789abcdef_fedcba9876543210n);
show("bigint-decimal", 123456789012345678901234567890123456789n);
show("bigint-negative-wide", -98765432109876543210987654321098765432109876543210n);
show("bigint-low-zero", 0x1234567800000000_0000000000000000n);
show("bigint-octal", 0o1234567012345670123456701234567n);
show("bigint-binary", 0b11001110001111000011111000001111110000001111111000000011111111n);
show("bigint-arith", 0x0123456789abcdef_fedcba9876543210n * 0x1122334455667788n + 1n);
show("bigint-compare", [0xffffffffffffffffn > 0xfffffffffffffffen, -0x8000000000000000n === -(2n ** 63n)]);
show("object", { a: 1, b: [2, 3.5, "x"], c: { d: null, e: true } });
