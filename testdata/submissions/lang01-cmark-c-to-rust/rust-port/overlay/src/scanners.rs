//! scanners.h + scanners.re: the regular-expression scanners.
//!
//! scanners.c is re2c's output for scanners.re (generated with
//! `re2c --case-insensitive -8 --encoding-policy substitute`).  Instead of
//! transliterating the generated automata, every regular expression of
//! scanners.re is implemented here by a hand-written matcher with re2c's
//! semantics:
//!
//! * the longest match starting at the first byte wins (ties: first rule);
//!   the function returns the match length (or the rule's code) or 0;
//! * `-8`: negated character classes such as `[^\n\x00]` match one
//!   well-formed UTF-8 encoded code point (no overlong forms, no surrogates,
//!   nothing above U+10FFFF); ill-formed bytes match no class;
//! * `--case-insensitive`: every string literal ("..." and '...') matches
//!   ASCII letters in either case; character classes are case-sensitive;
//! * the input ends at its first NUL byte (no class contains \x00).
//!
//! `_scan_at` does not write a NUL terminator into the chunk as the C does:
//! the matchers read through a bounded view that yields 0 past the chunk's
//! length, which is equivalent.  The `_scan_*` functions (NUL-terminated
//! input, used directly by commonmark.c and html.c) read up to the first NUL
//! exactly as the C does.
#[allow(unused_imports)]
use crate::*;

/// A bounded view of the input: bytes at or past `len` read as NUL, like the
/// terminator that the C's _scan_at writes at `data[len]`.
#[derive(Clone, Copy)]
struct ScanInput {
    p: *const u8,
    len: usize,
}

impl ScanInput {
    #[inline(always)]
    fn from_slice(s: &[u8]) -> ScanInput {
        ScanInput {
            p: s.as_ptr(),
            len: s.len(),
        }
    }

    /// A NUL-terminated string: reads stop at the NUL (every matcher stops
    /// at the first byte it cannot match, and no class matches NUL).
    #[inline(always)]
    unsafe fn from_cstr(p: *const u8) -> ScanInput {
        ScanInput {
            p: p,
            len: usize::MAX,
        }
    }

    #[inline(always)]
    fn at(&self, i: usize) -> u8 {
        if i < self.len {
            unsafe { *self.p.add(i) }
        } else {
            0
        }
    }

    /// Length of the well-formed multi-byte UTF-8 sequence at `i` (whose
    /// lead byte is >= 0x80), or 0 if it is ill-formed.
    #[inline]
    fn utf8_multi(&self, i: usize) -> usize {
        let b0 = self.at(i);
        let (n, lo, hi) = match b0 {
            0xC2..=0xDF => (2, 0x80, 0xBF),
            0xE0 => (3, 0xA0, 0xBF),
            0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
            0xED => (3, 0x80, 0x9F),
            0xF0 => (4, 0x90, 0xBF),
            0xF1..=0xF3 => (4, 0x80, 0xBF),
            0xF4 => (4, 0x80, 0x8F),
            _ => return 0,
        };
        let b1 = self.at(i + 1);
        if b1 < lo || b1 > hi {
            return 0;
        }
        let mut k = 2;
        while k < n {
            let b = self.at(i + k);
            if b < 0x80 || b > 0xBF {
                return 0;
            }
            k += 1;
        }
        n
    }

    /// Match one code point of the class `[^ excl \x00]` at `i`, where
    /// `excl` tells which ASCII bytes the class excludes.  Returns the
    /// code point's length in bytes, or 0 if it does not match.
    #[inline(always)]
    fn neg<F: Fn(u8) -> bool>(&self, i: usize, excl: F) -> usize {
        let b = self.at(i);
        if b == 0 {
            0
        } else if b < 0x80 {
            if excl(b) {
                0
            } else {
                1
            }
        } else {
            self.utf8_multi(i)
        }
    }

    /// Case-insensitive string literal at `i` (lit is lowercase ASCII).
    #[inline]
    fn lit(&self, i: usize, lit: &[u8]) -> bool {
        let mut k = 0;
        while k < lit.len() {
            if self.at(i + k).to_ascii_lowercase() != lit[k] {
                return false;
            }
            k += 1;
        }
        true
    }
}

