// Regular expressions written as literals: compiled to regexp bytecode when
// the program is compiled, so a program compiled to C carries that bytecode.
// Each line prints what one literal matches.
function show(name, v) {
    print(name + ": " + JSON.stringify(v));
}

function all(re, s) {
    var out = [], m;
    re.lastIndex = 0;
    while ((m = re.exec(s)) !== null) {
        out.push([m.index, m[0]]);
        if (m[0] === "")
            re.lastIndex++;
    }
    return out;
}

var latin = "The quick brown fox jumps over the lazy dog 1234 times, 56 ways.";
var wide = "Ünïcödé ÀÉÎÕÜ ĀāĂă Ωμέγα Жизнь 日本語 한국어 abc";
var astral = "x\u{1F600}y\u{1F64F}z\u{10437}\u{1D11E}w\u{20BB7}";

show("words", latin.match(/\b[a-z]+\b/g));
show("digits", all(/\d+/g, latin));
show("class-negated", latin.replace(/[^a-z ]/g, "#"));
show("class-latin1", all(/[\u00c0-\u00ff]+/g, wide));
show("class-bmp", all(/[\u0100-\u017f\u0370-\u03ff\u0400-\u04ff]+/g, wide));
show("class-cjk", all(/[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]+/g, wide));
show("class-astral", all(/[\u{1F600}-\u{1F64F}\u{10400}-\u{1044F}]/gu, astral));
show("class-astral-negated", all(/[^\u{1F600}-\u{1F64F}a-z]/gu, astral));
show("class-many-ranges", all(/[a-cf-hk-mp-rt-vy-z0-2579A-CF-HK-M]+/g, "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLM"));
show("dot-unicode", astral.match(/./gu).length);
show("dot-bmp", astral.match(/./g).length);
show("quant-small", /^a{3,5}$/.test("aaaa"));
show("quant-300", /^(?:ab){300}$/.test("ab".repeat(300)));
show("quant-300-short", /^(?:ab){300}$/.test("ab".repeat(299)));
show("quant-70000", /^x{70000}$/.test("x".repeat(70000)));
show("quant-70000-range", /^x{65536,70001}$/.test("x".repeat(65535)));
show("quant-lazy", "aaaa".match(/a{2,}?/)[0]);
show("backref", /(\w+) \1/.exec("hello hello world"));
show("backref-i", /(ab)\1/i.test("abAB"));
show("named", /(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})/.exec("on 2025-04-26 at").groups);
show("named-many", /(?<a>a)(?<bb>b)(?<ccc>c)(?<dddd>d)(?<Ωμ>e)/.exec("abcde").groups);
show("named-replace", "2025-04-26".replace(/(?<y>\d+)-(?<m>\d+)-(?<d>\d+)/, "$<d>/$<m>/$<y>"));
show("lookahead", all(/\d+(?=%)/g, "10% 20 30% 40"));
show("lookahead-neg", all(/\b\d+\b(?!%)/g, "10% 20 30% 40"));
show("lookbehind", all(/(?<=\$)\d+(\.\d+)?/g, "$10 €20 $30.5"));
show("lookbehind-neg", all(/(?<!\$)\b\d+/g, "$10 20 $30 40"));
show("case-i", all(/straße|ÉTÉ/gi, "STRASSE straße Été été"));
show("case-i-unicode", all(/[à-ÿ]+/giu, "ÀÉÎÕÜ àéîõü"));
show("property-greek", all(/\p{Script=Greek}+/gu, wide));
show("property-letter", wide.match(/\p{Lu}/gu));
show("property-emoji", astral.match(/\p{Emoji_Presentation}/gu));
show("sticky", (function () { var re = /foo/y; re.lastIndex = 3; return [re.test("barfoo"), re.lastIndex]; })());
show("dotall", /a.b/s.test("a\nb"));
show("multiline", all(/^\w+$/gm, "one\ntwo three\nfour"));
show("alternation", all(/cat|dog|bird|fish|horse|mouse|snake|tiger/g, "a dog, a cat and a tiger met a horse"));
show("nested-groups", /((a)|(b))+((c)|(d))*/.exec("ababcd"));
show("empty-alternative", "abc".split(/(?:)/));
show("split-capture", "a1b22c333d".split(/(\d+)/));
show("replace-fn", "a-b_c d".replace(/[-_ ](\w)/g, function (m, c) { return c.toUpperCase(); }));
show("indices", /b(c)/d.exec("abcd").indices);
show("long-pattern", /^(?:alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|xi|omicron|pi|rho|sigma|tau|upsilon|phi|chi|psi|omega)(?:-(?:one|two|three|four|five|six|seven|eight|nine|ten))*$/.test("omega-three-ten-one"));
show("source", /[\u{1F600}-\u{1F64F}]+(?<n>x){2,70000}/u.source);
show("flags", /a/dgimsuy.flags);
show("regexp-object", String(new RegExp(/\d{3}/g)));