#[inline(always)]
fn is_alpha(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

#[inline(always)]
fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// spacechar = [ \t\v\f\r\n];
#[inline(always)]
fn is_spacechar(b: u8) -> bool {
    b == b' ' || (b >= b'\t' && b <= b'\r')
}

#[inline(always)]
fn skip_spacechars(s: ScanInput, mut i: usize) -> usize {
    while is_spacechar(s.at(i)) {
        i += 1;
    }
    i
}

#[inline(always)]
fn ret(n: usize) -> bufsize_t {
    n as bufsize_t
}

/// scheme [:] -- the end of the match (after the colon), or 0.
/// scheme = [A-Za-z][A-Za-z0-9.+-]{1,31};
fn m_scheme_colon(s: ScanInput) -> usize {
    if !is_alpha(s.at(0)) {
        return 0;
    }
    let mut n = 0;
    while n < 31 {
        let b = s.at(1 + n);
        if is_alnum(b) || b == b'.' || b == b'+' || b == b'-' {
            n += 1;
        } else {
            break;
        }
    }
    if n == 0 || s.at(1 + n) != b':' {
        return 0;
    }
    n + 2
}

// Try to match a scheme including colon.
fn m_scheme(s: ScanInput) -> bufsize_t {
    ret(m_scheme_colon(s))
}

// Try to match URI autolink after first <, returning number of chars matched.
// scheme [:][^\x00-\x20<>]*[>]
fn m_autolink_uri(s: ScanInput) -> bufsize_t {
    let mut i = m_scheme_colon(s);
    if i == 0 {
        return 0;
    }
    loop {
        if s.at(i) == b'>' {
            return ret(i + 1);
        }
        let l = s.neg(i, |b| b <= 0x20 || b == b'<' || b == b'>');
        if l == 0 {
            return 0;
        }
        i += l;
    }
}

// Try to match email autolink after first <, returning num of chars matched.
//  [a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+
//    [@]
//    [a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?
//    ([.][a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*
//    [>]
fn m_autolink_email(s: ScanInput) -> bufsize_t {
    let mut i = 0;
    loop {
        let b = s.at(i);
        if is_alnum(b)
            || (b != 0 && b"-.!#$%&'*+/=?^_`{|}~".contains(&b))
        {
            i += 1;
        } else {
            break;
        }
    }
    if i == 0 || s.at(i) != b'@' {
        return 0;
    }
    i += 1;
    loop {
        // one label: the whole run of [a-zA-Z0-9-], since the next byte
        // must be '.' or '>'
        let st = i;
        while is_alnum(s.at(i)) || s.at(i) == b'-' {
            i += 1;
        }
        let n = i - st;
        if n == 0 || n > 63 || !is_alnum(s.at(st)) || !is_alnum(s.at(i - 1)) {
            return 0;
        }
        match s.at(i) {
            b'.' => i += 1,
            b'>' => return ret(i + 1),
            _ => return 0,
        }
    }
}

/// tagname = [A-Za-z][A-Za-z0-9-]*; -- end of the (maximal) tag name, or 0.
#[inline]
fn m_tagname(s: ScanInput, i: usize) -> usize {
    if !is_alpha(s.at(i)) {
        return 0;
    }
    let mut j = i + 1;
    while is_alnum(s.at(j)) || s.at(j) == b'-' {
        j += 1;
    }
    j
}

/// attributevalue = unquotedvalue | singlequotedvalue | doublequotedvalue;
/// -- end of the value starting at i, or 0.
fn m_attributevalue(s: ScanInput, i: usize) -> usize {
    let q = s.at(i);
    if q == b'\'' || q == b'"' {
        let mut j = i + 1;
        loop {
            if s.at(j) == q {
                return j + 1;
            }
            let l = s.neg(j, |b| b == q);
            if l == 0 {
                return 0;
            }
            j += l;
        }
    }
    // unquotedvalue = [^ \t\r\n\v\f"'=<>`\x00]+;
    let mut j = i;
    loop {
        let l = s.neg(j, |b| {
            is_spacechar(b) || b == b'"' || b == b'\'' || b == b'=' || b == b'<' || b == b'>'
                || b == b'`'
        });
        if l == 0 {
            break;
        }
        j += l;
    }
    if j == i {
        0
    } else {
        j
    }
}

/// opentag | closetag, starting at i (after the '<'):
///   opentag = tagname attribute* spacechar* [/]? [>];
///   closetag = [/] tagname spacechar* [>];
///   attribute = spacechar+ attributename attributevaluespec?;
///   attributevaluespec = spacechar* [=] spacechar* attributevalue;
/// -- end of the tag (after the '>'), or 0.  The end is unique.
fn m_opentag_or_closetag(s: ScanInput, i: usize) -> usize {
    if s.at(i) == b'/' {
        let mut j = m_tagname(s, i + 1);
        if j == 0 {
            return 0;
        }
        j = skip_spacechars(s, j);
        return if s.at(j) == b'>' { j + 1 } else { 0 };
    }
    let mut j = m_tagname(s, i);
    if j == 0 {
        return 0;
    }
    loop {
        // j: after the tag name or after an attribute
        let k = skip_spacechars(s, j);
        let b = s.at(k);
        if b == b'>' {
            return k + 1;
        }
        if b == b'/' {
            return if s.at(k + 1) == b'>' { k + 2 } else { 0 };
        }
        // attributename = [a-zA-Z_:][a-zA-Z0-9:._-]*;
        if k > j && (is_alpha(b) || b == b'_' || b == b':') {
            let mut m = k + 1;
            loop {
                let c = s.at(m);
                if is_alnum(c) || c == b':' || c == b'.' || c == b'_' || c == b'-' {
                    m += 1;
                } else {
                    break;
                }
            }
            let v = skip_spacechars(s, m);
            if s.at(v) == b'=' {
                let w = skip_spacechars(s, v + 1);
                let e = m_attributevalue(s, w);
                if e == 0 {
                    return 0;
                }
                j = e;
            } else {
                j = m;
            }
            continue;
        }
        return 0;
    }
}

// Try to match an HTML tag after first <, returning num of chars matched.
fn m_html_tag(s: ScanInput) -> bufsize_t {
    ret(m_opentag_or_closetag(s, 0))
}

// htmlcomment = "--->" | ("-" ([-]? [^\x00>-]) ([-]? [^\x00-])* "-->");
fn m_html_comment(s: ScanInput) -> bufsize_t {
    if s.at(0) != b'-' {
        return 0;
    }
    if s.at(1) == b'-' && s.at(2) == b'-' && s.at(3) == b'>' {
        return 4;
    }
    let mut i = 1;
    if s.at(i) == b'-' {
        i += 1;
    }
    let l = s.neg(i, |b| b == b'>' || b == b'-');
    if l == 0 {
        return 0;
    }
    i += l;
    loop {
        if s.at(i) == b'-' {
            if s.at(i + 1) == b'-' {
                return if s.at(i + 2) == b'>' { ret(i + 3) } else { 0 };
            }
            let l = s.neg(i + 1, |b| b == b'-');
            if l == 0 {
                return 0;
            }
            i += 1 + l;
        } else {
            let l = s.neg(i, |b| b == b'-');
            if l == 0 {
                return 0;
            }
            i += l;
        }
    }
}

// processinginstruction = ([^?>\x00]+ | [?][^>\x00] | [>])+;
fn m_html_pi(s: ScanInput) -> bufsize_t {
    let mut i = 0;
    loop {
        if s.at(i) == b'?' {
            let l = s.neg(i + 1, |b| b == b'>');
            if l == 0 {
                break;
            }
            i += 1 + l;
        } else {
            let l = s.neg(i, |b| b == b'?');
            if l == 0 {
                break;
            }
            i += l;
        }
    }
    ret(i)
}

// declaration = [A-Z]+ spacechar+ [^>\x00]*;
fn m_html_declaration(s: ScanInput) -> bufsize_t {
    let mut i = 0;
    while s.at(i).is_ascii_uppercase() {
        i += 1;
    }
    if i == 0 || !is_spacechar(s.at(i)) {
        return 0;
    }
    i += 1;
    loop {
        let l = s.neg(i, |b| b == b'>');
        if l == 0 {
            break;
        }
        i += l;
    }
    ret(i)
}

// cdata = "CDATA[" ([^\]\x00]+ | "]" [^\]\x00] | "]]" [^>\x00])*;
fn m_html_cdata(s: ScanInput) -> bufsize_t {
    if !s.lit(0, b"cdata[") {
        return 0;
    }
    let mut i = 6;
    let mut last = 6;
    // 0: accepting; 1: after "]"; 2: after "]]"
    let mut state = 0;
    loop {
        match state {
            0 => {
                if s.at(i) == b']' {
                    state = 1;
                    i += 1;
                } else {
                    let l = s.neg(i, |b| b == b']');
                    if l == 0 {
                        break;
                    }
                    i += l;
                    last = i;
                }
            }
            1 => {
                if s.at(i) == b']' {
                    state = 2;
                    i += 1;
                } else {
                    let l = s.neg(i, |b| b == b']');
                    if l == 0 {
                        break;
                    }
                    i += l;
                    last = i;
                    state = 0;
                }
            }
            _ => {
                let l = s.neg(i, |b| b == b'>');
                if l == 0 {
                    break;
                }
                i += l;
                last = i;
                state = 0;
            }
        }
    }
    ret(last)
}

const BLOCKTAGNAMES: [&[u8]; 63] = [
    b"address", b"article", b"aside", b"base", b"basefont", b"blockquote", b"body",
    b"caption", b"center", b"col", b"colgroup", b"dd", b"details", b"dialog", b"dir",
    b"div", b"dl", b"dt", b"fieldset", b"figcaption", b"figure", b"footer", b"form",
    b"frame", b"frameset", b"h1", b"h2", b"h3", b"h4", b"h5", b"h6", b"head", b"header",
    b"hr", b"html", b"iframe", b"legend", b"li", b"link", b"main", b"menu", b"menuitem",
    b"nav", b"noframes", b"ol", b"optgroup", b"option", b"p", b"param", b"section",
    b"source", b"title", b"summary", b"table", b"tbody", b"td", b"tfoot", b"th", b"thead",
    b"title", b"tr", b"track", b"ul",
];

// Try to match an HTML block tag start line, returning
// an integer code for the type of block (1-6, matching the spec).
// #7 is handled by a separate function, below.
//  [<] ('script'|'pre'|'textarea'|'style') (spacechar | [>]) { return 1; }
//  '<!--' { return 2; }
//  '<?' { return 3; }
//  '<!' [A-Z] { return 4; }
//  '<![CDATA[' { return 5; }
//  [<] [/]? blocktagname (spacechar | [/]? [>])  { return 6; }
// (the rules match disjoint sets of inputs)
fn m_html_block_start(s: ScanInput) -> bufsize_t {
    if s.at(0) != b'<' {
        return 0;
    }
    for name in [&b"script"[..], b"pre", b"textarea", b"style"].iter() {
        if s.lit(1, name) {
            let b = s.at(1 + name.len());
            if is_spacechar(b) || b == b'>' {
                return 1;
            }
        }
    }
    if s.lit(1, b"!--") {
        return 2;
    }
    if s.at(1) == b'?' {
        return 3;
    }
    if s.at(1) == b'!' && s.at(2).is_ascii_uppercase() {
        return 4;
    }
    if s.lit(1, b"![cdata[") {
        return 5;
    }
    let i = if s.at(1) == b'/' { 2 } else { 1 };
    for name in BLOCKTAGNAMES.iter() {
        if s.lit(i, name) {
            let j = i + name.len();
            let b = s.at(j);
            if is_spacechar(b) || b == b'>' || (b == b'/' && s.at(j + 1) == b'>') {
                return 6;
            }
        }
    }
    0
}

// Try to match an HTML block tag start line of type 7, returning
// 7 if successful, 0 if not.
//  [<] (opentag | closetag) [\t\n\f ]* [\r\n] { return 7; }
fn m_html_block_start_7(s: ScanInput) -> bufsize_t {
    if s.at(0) != b'<' {
        return 0;
    }
    let mut i = m_opentag_or_closetag(s, 1);
    if i == 0 {
        return 0;
    }
    loop {
        match s.at(i) {
            b'\r' | b'\n' => return 7,
            b'\t' | 0x0C | b' ' => i += 1,
            _ => return 0,
        }
    }
}

/// [^\n\x00]* X, where X is one of the (ASCII) literals: the end of the
/// last occurrence of a literal within the run of [^\n\x00], or 0.
fn m_line_until_last(s: ScanInput, lits: &[&[u8]]) -> bufsize_t {
    let mut i = 0;
    let mut last = 0;
    loop {
        let b = s.at(i);
        if b != 0 && b < 0x80 {
            for lit in lits.iter() {
                if s.lit(i, lit) {
                    last = i + lit.len();
                }
            }
        }
        let l = s.neg(i, |b| b == b'\n');
        if l == 0 {
            break;
        }
        i += l;
    }
    ret(last)
}

// [^\n\x00]* [<] [/] ('script'|'pre'|'textarea'|'style') [>]
fn m_html_block_end_1(s: ScanInput) -> bufsize_t {
    m_line_until_last(
        s,
        &[b"</script>", b"</pre>", b"</textarea>", b"</style>"],
    )
}

// [^\n\x00]* '-->'
fn m_html_block_end_2(s: ScanInput) -> bufsize_t {
    m_line_until_last(s, &[b"-->"])
}

// [^\n\x00]* '?>'
fn m_html_block_end_3(s: ScanInput) -> bufsize_t {
    m_line_until_last(s, &[b"?>"])
}

// [^\n\x00]* '>'
fn m_html_block_end_4(s: ScanInput) -> bufsize_t {
    m_line_until_last(s, &[b">"])
}

// [^\n\x00]* ']]>'
fn m_html_block_end_5(s: ScanInput) -> bufsize_t {
    m_line_until_last(s, &[b"]]>"])
}

// escaped_char = [\\][!"#$%&'()*+,./:;<=>?@[\\\]^_`{|}~-];
// Try to match a link title (in single quotes, in double quotes, or
// in parentheses), returning number of chars matched.
//  ["] (escaped_char|[^"\x00])* ["]
//  ['] (escaped_char|[^'\x00])* [']
//  [(] (escaped_char|[^()\x00])* [)]
// A backslash may be read as a plain character, so the body goes on past a
// delimiter exactly when a backslash precedes it; the longest match ends at
// the last closing delimiter met before the body ends.
fn m_link_title(s: ScanInput) -> bufsize_t {
    let open = s.at(0);
    let close = match open {
        b'"' => b'"',
        b'\'' => b'\'',
        b'(' => b')',
        _ => return 0,
    };
    let mut i = 1;
    let mut last = 0;
    loop {
        let b = s.at(i);
        if b == close {
            last = i + 1;
            if s.at(i - 1) == b'\\' {
                i += 1;
                continue;
            }
            break;
        }
        if open == b'(' && b == b'(' {
            if s.at(i - 1) == b'\\' {
                i += 1;
                continue;
            }
            break;
        }
        let l = s.neg(i, |_| false);
        if l == 0 {
            break;
        }
        i += l;
    }
    ret(last)
}

// Match space characters, including newlines.
// [ \t\v\f\r\n]+
fn m_spacechars(s: ScanInput) -> bufsize_t {
    ret(skip_spacechars(s, 0))
}

// Match ATX heading start.
// [#]{1,6} ([ \t]+|[\r\n])
fn m_atx_heading_start(s: ScanInput) -> bufsize_t {
    let mut n = 0;
    while n < 6 && s.at(n) == b'#' {
        n += 1;
    }
    if n == 0 {
        return 0;
    }
    match s.at(n) {
        b' ' | b'\t' => {
            let mut i = n + 1;
            while s.at(i) == b' ' || s.at(i) == b'\t' {
                i += 1;
            }
            ret(i)
        }
        b'\r' | b'\n' => ret(n + 1),
        _ => 0,
    }
}

// Match setext heading line.  Return 1 for level-1 heading,
// 2 for level-2, 0 for no match.
//  [=]+ [ \t]* [\r\n] { return 1; }
//  [-]+ [ \t]* [\r\n] { return 2; }
fn m_setext_heading_line(s: ScanInput) -> bufsize_t {
    let c = s.at(0);
    let code = match c {
        b'=' => 1,
        b'-' => 2,
        _ => return 0,
    };
    let mut i = 1;
    while s.at(i) == c {
        i += 1;
    }
    while s.at(i) == b' ' || s.at(i) == b'\t' {
        i += 1;
    }
    match s.at(i) {
        b'\r' | b'\n' => code,
        _ => 0,
    }
}

// Scan an opening code fence.
//  [`]{3,} / [^`\r\n\x00]*[\r\n]
//  [~]{3,} / [^\r\n\x00]*[\r\n]
// (the fence run is maximal; the trailing context is not counted)
fn m_open_code_fence(s: ScanInput) -> bufsize_t {
    let c = s.at(0);
    if c != b'`' && c != b'~' {
        return 0;
    }
    let mut n = 0;
    while s.at(n) == c {
        n += 1;
    }
    if n < 3 {
        return 0;
    }
    let mut i = n;
    loop {
        let b = s.at(i);
        if b == b'\r' || b == b'\n' {
            return ret(n);
        }
        let l = s.neg(i, |b| b == b'\r' || b == b'\n' || (c == b'`' && b == b'`'));
        if l == 0 {
            return 0;
        }
        i += l;
    }
}

// Scan a closing code fence with length at least len.
//  [`]{3,} / [ \t]*[\r\n]
//  [~]{3,} / [ \t]*[\r\n]
fn m_close_code_fence(s: ScanInput) -> bufsize_t {
    let c = s.at(0);
    if c != b'`' && c != b'~' {
        return 0;
    }
    let mut n = 0;
    while s.at(n) == c {
        n += 1;
    }
    if n < 3 {
        return 0;
    }
    let mut i = n;
    while s.at(i) == b' ' || s.at(i) == b'\t' {
        i += 1;
    }
    match s.at(i) {
        b'\r' | b'\n' => ret(n),
        _ => 0,
    }
}

// Scans an entity.
// Returns number of chars matched.
//  [&] ([#] ([Xx][A-Fa-f0-9]{1,6}|[0-9]{1,7}) |[A-Za-z][A-Za-z0-9]{1,31} ) [;]
fn m_entity(s: ScanInput) -> bufsize_t {
    if s.at(0) != b'&' {
        return 0;
    }
    let i;
    if s.at(1) == b'#' {
        if s.at(2) == b'x' || s.at(2) == b'X' {
            let mut n = 0;
            while n < 6 && s.at(3 + n).is_ascii_hexdigit() {
                n += 1;
            }
            if n == 0 {
                return 0;
            }
            i = 3 + n;
        } else {
            let mut n = 0;
            while n < 7 && s.at(2 + n).is_ascii_digit() {
                n += 1;
            }
            if n == 0 {
                return 0;
            }
            i = 2 + n;
        }
    } else {
        if !is_alpha(s.at(1)) {
            return 0;
        }
        let mut n = 0;
        while n < 31 && is_alnum(s.at(2 + n)) {
            n += 1;
        }
        if n == 0 {
            return 0;
        }
        i = 2 + n;
    }
    if s.at(i) == b';' {
        ret(i + 1)
    } else {
        0
    }
}

// Returns positive value if a URL begins in a way that is potentially
// dangerous, with javascript:, vbscript:, file:, or data:, otherwise 0.
//  'data:image/' ('png'|'gif'|'jpeg'|'webp') { return 0; }
//  'javascript:' | 'vbscript:' | 'file:' | 'data:' { return (bufsize_t)(p - start); }
fn m_dangerous_url(s: ScanInput) -> bufsize_t {
    if s.lit(0, b"data:image/") {
        for ext in [&b"png"[..], b"gif", b"jpeg", b"webp"].iter() {
            if s.lit(11, ext) {
                return 0;
            }
        }
    }
    for pre in [&b"javascript:"[..], b"vbscript:", b"file:", b"data:"].iter() {
        if s.lit(0, pre) {
            return ret(pre.len());
        }
    }
    0
}

/// `scanner` is a matcher over the bytes from the offset to the end of the
/// chunk (the slice stands for the C's NUL-terminated text).
pub unsafe fn _scan_at(scanner: fn(&[u8]) -> bufsize_t, c: *mut cmark_chunk, offset: bufsize_t) -> bufsize_t {
    let res: bufsize_t;
    let ptr = (*c).data as *const u8;

    if ptr.is_null() || offset > (*c).len {
        return 0;
    } else {
        // The C writes a NUL at ptr[c->len] for the duration of the scan;
        // the matchers instead never read past the slice's end.
        let s = std::slice::from_raw_parts(ptr.offset(offset as isize), ((*c).len - offset) as usize);
        res = scanner(s);
    }

    res
}

macro_rules! scanners {
    ($($m:ident => $raw:ident, $slice:ident, $scan:ident;)*) => {
        $(
            fn $slice(s: &[u8]) -> bufsize_t {
                $m(ScanInput::from_slice(s))
            }

            /// The scanner on a NUL-terminated string (as scanners.h declares it).
            pub unsafe fn $raw(p: *const u8) -> bufsize_t {
                $m(ScanInput::from_cstr(p))
            }

            /// The scanners.h macro: `_scan_at(&_scan_x, c, n)`.
            #[inline]
            pub unsafe fn $scan(c: *mut cmark_chunk, n: bufsize_t) -> bufsize_t {
                _scan_at($slice, c, n)
            }
        )*
    };
}

scanners! {
    m_scheme => _scan_scheme, slice_scan_scheme, scan_scheme;
    m_autolink_uri => _scan_autolink_uri, slice_scan_autolink_uri, scan_autolink_uri;
    m_autolink_email => _scan_autolink_email, slice_scan_autolink_email, scan_autolink_email;
    m_html_tag => _scan_html_tag, slice_scan_html_tag, scan_html_tag;
    m_html_comment => _scan_html_comment, slice_scan_html_comment, scan_html_comment;
    m_html_pi => _scan_html_pi, slice_scan_html_pi, scan_html_pi;
    m_html_declaration => _scan_html_declaration, slice_scan_html_declaration, scan_html_declaration;
    m_html_cdata => _scan_html_cdata, slice_scan_html_cdata, scan_html_cdata;
    m_html_block_start => _scan_html_block_start, slice_scan_html_block_start, scan_html_block_start;
    m_html_block_start_7 => _scan_html_block_start_7, slice_scan_html_block_start_7, scan_html_block_start_7;
    m_html_block_end_1 => _scan_html_block_end_1, slice_scan_html_block_end_1, scan_html_block_end_1;
    m_html_block_end_2 => _scan_html_block_end_2, slice_scan_html_block_end_2, scan_html_block_end_2;
    m_html_block_end_3 => _scan_html_block_end_3, slice_scan_html_block_end_3, scan_html_block_end_3;
    m_html_block_end_4 => _scan_html_block_end_4, slice_scan_html_block_end_4, scan_html_block_end_4;
    m_html_block_end_5 => _scan_html_block_end_5, slice_scan_html_block_end_5, scan_html_block_end_5;
    m_link_title => _scan_link_title, slice_scan_link_title, scan_link_title;
    m_spacechars => _scan_spacechars, slice_scan_spacechars, scan_spacechars;
    m_atx_heading_start => _scan_atx_heading_start, slice_scan_atx_heading_start, scan_atx_heading_start;
    m_setext_heading_line => _scan_setext_heading_line, slice_scan_setext_heading_line, scan_setext_heading_line;
    m_open_code_fence => _scan_open_code_fence, slice_scan_open_code_fence, scan_open_code_fence;
    m_close_code_fence => _scan_close_code_fence, slice_scan_close_code_fence, scan_close_code_fence;
    m_entity => _scan_entity, slice_scan_entity, scan_entity;
    m_dangerous_url => _scan_dangerous_url, slice_scan_dangerous_url, scan_dangerous_url;
}

#[cfg(test)]
mod tests {
    use super::*;

    // Both forms of a scanner on `s`: NUL-terminated, and as a chunk whose
    // buffer goes on past its end (those bytes must be ignored).
    fn c(
        raw: unsafe fn(*const u8) -> bufsize_t,
        scan: unsafe fn(*mut cmark_chunk, bufsize_t) -> bufsize_t,
        s: &[u8],
    ) -> bufsize_t {
        let mut z = s.to_vec();
        z.push(0);
        let r = unsafe { raw(z.as_ptr()) };
        let mut buf = s.to_vec();
        buf.extend_from_slice(b">-->?>]]>\n");
        let mut ch = cmark_chunk {
            data: buf.as_mut_ptr() as _,
            len: s.len() as bufsize_t,
        };
        assert_eq!(unsafe { scan(&mut ch, 0) }, r);
        r
    }

    // Expected values produced by State A's scanners.c.
    #[test]
    fn scanners_match_c() {
        assert_eq!(c(_scan_scheme, scan_scheme, b"http:x"), 5);
        assert_eq!(c(_scan_scheme, scan_scheme, b"a:"), 0);
        assert_eq!(c(_scan_autolink_uri, scan_autolink_uri, b"http://x.y/z>"), 13);
        assert_eq!(c(_scan_autolink_uri, scan_autolink_uri, b"http://x y>"), 0);
        assert_eq!(c(_scan_autolink_email, scan_autolink_email, b"a.b+c@ex-1.com>"), 15);
        assert_eq!(c(_scan_autolink_email, scan_autolink_email, b"a@-b>"), 0);
        assert_eq!(c(_scan_html_tag, scan_html_tag, b"a href=\x22x\x22 b='y' c=d e/>"), 24);
        assert_eq!(c(_scan_html_tag, scan_html_tag, b"/div >"), 6);
        assert_eq!(c(_scan_html_tag, scan_html_tag, b"a b=>"), 0);
        assert_eq!(c(_scan_html_comment, scan_html_comment, b"-- hi -->"), 9);
        assert_eq!(c(_scan_html_comment, scan_html_comment, b"--->"), 4);
        assert_eq!(c(_scan_html_comment, scan_html_comment, b"-->"), 0);
        assert_eq!(c(_scan_html_pi, scan_html_pi, b"x ?> y"), 2);
        assert_eq!(c(_scan_html_pi, scan_html_pi, b"??>"), 3);
        assert_eq!(c(_scan_html_declaration, scan_html_declaration, b"DOCTYPE html>"), 12);
        assert_eq!(c(_scan_html_cdata, scan_html_cdata, b"cdata[ x ]] ]]>"), 12);
        assert_eq!(c(_scan_html_block_start, scan_html_block_start, b"<script>"), 1);
        assert_eq!(c(_scan_html_block_start, scan_html_block_start, b"<!--"), 2);
        assert_eq!(c(_scan_html_block_start, scan_html_block_start, b"<?"), 3);
        assert_eq!(c(_scan_html_block_start, scan_html_block_start, b"<!X"), 4);
        assert_eq!(c(_scan_html_block_start, scan_html_block_start, b"<![CDATA["), 5);
        assert_eq!(c(_scan_html_block_start, scan_html_block_start, b"</Div/>"), 6);
        assert_eq!(c(_scan_html_block_start, scan_html_block_start, b"<p"), 0);
        assert_eq!(c(_scan_html_block_start_7, scan_html_block_start_7, b"<a b='c'>  \x0a"), 7);
        assert_eq!(c(_scan_html_block_start_7, scan_html_block_start_7, b"<a>x\x0a"), 0);
        assert_eq!(c(_scan_html_block_end_1, scan_html_block_end_1, b"x</SCRIPT> </pre>y\x0a"), 17);
        assert_eq!(c(_scan_html_block_end_2, scan_html_block_end_2, b"a --> b -->"), 11);
        assert_eq!(c(_scan_html_block_end_3, scan_html_block_end_3, b"?> ?>x"), 5);
        assert_eq!(c(_scan_html_block_end_4, scan_html_block_end_4, b"a>b>\x0ac>"), 4);
        assert_eq!(c(_scan_html_block_end_5, scan_html_block_end_5, b"]]> ]]>"), 7);
        assert_eq!(c(_scan_link_title, scan_link_title, b"\x22a\x5c\x22b\x22 c\x22"), 6);
        assert_eq!(c(_scan_link_title, scan_link_title, b"(a\x5c(b) c)"), 6);
        assert_eq!(c(_scan_link_title, scan_link_title, b"'a"), 0);
        assert_eq!(c(_scan_spacechars, scan_spacechars, b" \x09\x0d\x0a\x0b\x0cx"), 6);
        assert_eq!(c(_scan_atx_heading_start, scan_atx_heading_start, b"### x"), 4);
        assert_eq!(c(_scan_atx_heading_start, scan_atx_heading_start, b"#######"), 0);
        assert_eq!(c(_scan_atx_heading_start, scan_atx_heading_start, b"#\x0a"), 2);
        assert_eq!(c(_scan_setext_heading_line, scan_setext_heading_line, b"=== \x0a"), 1);
        assert_eq!(c(_scan_setext_heading_line, scan_setext_heading_line, b"--x\x0a"), 0);
        assert_eq!(c(_scan_open_code_fence, scan_open_code_fence, b"````` rust\x0a"), 5);
        assert_eq!(c(_scan_open_code_fence, scan_open_code_fence, b"``` a`b\x0a"), 0);
        assert_eq!(c(_scan_open_code_fence, scan_open_code_fence, b"~~~~ a~\x0a"), 4);
        assert_eq!(c(_scan_close_code_fence, scan_close_code_fence, b"~~~~  \x0a"), 4);
        assert_eq!(c(_scan_entity, scan_entity, b"&amp;"), 5);
        assert_eq!(c(_scan_entity, scan_entity, b"&#x1F600;"), 9);
        assert_eq!(c(_scan_entity, scan_entity, b"&#12345678;"), 0);
        assert_eq!(c(_scan_dangerous_url, scan_dangerous_url, b"JavaScript:alert"), 11);
        assert_eq!(c(_scan_dangerous_url, scan_dangerous_url, b"data:image/png;x"), 0);
        assert_eq!(c(_scan_dangerous_url, scan_dangerous_url, b"data:text/html"), 5);
        assert_eq!(c(_scan_dangerous_url, scan_dangerous_url, b"file:"), 5);
    }

    #[test]
    fn scan_at_bounds() {
        let mut buf = b"<!-- x -->".to_vec();
        let mut ch = cmark_chunk {
            data: buf.as_mut_ptr() as _,
            len: 9,
        };
        unsafe {
            assert_eq!(scan_html_comment(&mut ch, 3), 0);
            ch.len = 10;
            assert_eq!(scan_html_comment(&mut ch, 3), 7);
            assert_eq!(scan_html_comment(&mut ch, 11), 0);
            assert_eq!(scan_html_block_end_4(&mut ch, 10), 0);
        }
        let mut null = cmark_chunk {
            data: std::ptr::null_mut(),
            len: 0,
        };
        assert_eq!(unsafe { scan_spacechars(&mut null, 0) }, 0);
    }
}
