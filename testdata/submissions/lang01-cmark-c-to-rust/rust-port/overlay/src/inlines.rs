//! inlines.h + inlines.c: inline parsing (emphasis, links, code spans,
//! autolinks, raw HTML, entities, smart punctuation) and link reference
//! definitions.
use crate::*;
use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;

extern "C" {
    fn strlen(s: *const c_char) -> usize;
}

const EMDASH: &[u8] = b"\xE2\x80\x94\0";
const ENDASH: &[u8] = b"\xE2\x80\x93\0";
const ELLIPSES: &[u8] = b"\xE2\x80\xA6\0";
const LEFTDOUBLEQUOTE: &[u8] = b"\xE2\x80\x9C\0";
const RIGHTDOUBLEQUOTE: &[u8] = b"\xE2\x80\x9D\0";
const LEFTSINGLEQUOTE: &[u8] = b"\xE2\x80\x98\0";
const RIGHTSINGLEQUOTE: &[u8] = b"\xE2\x80\x99\0";

/// A NUL-terminated byte string literal as `const char *`.
#[inline]
fn cs(s: &'static [u8]) -> *const c_char {
    s.as_ptr() as *const c_char
}

// Macros for creating various kinds of simple.
#[inline]
unsafe fn make_linebreak(mem: *mut cmark_mem) -> *mut cmark_node {
    make_simple(mem, CMARK_NODE_LINEBREAK)
}
#[inline]
unsafe fn make_softbreak(mem: *mut cmark_mem) -> *mut cmark_node {
    make_simple(mem, CMARK_NODE_SOFTBREAK)
}
#[inline]
unsafe fn make_emph(mem: *mut cmark_mem) -> *mut cmark_node {
    make_simple(mem, CMARK_NODE_EMPH)
}
#[inline]
unsafe fn make_strong(mem: *mut cmark_mem) -> *mut cmark_node {
    make_simple(mem, CMARK_NODE_STRONG)
}

const MAXBACKTICKS: usize = 1000;

#[repr(C)]
struct delimiter {
    previous: *mut delimiter,
    next: *mut delimiter,
    inl_text: *mut cmark_node,
    position: bufsize_t,
    length: bufsize_t,
    delim_char: u8,
    can_open: bool,
    can_close: bool,
}

#[repr(C)]
struct bracket {
    previous: *mut bracket,
    inl_text: *mut cmark_node,
    position: bufsize_t,
    image: bool,
    active: bool,
    bracket_after: bool,
}

const FLAG_SKIP_HTML_CDATA: u32 = 1u32 << 0;
const FLAG_SKIP_HTML_DECLARATION: u32 = 1u32 << 1;
const FLAG_SKIP_HTML_PI: u32 = 1u32 << 2;

#[repr(C)]
struct subject {
    mem: *mut cmark_mem,
    input: cmark_chunk,
    flags: u32,
    line: i32,
    pos: bufsize_t,
    block_offset: i32,
    column_offset: i32,
    refmap: *mut cmark_reference_map,
    last_delim: *mut delimiter,
    last_bracket: *mut bracket,
    backticks: [bufsize_t; MAXBACKTICKS + 1],
    scanned_for_backticks: bool,
}

#[inline]
fn S_is_line_end_char(c: u8) -> bool {
    c == b'\n' || c == b'\r'
}

// Create an inline with a literal string value.
#[inline]
unsafe fn make_literal(
    subj: *mut subject,
    t: cmark_node_type,
    start_column: i32,
    end_column: i32,
) -> *mut cmark_node {
    let e = ((*(*subj).mem).calloc)(1, std::mem::size_of::<cmark_node>()) as *mut cmark_node;
    (*e).mem = (*subj).mem;
    (*e).type_ = t as u16;
    (*e).end_line = (*subj).line;
    (*e).start_line = (*e).end_line;
    // columns are 1 based.
    (*e).start_column = start_column + 1 + (*subj).column_offset + (*subj).block_offset;
    (*e).end_column = end_column + 1 + (*subj).column_offset + (*subj).block_offset;
    e
}

// Create an inline with no value.
#[inline]
unsafe fn make_simple(mem: *mut cmark_mem, t: cmark_node_type) -> *mut cmark_node {
    let e = ((*mem).calloc)(1, std::mem::size_of::<cmark_node>()) as *mut cmark_node;
    (*e).mem = mem;
    (*e).type_ = t as u16;
    e
}

unsafe fn make_str(subj: *mut subject, sc: i32, ec: i32, s: cmark_chunk) -> *mut cmark_node {
    let e = make_literal(subj, CMARK_NODE_TEXT, sc, ec);
    (*e).data = ((*(*subj).mem).realloc)(null_mut(), (s.len + 1) as usize) as *mut u8;
    if !s.data.is_null() {
        std::ptr::copy_nonoverlapping(s.data, (*e).data, s.len as usize);
    }
    *(*e).data.offset(s.len as isize) = 0;
    (*e).len = s.len;
    e
}

unsafe fn make_str_from_buf(
    subj: *mut subject,
    sc: i32,
    ec: i32,
    buf: *mut cmark_strbuf,
) -> *mut cmark_node {
    let e = make_literal(subj, CMARK_NODE_TEXT, sc, ec);
    (*e).len = (*buf).size;
    (*e).data = cmark_strbuf_detach(buf);
    e
}

// Like make_str, but parses entities.
unsafe fn make_str_with_entities(
    subj: *mut subject,
    start_column: i32,
    end_column: i32,
    content: *mut cmark_chunk,
) -> *mut cmark_node {
    let mut unescaped: cmark_strbuf = CMARK_BUF_INIT((*subj).mem);

    if houdini_unescape_html(&mut unescaped, (*content).data, (*content).len) != 0 {
        make_str_from_buf(subj, start_column, end_column, &mut unescaped)
    } else {
        make_str(subj, start_column, end_column, *content)
    }
}

// Like cmark_node_append_child but without costly sanity checks.
// Assumes that child was newly created.
unsafe fn append_child(node: *mut cmark_node, child: *mut cmark_node) {
    let old_last_child = (*node).last_child;

    (*child).next = null_mut();
    (*child).prev = old_last_child;
    (*child).parent = node;
    (*node).last_child = child;

    if !old_last_child.is_null() {
        (*old_last_child).next = child;
    } else {
        // Also set first_child if node previously had no children.
        (*node).first_child = child;
    }
}

// Duplicate a chunk by creating a copy of the buffer not by reusing the
// buffer like cmark_chunk_dup does.
unsafe fn cmark_strdup(mem: *mut cmark_mem, src: *mut u8) -> *mut u8 {
    if src.is_null() {
        return null_mut();
    }
    let len = strlen(src as *const c_char);
    let data = ((*mem).realloc)(null_mut(), len + 1) as *mut u8;
    std::ptr::copy_nonoverlapping(src, data, len + 1);
    data
}

unsafe fn cmark_clean_autolink(mem: *mut cmark_mem, url: *mut cmark_chunk, is_email: i32) -> *mut u8 {
    let mut buf: cmark_strbuf = CMARK_BUF_INIT(mem);

    cmark_chunk_trim(url);

    if is_email != 0 {
        cmark_strbuf_puts(&mut buf, cs(b"mailto:\0"));
    }

    houdini_unescape_html_f(&mut buf, (*url).data, (*url).len);
    cmark_strbuf_detach(&mut buf)
}

#[inline]
unsafe fn make_autolink(
    subj: *mut subject,
    start_column: i32,
    end_column: i32,
    mut url: cmark_chunk,
    is_email: i32,
) -> *mut cmark_node {
    let link = make_simple((*subj).mem, CMARK_NODE_LINK);
    (*link).as_.link.url = cmark_clean_autolink((*subj).mem, &mut url, is_email);
    (*link).as_.link.title = null_mut();
    (*link).end_line = (*subj).line;
    (*link).start_line = (*link).end_line;
    (*link).start_column = start_column + 1;
    (*link).end_column = end_column + 1;
    append_child(
        link,
        make_str_with_entities(subj, start_column + 1, end_column - 1, &mut url),
    );
    link
}

unsafe fn subject_from_buf(
    mem: *mut cmark_mem,
    line_number: i32,
    block_offset: i32,
    e: *mut subject,
    chunk: *mut cmark_chunk,
    refmap: *mut cmark_reference_map,
) {
    (*e).mem = mem;
    (*e).input = *chunk;
    (*e).flags = 0;
    (*e).line = line_number;
    (*e).pos = 0;
    (*e).block_offset = block_offset;
    (*e).column_offset = 0;
    (*e).refmap = refmap;
    (*e).last_delim = null_mut();
    (*e).last_bracket = null_mut();
    let mut i = 0usize;
    while i <= MAXBACKTICKS {
        (*e).backticks[i] = 0;
        i += 1;
    }
    (*e).scanned_for_backticks = false;
}

#[inline]
fn isbacktick(c: i32) -> i32 {
    (c == b'`' as i32) as i32
}

#[inline]
unsafe fn peek_char(subj: *mut subject) -> u8 {
    // NULL bytes should have been stripped out by now.  If they're
    // present, it's a programming error:
    // assert(!(subj->pos < subj->input.len && subj->input.data[subj->pos] == 0));
    // -- compiled out (NDEBUG), as in State A
    if (*subj).pos < (*subj).input.len {
        *(*subj).input.data.offset((*subj).pos as isize)
    } else {
        0
    }
}

#[inline]
unsafe fn peek_at(subj: *mut subject, pos: bufsize_t) -> u8 {
    *(*subj).input.data.offset(pos as isize)
}

// Return true if there are more characters in the subject.
#[inline]
unsafe fn is_eof(subj: *mut subject) -> i32 {
    ((*subj).pos >= (*subj).input.len) as i32
}

// Advance the subject.  Doesn't check for eof.
#[inline]
unsafe fn advance(subj: *mut subject) {
    (*subj).pos += 1;
}

#[inline]
unsafe fn skip_spaces(subj: *mut subject) -> bool {
    let mut skipped = false;
    while peek_char(subj) == b' ' || peek_char(subj) == b'\t' {
        advance(subj);
        skipped = true;
    }
    skipped
}

#[inline]
unsafe fn skip_line_end(subj: *mut subject) -> bool {
    let mut seen_line_end_char = false;
    if peek_char(subj) == b'\r' {
        advance(subj);
        seen_line_end_char = true;
    }
    if peek_char(subj) == b'\n' {
        advance(subj);
        seen_line_end_char = true;
    }
    seen_line_end_char || is_eof(subj) != 0
}

// Take characters while a predicate holds, and return a string.
#[inline]
unsafe fn take_while(subj: *mut subject, f: fn(i32) -> i32) -> cmark_chunk {
    let mut c: u8;
    let startpos = (*subj).pos;
    let mut len: bufsize_t = 0;

    loop {
        c = peek_char(subj);
        if !(c != 0 && f(c as i32) != 0) {
            break;
        }
        advance(subj);
        len += 1;
    }

    cmark_chunk_dup(&(*subj).input, startpos, len)
}

// Return the number of newlines in a given span of text in a subject.  If
// the number is greater than zero, also return the number of characters
// between the last newline and the end of the span in `since_newline`.
unsafe fn count_newlines(
    subj: *mut subject,
    mut from: bufsize_t,
    mut len: bufsize_t,
    since_newline: *mut i32,
) -> i32 {
    let mut nls = 0;
    let mut since_nl = 0;

    while len != 0 {
        len -= 1;
        let c = *(*subj).input.data.offset(from as isize);
        from += 1;
        if c == b'\n' {
            nls += 1;
            since_nl = 0;
        } else {
            since_nl += 1;
        }
    }

    if nls == 0 {
        return 0;
    }

    *since_newline = since_nl;
    nls
}

// Adjust `node`'s `end_line`, `end_column`, and `subj`'s `line` and
// `column_offset` according to the number of newlines in a just-matched span
// of text in `subj`.
unsafe fn adjust_subj_node_newlines(
    subj: *mut subject,
    node: *mut cmark_node,
    matchlen: i32,
    extra: i32,
    options: i32,
) {
    if (options & CMARK_OPT_SOURCEPOS as i32) == 0 {
        return;
    }

    let mut since_newline: i32 = 0;
    let newlines = count_newlines(
        subj,
        (*subj).pos - matchlen - extra,
        matchlen,
        &mut since_newline,
    );
    if newlines != 0 {
        (*subj).line += newlines;
        (*node).end_line += newlines;
        (*node).end_column = since_newline;
        (*subj).column_offset = -(*subj).pos + since_newline + extra;
    }
}

// Try to process a backtick code span that began with a
// span of ticks of length openticklength length (already
// parsed).  Return 0 if you don't find matching closing
// backticks, otherwise return the position in the subject
// after the closing backticks.
unsafe fn scan_to_closing_backticks(subj: *mut subject, openticklength: bufsize_t) -> bufsize_t {
    let found = false;
    if openticklength > MAXBACKTICKS as bufsize_t {
        // we limit backtick string length because of the array subj->backticks:
        return 0;
    }
    if (*subj).scanned_for_backticks
        && (*subj).backticks[openticklength as usize] <= (*subj).pos
    {
        // return if we already know there's no closer
        return 0;
    }
    while !found {
        // read non backticks
        loop {
            let c = peek_char(subj);
            if !(c != 0 && c != b'`') {
                break;
            }
            advance(subj);
        }
        if is_eof(subj) != 0 {
            break;
        }
        let mut numticks: bufsize_t = 0;
        while peek_char(subj) == b'`' {
            advance(subj);
            numticks += 1;
        }
        // store position of ender
        if numticks <= MAXBACKTICKS as bufsize_t {
            (*subj).backticks[numticks as usize] = (*subj).pos - numticks;
        }
        if numticks == openticklength {
            return (*subj).pos;
        }
    }
    // got through whole input without finding closer
    (*subj).scanned_for_backticks = true;
    0
}

// Destructively modify string, converting newlines to
// spaces, then removing a single leading + trailing space,
// unless the code span consists entirely of space characters.
unsafe fn S_normalize_code(s: *mut cmark_strbuf) {
    let mut r: bufsize_t = 0;
    let mut w: bufsize_t = 0;
    let mut contains_nonspace = false;
    let p = (*s).ptr;

    while r < (*s).size {
        match *p.offset(r as isize) {
            b'\r' => {
                if *p.offset((r + 1) as isize) != b'\n' {
                    *p.offset(w as isize) = b' ';
                    w += 1;
                }
            }
            b'\n' => {
                *p.offset(w as isize) = b' ';
                w += 1;
            }
            _ => {
                *p.offset(w as isize) = *p.offset(r as isize);
                w += 1;
            }
        }
        if *p.offset(r as isize) != b' ' {
            contains_nonspace = true;
        }
        r += 1;
    }

    // begins and ends with space?
    if contains_nonspace && *(*s).ptr.offset(0) == b' ' && *(*s).ptr.offset((w - 1) as isize) == b' '
    {
        cmark_strbuf_drop(s, 1);
        cmark_strbuf_truncate(s, w - 2);
    } else {
        cmark_strbuf_truncate(s, w);
    }
}

// Parse backtick code section or raw backticks, return an inline.
// Assumes that the subject has a backtick at the current position.
unsafe fn handle_backticks(subj: *mut subject, options: i32) -> *mut cmark_node {
    let openticks = take_while(subj, isbacktick);
    let startpos = (*subj).pos;
    let endpos = scan_to_closing_backticks(subj, openticks.len);

    if endpos == 0 {
        // not found
        (*subj).pos = startpos; // rewind
        make_str(subj, (*subj).pos, (*subj).pos, openticks)
    } else {
        let mut buf: cmark_strbuf = CMARK_BUF_INIT((*subj).mem);

        cmark_strbuf_set(
            &mut buf,
            (*subj).input.data.offset(startpos as isize),
            endpos - startpos - openticks.len,
        );
        S_normalize_code(&mut buf);

        let node = make_literal(
            subj,
            CMARK_NODE_CODE,
            startpos,
            endpos - openticks.len - 1,
        );
        (*node).len = buf.size;
        (*node).data = cmark_strbuf_detach(&mut buf);
        adjust_subj_node_newlines(subj, node, endpos - startpos, openticks.len, options);
        node
    }
}

// Scan ***, **, or * and return number scanned, or 0.
// Advances position.
unsafe fn scan_delims(
    subj: *mut subject,
    c: u8,
    can_open: *mut bool,
    can_close: *mut bool,
) -> i32 {
    let mut numdelims: i32 = 0;
    let mut before_char_pos: bufsize_t;
    let mut after_char: i32 = 0;
    let mut before_char: i32 = 0;
    let mut len: i32;
    let left_flanking: bool;
    let right_flanking: bool;

    if (*subj).pos == 0 {
        before_char = 10;
    } else {
        before_char_pos = (*subj).pos - 1;
        // walk back to the beginning of the UTF_8 sequence:
        while peek_at(subj, before_char_pos) >> 6 == 2 && before_char_pos > 0 {
            before_char_pos -= 1;
        }
        len = cmark_utf8proc_iterate(
            (*subj).input.data.offset(before_char_pos as isize),
            (*subj).pos - before_char_pos,
            &mut before_char,
        );
        if len == -1 {
            before_char = 10;
        }
    }

    if c == b'\'' || c == b'"' {
        numdelims += 1;
        advance(subj); // limit to 1 delim for quotes
    } else {
        while peek_char(subj) == c {
            numdelims += 1;
            advance(subj);
        }
    }

    len = cmark_utf8proc_iterate(
        (*subj).input.data.offset((*subj).pos as isize),
        (*subj).input.len - (*subj).pos,
        &mut after_char,
    );
    if len == -1 {
        after_char = 10;
    }
    left_flanking = numdelims > 0
        && cmark_utf8proc_is_space(after_char) == 0
        && (cmark_utf8proc_is_punctuation(after_char) == 0
            || cmark_utf8proc_is_space(before_char) != 0
            || cmark_utf8proc_is_punctuation(before_char) != 0);
    right_flanking = numdelims > 0
        && cmark_utf8proc_is_space(before_char) == 0
        && (cmark_utf8proc_is_punctuation(before_char) == 0
            || cmark_utf8proc_is_space(after_char) != 0
            || cmark_utf8proc_is_punctuation(after_char) != 0);
    if c == b'_' {
        *can_open = left_flanking
            && (!right_flanking || cmark_utf8proc_is_punctuation(before_char) != 0);
        *can_close = right_flanking
            && (!left_flanking || cmark_utf8proc_is_punctuation(after_char) != 0);
    } else if c == b'\'' || c == b'"' {
        *can_open = left_flanking
            && (!right_flanking || before_char == b'(' as i32 || before_char == b'[' as i32)
            && before_char != b']' as i32
            && before_char != b')' as i32;
        *can_close = right_flanking;
    } else {
        *can_open = left_flanking;
        *can_close = right_flanking;
    }
    numdelims
}

unsafe fn remove_delimiter(subj: *mut subject, delim: *mut delimiter) {
    if delim.is_null() {
        return;
    }
    if (*delim).next.is_null() {
        // end of list:
        // assert(delim == subj->last_delim); -- compiled out (NDEBUG), as in State A
        (*subj).last_delim = (*delim).previous;
    } else {
        (*(*delim).next).previous = (*delim).previous;
    }
    if !(*delim).previous.is_null() {
        (*(*delim).previous).next = (*delim).next;
    }
    ((*(*subj).mem).free)(delim as *mut c_void);
}

unsafe fn pop_bracket(subj: *mut subject) {
    if (*subj).last_bracket.is_null() {
        return;
    }
    let b = (*subj).last_bracket;
    (*subj).last_bracket = (*(*subj).last_bracket).previous;
    ((*(*subj).mem).free)(b as *mut c_void);
}

unsafe fn push_delimiter(
    subj: *mut subject,
    c: u8,
    can_open: bool,
    can_close: bool,
    inl_text: *mut cmark_node,
) {
    let delim =
        ((*(*subj).mem).calloc)(1, std::mem::size_of::<delimiter>()) as *mut delimiter;
    (*delim).delim_char = c;
    (*delim).can_open = can_open;
    (*delim).can_close = can_close;
    (*delim).inl_text = inl_text;
    (*delim).position = (*subj).pos;
    (*delim).length = (*inl_text).len;
    (*delim).previous = (*subj).last_delim;
    (*delim).next = null_mut();
    if !(*delim).previous.is_null() {
        (*(*delim).previous).next = delim;
    }
    (*subj).last_delim = delim;
}

unsafe fn push_bracket(subj: *mut subject, image: bool, inl_text: *mut cmark_node) {
    let b = ((*(*subj).mem).calloc)(1, std::mem::size_of::<bracket>()) as *mut bracket;
    if !(*subj).last_bracket.is_null() {
        (*(*subj).last_bracket).bracket_after = true;
    }
    (*b).image = image;
    (*b).active = true;
    (*b).inl_text = inl_text;
    (*b).previous = (*subj).last_bracket;
    (*b).position = (*subj).pos;
    (*b).bracket_after = false;
    (*subj).last_bracket = b;
}

// Assumes the subject has a c at the current position.
unsafe fn handle_delim(subj: *mut subject, c: u8, smart: bool) -> *mut cmark_node {
    let numdelims: bufsize_t;
    let inl_text: *mut cmark_node;
    let mut can_open = false;
    let mut can_close = false;
    let contents: cmark_chunk;

    numdelims = scan_delims(subj, c, &mut can_open, &mut can_close);

    if c == b'\'' && smart {
        contents = cmark_chunk_literal(cs(RIGHTSINGLEQUOTE));
    } else if c == b'"' && smart {
        contents = cmark_chunk_literal(if can_close {
            cs(RIGHTDOUBLEQUOTE)
        } else {
            cs(LEFTDOUBLEQUOTE)
        });
    } else {
        contents = cmark_chunk_dup(&(*subj).input, (*subj).pos - numdelims, numdelims);
    }

    inl_text = make_str(subj, (*subj).pos - numdelims, (*subj).pos - 1, contents);

    if (can_open || can_close) && (!(c == b'\'' || c == b'"') || smart) {
        push_delimiter(subj, c, can_open, can_close, inl_text);
    }

    inl_text
}

// Assumes we have a hyphen at the current position.
unsafe fn handle_hyphen(subj: *mut subject, smart: bool) -> *mut cmark_node {
    let startpos: i32 = (*subj).pos;

    advance(subj);

    if !smart || peek_char(subj) != b'-' {
        return make_str(
            subj,
            (*subj).pos - 1,
            (*subj).pos - 1,
            cmark_chunk_literal(cs(b"-\0")),
        );
    }

    while smart && peek_char(subj) == b'-' {
        advance(subj);
    }

    let numhyphens: i32 = (*subj).pos - startpos;
    let mut en_count: i32 = 0;
    let mut em_count: i32 = 0;
    let mut i: i32;
    let mut buf: cmark_strbuf = CMARK_BUF_INIT((*subj).mem);

    if numhyphens % 3 == 0 {
        // if divisible by 3, use all em dashes
        em_count = numhyphens / 3;
    } else if numhyphens % 2 == 0 {
        // if divisible by 2, use all en dashes
        en_count = numhyphens / 2;
    } else if numhyphens % 3 == 2 {
        // use one en dash at end
        en_count = 1;
        em_count = (numhyphens - 2) / 3;
    } else {
        // use two en dashes at the end
        en_count = 2;
        em_count = (numhyphens - 4) / 3;
    }

    i = em_count;
    while i > 0 {
        cmark_strbuf_puts(&mut buf, cs(EMDASH));
        i -= 1;
    }

    i = en_count;
    while i > 0 {
        cmark_strbuf_puts(&mut buf, cs(ENDASH));
        i -= 1;
    }

    make_str_from_buf(subj, startpos, (*subj).pos - 1, &mut buf)
}

// Assumes we have a period at the current position.
unsafe fn handle_period(subj: *mut subject, smart: bool) -> *mut cmark_node {
    advance(subj);
    if smart && peek_char(subj) == b'.' {
        advance(subj);
        if peek_char(subj) == b'.' {
            advance(subj);
            make_str(
                subj,
                (*subj).pos - 3,
                (*subj).pos - 1,
                cmark_chunk_literal(cs(ELLIPSES)),
            )
        } else {
            make_str(
                subj,
                (*subj).pos - 2,
                (*subj).pos - 1,
                cmark_chunk_literal(cs(b"..\0")),
            )
        }
    } else {
        make_str(
            subj,
            (*subj).pos - 1,
            (*subj).pos - 1,
            cmark_chunk_literal(cs(b".\0")),
        )
    }
}

unsafe fn process_emphasis(subj: *mut subject, stack_bottom: bufsize_t) {
    let mut candidate: *mut delimiter;
    let mut closer: *mut delimiter = null_mut();
    let mut opener: *mut delimiter;
    let mut old_closer: *mut delimiter;
    let mut opener_found: bool;
    let mut openers_bottom_index: usize = 0;
    let mut openers_bottom: [bufsize_t; 9] = [stack_bottom; 9];

    // move back to first relevant delim.
    candidate = (*subj).last_delim;
    while !candidate.is_null() && (*candidate).position >= stack_bottom {
        closer = candidate;
        candidate = (*candidate).previous;
    }

    // now move forward, looking for closers, and handling each
    while !closer.is_null() {
        if (*closer).can_close {
            match (*closer).delim_char {
                b'"' => {
                    openers_bottom_index = 0;
                }
                b'\'' => {
                    openers_bottom_index = 1;
                }
                b'_' => {
                    openers_bottom_index = 2;
                }
                b'*' => {
                    openers_bottom_index = (3
                        + (if (*closer).can_open { 3 } else { 0 })
                        + ((*closer).length % 3)) as usize;
                }
                _ => {
                    // assert(false); -- compiled out (NDEBUG), as in State A
                }
            }

            // Now look backwards for first matching opener:
            opener = (*closer).previous;
            opener_found = false;
            while !opener.is_null()
                && (*opener).position >= openers_bottom[openers_bottom_index]
            {
                if (*opener).can_open && (*opener).delim_char == (*closer).delim_char {
                    // interior closer of size 2 can't match opener of size 1
                    // or of size 1 can't match 2
                    if !((*closer).can_open || (*opener).can_close)
                        || (*closer).length % 3 == 0
                        || ((*opener).length + (*closer).length) % 3 != 0
                    {
                        opener_found = true;
                        break;
                    }
                }
                opener = (*opener).previous;
            }
            old_closer = closer;
            if (*closer).delim_char == b'*' || (*closer).delim_char == b'_' {
                if opener_found {
                    closer = S_insert_emph(subj, opener, closer);
                } else {
                    closer = (*closer).next;
                }
            } else if (*closer).delim_char == b'\'' || (*closer).delim_char == b'"' {
                if (*closer).delim_char == b'\'' {
                    cmark_node_set_literal((*closer).inl_text, cs(RIGHTSINGLEQUOTE));
                } else {
                    cmark_node_set_literal((*closer).inl_text, cs(RIGHTDOUBLEQUOTE));
                }
                closer = (*closer).next;
                if opener_found {
                    if (*old_closer).delim_char == b'\'' {
                        cmark_node_set_literal((*opener).inl_text, cs(LEFTSINGLEQUOTE));
                    } else {
                        cmark_node_set_literal((*opener).inl_text, cs(LEFTDOUBLEQUOTE));
                    }
                    remove_delimiter(subj, opener);
                    remove_delimiter(subj, old_closer);
                }
            }
            if !opener_found {
                // set lower bound for future searches for openers
                openers_bottom[openers_bottom_index] = (*old_closer).position;
                if !(*old_closer).can_open {
                    // we can remove a closer that can't be an
                    // opener, once we've seen there's no
                    // matching opener:
                    remove_delimiter(subj, old_closer);
                }
            }
        } else {
            closer = (*closer).next;
        }
    }
    // free all delimiters in list until stack_bottom:
    while !(*subj).last_delim.is_null() && (*(*subj).last_delim).position >= stack_bottom {
        remove_delimiter(subj, (*subj).last_delim);
    }
}

unsafe fn S_insert_emph(
    subj: *mut subject,
    opener: *mut delimiter,
    mut closer: *mut delimiter,
) -> *mut delimiter {
    let mut delim: *mut delimiter;
    let mut tmp_delim: *mut delimiter;
    let use_delims: bufsize_t;
    let opener_inl = (*opener).inl_text;
    let closer_inl = (*closer).inl_text;
    let mut opener_num_chars: bufsize_t = (*opener_inl).len;
    let mut closer_num_chars: bufsize_t = (*closer_inl).len;
    let mut tmp: *mut cmark_node;
    let mut tmpnext: *mut cmark_node;
    let emph: *mut cmark_node;

    // calculate the actual number of characters used from this closer
    use_delims = if closer_num_chars >= 2 && opener_num_chars >= 2 {
        2
    } else {
        1
    };

    // remove used characters from associated inlines.
    opener_num_chars -= use_delims;
    closer_num_chars -= use_delims;
    (*opener_inl).len = opener_num_chars;
    *(*opener_inl).data.offset(opener_num_chars as isize) = 0;
    (*closer_inl).len = closer_num_chars;
    *(*closer_inl).data.offset(closer_num_chars as isize) = 0;

    // free delimiters between opener and closer
    delim = (*closer).previous;
    while !delim.is_null() && delim != opener {
        tmp_delim = (*delim).previous;
        remove_delimiter(subj, delim);
        delim = tmp_delim;
    }

    // create new emph or strong, and splice it in to our inlines
    // between the opener and closer
    emph = if use_delims == 1 {
        make_emph((*subj).mem)
    } else {
        make_strong((*subj).mem)
    };

    tmp = (*opener_inl).next;
    while !tmp.is_null() && tmp != closer_inl {
        tmpnext = (*tmp).next;
        cmark_node_unlink(tmp);
        append_child(emph, tmp);
        tmp = tmpnext;
    }
    cmark_node_insert_after(opener_inl, emph);

    (*emph).start_line = (*opener_inl).start_line;
    (*emph).end_line = (*closer_inl).end_line;
    (*emph).start_column = (*opener_inl).start_column;
    (*emph).end_column = (*closer_inl).end_column;

    // if opener has 0 characters, remove it and its associated inline
    if opener_num_chars == 0 {
        cmark_node_free(opener_inl);
        remove_delimiter(subj, opener);
    }

    // if closer has 0 characters, remove it and its associated inline
    if closer_num_chars == 0 {
        // remove empty closer inline
        cmark_node_free(closer_inl);
        // remove closer from list
        tmp_delim = (*closer).next;
        remove_delimiter(subj, closer);
        closer = tmp_delim;
    }

    closer
}

// Parse backslash-escape or just a backslash, returning an inline.
unsafe fn handle_backslash(subj: *mut subject) -> *mut cmark_node {
    advance(subj);
    let nextchar: u8 = peek_char(subj);
    if cmark_ispunct(nextchar as c_char) != 0 {
        // only ascii symbols and newline can be escaped
        advance(subj);
        make_str(
            subj,
            (*subj).pos - 2,
            (*subj).pos - 1,
            cmark_chunk_dup(&(*subj).input, (*subj).pos - 1, 1),
        )
    } else if is_eof(subj) == 0 && skip_line_end(subj) {
        make_linebreak((*subj).mem)
    } else {
        make_str(
            subj,
            (*subj).pos - 1,
            (*subj).pos - 1,
            cmark_chunk_literal(cs(b"\\\0")),
        )
    }
}

// Parse an entity or a regular "&" string.
// Assumes the subject has an '&' character at the current position.
unsafe fn handle_entity(subj: *mut subject) -> *mut cmark_node {
    let mut ent: cmark_strbuf = CMARK_BUF_INIT((*subj).mem);
    let len: bufsize_t;

    advance(subj);

    len = houdini_unescape_ent(
        &mut ent,
        (*subj).input.data.offset((*subj).pos as isize),
        (*subj).input.len - (*subj).pos,
    );

    if len <= 0 {
        return make_str(
            subj,
            (*subj).pos - 1,
            (*subj).pos - 1,
            cmark_chunk_literal(cs(b"&\0")),
        );
    }

    (*subj).pos += len;
    make_str_from_buf(subj, (*subj).pos - 1 - len, (*subj).pos - 1, &mut ent)
}

// Clean a URL: remove surrounding whitespace, and remove \ that escape
// punctuation.
pub unsafe fn cmark_clean_url(mem: *mut cmark_mem, url: *mut cmark_chunk) -> *mut u8 {
    let mut buf: cmark_strbuf = CMARK_BUF_INIT(mem);

    cmark_chunk_trim(url);

    houdini_unescape_html_f(&mut buf, (*url).data, (*url).len);

    cmark_strbuf_unescape(&mut buf);
    cmark_strbuf_detach(&mut buf)
}

pub unsafe fn cmark_clean_title(mem: *mut cmark_mem, title: *mut cmark_chunk) -> *mut u8 {
    let mut buf: cmark_strbuf = CMARK_BUF_INIT(mem);
    let first: u8;
    let last: u8;

    if (*title).len == 0 {
        return null_mut();
    }

    first = *(*title).data.offset(0);
    last = *(*title).data.offset(((*title).len - 1) as isize);

    // remove surrounding quotes if any:
    if (first == b'\'' && last == b'\'')
        || (first == b'(' && last == b')')
        || (first == b'"' && last == b'"')
    {
        houdini_unescape_html_f(&mut buf, (*title).data.offset(1), (*title).len - 2);
    } else {
        houdini_unescape_html_f(&mut buf, (*title).data, (*title).len);
    }

    cmark_strbuf_unescape(&mut buf);
    cmark_strbuf_detach(&mut buf)
}

// Parse an autolink or HTML tag.
// Assumes the subject has a '<' character at the current position.
unsafe fn handle_pointy_brace(subj: *mut subject, options: i32) -> *mut cmark_node {
    let mut matchlen: bufsize_t;
    let contents: cmark_chunk;

    advance(subj); // advance past first <

    // first try to match a URL autolink
    matchlen = scan_autolink_uri(&mut (*subj).input, (*subj).pos);
    if matchlen > 0 {
        contents = cmark_chunk_dup(&(*subj).input, (*subj).pos, matchlen - 1);
        (*subj).pos += matchlen;

        return make_autolink(
            subj,
            (*subj).pos - 1 - matchlen,
            (*subj).pos - 1,
            contents,
            0,
        );
    }

    // next try to match an email autolink
    matchlen = scan_autolink_email(&mut (*subj).input, (*subj).pos);
    if matchlen > 0 {
        contents = cmark_chunk_dup(&(*subj).input, (*subj).pos, matchlen - 1);
        (*subj).pos += matchlen;

        return make_autolink(
            subj,
            (*subj).pos - 1 - matchlen,
            (*subj).pos - 1,
            contents,
            1,
        );
    }

    // finally, try to match an html tag
    if (*subj).pos + 2 <= (*subj).input.len {
        let mut c: i32 = *(*subj).input.data.offset((*subj).pos as isize) as i32;
        if c == b'!' as i32 {
            c = *(*subj).input.data.offset(((*subj).pos + 1) as isize) as i32;
            if c == b'-' as i32 {
                matchlen = scan_html_comment(&mut (*subj).input, (*subj).pos + 2);
                if matchlen > 0 {
                    matchlen += 2; // prefix "<-"
                }
            } else if c == b'[' as i32 {
                if ((*subj).flags & FLAG_SKIP_HTML_CDATA) == 0 {
                    matchlen = scan_html_cdata(&mut (*subj).input, (*subj).pos + 2);
                    if matchlen > 0 {
                        // The regex doesn't require the final "]]>". But if we're not at
                        // the end of input, it must come after the match. Otherwise,
                        // disable subsequent scans to avoid quadratic behavior.
                        matchlen += 5; // prefix "![", suffix "]]>"
                        if (*subj).pos + matchlen > (*subj).input.len {
                            (*subj).flags |= FLAG_SKIP_HTML_CDATA;
                            matchlen = 0;
                        }
                    }
                }
            } else if ((*subj).flags & FLAG_SKIP_HTML_DECLARATION) == 0 {
                matchlen = scan_html_declaration(&mut (*subj).input, (*subj).pos + 1);
                if matchlen > 0 {
                    matchlen += 2; // prefix "!", suffix ">"
                    if (*subj).pos + matchlen > (*subj).input.len {
                        (*subj).flags |= FLAG_SKIP_HTML_DECLARATION;
                        matchlen = 0;
                    }
                }
            }
        } else if c == b'?' as i32 {
            if ((*subj).flags & FLAG_SKIP_HTML_PI) == 0 {
                // Note that we allow an empty match.
                matchlen = scan_html_pi(&mut (*subj).input, (*subj).pos + 1);
                matchlen += 3; // prefix "?", suffix "?>"
                if (*subj).pos + matchlen > (*subj).input.len {
                    (*subj).flags |= FLAG_SKIP_HTML_PI;
                    matchlen = 0;
                }
            }
        } else {
            matchlen = scan_html_tag(&mut (*subj).input, (*subj).pos);
        }
    }
    if matchlen > 0 {
        let src: *const u8 = (*subj).input.data.offset(((*subj).pos - 1) as isize);
        let len: bufsize_t = matchlen + 1;
        (*subj).pos += matchlen;
        let node = make_literal(
            subj,
            CMARK_NODE_HTML_INLINE,
            (*subj).pos - matchlen - 1,
            (*subj).pos - 1,
        );
        (*node).data = ((*(*subj).mem).realloc)(null_mut(), (len + 1) as usize) as *mut u8;
        std::ptr::copy_nonoverlapping(src, (*node).data, len as usize);
        *(*node).data.offset(len as isize) = 0;
        (*node).len = len;
        adjust_subj_node_newlines(subj, node, matchlen, 1, options);
        return node;
    }

    // if nothing matches, just return the opening <:
    make_str(
        subj,
        (*subj).pos - 1,
        (*subj).pos - 1,
        cmark_chunk_literal(cs(b"<\0")),
    )
}

// Parse a link label.  Returns 1 if successful.
// Note:  unescaped brackets are not allowed in labels.
// The label begins with `[` and ends with the first `]` character
// encountered.  Backticks in labels do not start code spans.
unsafe fn link_label(subj: *mut subject, raw_label: *mut cmark_chunk) -> i32 {
    let startpos: bufsize_t = (*subj).pos;
    let mut length: i32 = 0;
    let mut c: u8;

    // advance past [
    if peek_char(subj) == b'[' {
        advance(subj);
    } else {
        return 0;
    }

    'noMatch: loop {
        loop {
            c = peek_char(subj);
            if !(c != 0 && c != b'[' && c != b']') {
                break;
            }
            if c == b'\\' {
                advance(subj);
                length += 1;
                if cmark_ispunct(peek_char(subj) as c_char) != 0 {
                    advance(subj);
                    length += 1;
                }
            } else {
                advance(subj);
                length += 1;
            }
            if length > MAX_LINK_LABEL_LENGTH as i32 {
                break 'noMatch;
            }
        }

        if c == b']' {
            // match found
            *raw_label = cmark_chunk_dup(
                &(*subj).input,
                startpos + 1,
                (*subj).pos - (startpos + 1),
            );
            cmark_chunk_trim(raw_label);
            advance(subj); // advance past ]
            return 1;
        }
        break 'noMatch;
    }

    // noMatch:
    (*subj).pos = startpos; // rewind
    0
}

unsafe fn manual_scan_link_url_2(
    input: *mut cmark_chunk,
    offset: bufsize_t,
    output: *mut cmark_chunk,
) -> bufsize_t {
    let mut i: bufsize_t = offset;
    let mut nb_p: usize = 0;
    let data = (*input).data;

    while i < (*input).len {
        if *data.offset(i as isize) == b'\\'
            && i + 1 < (*input).len
            && cmark_ispunct(*data.offset((i + 1) as isize) as c_char) != 0
        {
            i += 2;
        } else if *data.offset(i as isize) == b'(' {
            nb_p += 1;
            i += 1;
            if nb_p > 32 {
                return -1;
            }
        } else if *data.offset(i as isize) == b')' {
            if nb_p == 0 {
                break;
            }
            nb_p -= 1;
            i += 1;
        } else if cmark_isspace(*data.offset(i as isize) as c_char) != 0 {
            if i == offset {
                return -1;
            }
            break;
        } else {
            i += 1;
        }
    }

    if i >= (*input).len || nb_p != 0 {
        return -1;
    }

    {
        let result = cmark_chunk {
            data: data.offset(offset as isize),
            len: i - offset,
        };
        *output = result;
    }
    i - offset
}

unsafe fn manual_scan_link_url(
    input: *mut cmark_chunk,
    offset: bufsize_t,
    output: *mut cmark_chunk,
) -> bufsize_t {
    let mut i: bufsize_t = offset;
    let data = (*input).data;

    if i < (*input).len && *data.offset(i as isize) == b'<' {
        i += 1;
        while i < (*input).len {
            if *data.offset(i as isize) == b'>' {
                i += 1;
                break;
            } else if *data.offset(i as isize) == b'\\' {
                i += 2;
            } else if *data.offset(i as isize) == b'\n' || *data.offset(i as isize) == b'<' {
                return -1;
            } else {
                i += 1;
            }
        }
    } else {
        return manual_scan_link_url_2(input, offset, output);
    }

    if i >= (*input).len {
        return -1;
    }

    {
        let result = cmark_chunk {
            data: data.offset((offset + 1) as isize),
            len: i - 2 - offset,
        };
        *output = result;
    }
    i - offset
}

// Return a link, an image, or a literal close bracket.
unsafe fn handle_close_bracket(subj: *mut subject) -> *mut cmark_node {
    let initial_pos: bufsize_t;
    let after_link_text_pos: bufsize_t;
    let mut sps: bufsize_t = 0;
    let mut n: bufsize_t = 0;
    let mut ref_: *mut cmark_reference = null_mut();
    let mut url_chunk: cmark_chunk = cmark_chunk {
        data: std::ptr::null(),
        len: 0,
    };
    let mut title_chunk: cmark_chunk;
    let url: *mut u8;
    let title: *mut u8;
    let mut opener: *mut bracket;
    let inl: *mut cmark_node;
    let mut raw_label: cmark_chunk;
    let mut found_label: i32;
    let mut tmp: *mut cmark_node;
    let mut tmpnext: *mut cmark_node;
    let is_image: bool;

    advance(subj); // advance past ]
    initial_pos = (*subj).pos;

    // get last [ or ![
    opener = (*subj).last_bracket;

    if opener.is_null() {
        return make_str(
            subj,
            (*subj).pos - 1,
            (*subj).pos - 1,
            cmark_chunk_literal(cs(b"]\0")),
        );
    }

    if !(*opener).active {
        // take delimiter off stack
        pop_bracket(subj);
        return make_str(
            subj,
            (*subj).pos - 1,
            (*subj).pos - 1,
            cmark_chunk_literal(cs(b"]\0")),
        );
    }

    // If we got here, we matched a potential link/image text.
    // Now we check to see if it's a link/image.
    is_image = (*opener).image;

    after_link_text_pos = (*subj).pos;

    // 'match: the link/image destination found (url, title set); break with
    // Some((url, title)), or fall through to noMatch with None.
    let matched: Option<(*mut u8, *mut u8)> = 'found: loop {
        // First, look for an inline link.
        if peek_char(subj) == b'(' && {
            sps = scan_spacechars(&mut (*subj).input, (*subj).pos + 1);
            sps > -1
        } && {
            n = manual_scan_link_url(
                &mut (*subj).input,
                (*subj).pos + 1 + sps,
                &mut url_chunk,
            );
            n > -1
        } {
            // try to parse an explicit link:
            let endurl: bufsize_t = (*subj).pos + 1 + sps + n;
            let starttitle: bufsize_t = endurl + scan_spacechars(&mut (*subj).input, endurl);

            // ensure there are spaces btw url and title
            let endtitle: bufsize_t = if starttitle == endurl {
                starttitle
            } else {
                starttitle + scan_link_title(&mut (*subj).input, starttitle)
            };

            let endall: bufsize_t = endtitle + scan_spacechars(&mut (*subj).input, endtitle);

            if peek_at(subj, endall) == b')' {
                (*subj).pos = endall + 1;

                title_chunk =
                    cmark_chunk_dup(&(*subj).input, starttitle, endtitle - starttitle);
                let url = cmark_clean_url((*subj).mem, &mut url_chunk);
                let title = cmark_clean_title((*subj).mem, &mut title_chunk);
                cmark_chunk_free(&mut url_chunk);
                cmark_chunk_free(&mut title_chunk);
                break 'found Some((url, title));
            } else {
                // it could still be a shortcut reference link
                (*subj).pos = after_link_text_pos;
            }
        }

        // Next, look for a following [link label] that matches in refmap.
        // skip spaces
        raw_label = cmark_chunk_literal(cs(b"\0"));
        found_label = link_label(subj, &mut raw_label);
        if found_label == 0 {
            // If we have a shortcut reference link, back up
            // to before the spacse we skipped.
            (*subj).pos = initial_pos;
        }

        if (found_label == 0 || raw_label.len == 0) && !(*opener).bracket_after {
            cmark_chunk_free(&mut raw_label);
            raw_label = cmark_chunk_dup(
                &(*subj).input,
                (*opener).position,
                initial_pos - (*opener).position - 1,
            );
            found_label = 1;
        }

        if found_label != 0 {
            ref_ = cmark_reference_lookup((*subj).refmap, &mut raw_label);
            cmark_chunk_free(&mut raw_label);
        }

        if !ref_.is_null() {
            // found
            let url = cmark_strdup((*subj).mem, (*ref_).url);
            let title = cmark_strdup((*subj).mem, (*ref_).title);
            break 'found Some((url, title));
        } else {
            break 'found None;
        }
    };

    match matched {
        None => {
            // noMatch:
            // If we fall through to here, it means we didn't match a link:
            pop_bracket(subj); // remove this opener from delimiter list
            (*subj).pos = initial_pos;
            return make_str(
                subj,
                (*subj).pos - 1,
                (*subj).pos - 1,
                cmark_chunk_literal(cs(b"]\0")),
            );
        }
        Some((u, t)) => {
            url = u;
            title = t;
        }
    }

    // match:
    inl = make_simple(
        (*subj).mem,
        if is_image {
            CMARK_NODE_IMAGE
        } else {
            CMARK_NODE_LINK
        },
    );
    (*inl).as_.link.url = url;
    (*inl).as_.link.title = title;
    (*inl).end_line = (*subj).line;
    (*inl).start_line = (*inl).end_line;
    (*inl).start_column = (*(*opener).inl_text).start_column;
    (*inl).end_column = (*subj).pos + (*subj).column_offset + (*subj).block_offset;
    cmark_node_insert_before((*opener).inl_text, inl);
    // Add link text:
    tmp = (*(*opener).inl_text).next;
    while !tmp.is_null() {
        tmpnext = (*tmp).next;
        cmark_node_unlink(tmp);
        append_child(inl, tmp);
        tmp = tmpnext;
    }

    // Free the bracket [:
    cmark_node_free((*opener).inl_text);

    process_emphasis(subj, (*opener).position);
    pop_bracket(subj);

    // Now, if we have a link, we also want to deactivate earlier link
    // delimiters. (This code can be removed if we decide to allow links
    // inside links.)
    if !is_image {
        opener = (*subj).last_bracket;
        while !opener.is_null() {
            if !(*opener).image {
                if !(*opener).active {
                    break;
                } else {
                    (*opener).active = false;
                }
            }
            opener = (*opener).previous;
        }
    }

    null_mut()
}

// Parse a hard or soft linebreak, returning an inline.
// Assumes the subject has a cr or newline at the current position.
unsafe fn handle_newline(subj: *mut subject) -> *mut cmark_node {
    let nlpos: bufsize_t = (*subj).pos;
    // skip over cr, crlf, or lf:
    if peek_at(subj, (*subj).pos) == b'\r' {
        advance(subj);
    }
    if peek_at(subj, (*subj).pos) == b'\n' {
        advance(subj);
    }
    (*subj).line += 1;
    (*subj).column_offset = -(*subj).pos;
    // skip spaces at beginning of line
    skip_spaces(subj);
    if nlpos > 1 && peek_at(subj, nlpos - 1) == b' ' && peek_at(subj, nlpos - 2) == b' ' {
        make_linebreak((*subj).mem)
    } else {
        make_softbreak((*subj).mem)
    }
}

// "\r\n\\`&_*[]<!"
static SPECIAL_CHARS: [i8; 256] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1, //
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

// " ' . -
static SMART_PUNCT_CHARS: [c_char; 256] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

unsafe fn subject_find_special_char(subj: *mut subject, options: i32) -> bufsize_t {
    let mut n: bufsize_t = (*subj).pos + 1;

    while n < (*subj).input.len {
        let ch = *(*subj).input.data.offset(n as isize) as usize;
        if SPECIAL_CHARS[ch] != 0 {
            return n;
        }
        if (options & CMARK_OPT_SMART as i32) != 0 && SMART_PUNCT_CHARS[ch] != 0 {
            return n;
        }
        n += 1;
    }

    (*subj).input.len
}

// Parse an inline, advancing subject, and add it as a child of parent.
// Return 0 if no inline can be parsed, 1 otherwise.
unsafe fn parse_inline(subj: *mut subject, parent: *mut cmark_node, options: i32) -> i32 {
    let mut new_inl: *mut cmark_node = null_mut();
    let mut contents: cmark_chunk;
    let c: u8;
    let startpos: bufsize_t;
    let endpos: bufsize_t;
    c = peek_char(subj);
    if c == 0 {
        return 0;
    }
    match c {
        b'\r' | b'\n' => {
            new_inl = handle_newline(subj);
        }
        b'`' => {
            new_inl = handle_backticks(subj, options);
        }
        b'\\' => {
            new_inl = handle_backslash(subj);
        }
        b'&' => {
            new_inl = handle_entity(subj);
        }
        b'<' => {
            new_inl = handle_pointy_brace(subj, options);
        }
        b'*' | b'_' | b'\'' | b'"' => {
            new_inl = handle_delim(subj, c, (options & CMARK_OPT_SMART as i32) != 0);
        }
        b'-' => {
            new_inl = handle_hyphen(subj, (options & CMARK_OPT_SMART as i32) != 0);
        }
        b'.' => {
            new_inl = handle_period(subj, (options & CMARK_OPT_SMART as i32) != 0);
        }
        b'[' => {
            advance(subj);
            new_inl = make_str(
                subj,
                (*subj).pos - 1,
                (*subj).pos - 1,
                cmark_chunk_literal(cs(b"[\0")),
            );
            push_bracket(subj, false, new_inl);
        }
        b']' => {
            new_inl = handle_close_bracket(subj);
        }
        b'!' => {
            advance(subj);
            if peek_char(subj) == b'[' {
                advance(subj);
                new_inl = make_str(
                    subj,
                    (*subj).pos - 2,
                    (*subj).pos - 1,
                    cmark_chunk_literal(cs(b"![\0")),
                );
                push_bracket(subj, true, new_inl);
            } else {
                new_inl = make_str(
                    subj,
                    (*subj).pos - 1,
                    (*subj).pos - 1,
                    cmark_chunk_literal(cs(b"!\0")),
                );
            }
        }
        _ => {
            endpos = subject_find_special_char(subj, options);
            contents = cmark_chunk_dup(&(*subj).input, (*subj).pos, endpos - (*subj).pos);
            startpos = (*subj).pos;
            (*subj).pos = endpos;

            // if we're at a newline, strip trailing spaces.
            if S_is_line_end_char(peek_char(subj)) {
                cmark_chunk_rtrim(&mut contents);
            }

            new_inl = make_str(subj, startpos, endpos - 1, contents);
        }
    }
    if !new_inl.is_null() {
        append_child(parent, new_inl);
    }

    1
}

// Parse inlines from parent's string_content, adding as children of parent.
pub unsafe fn cmark_parse_inlines(
    mem: *mut cmark_mem,
    parent: *mut cmark_node,
    refmap: *mut cmark_reference_map,
    options: i32,
) {
    let mut subj: subject = std::mem::zeroed();
    let subj_p: *mut subject = &mut subj;
    let mut content = cmark_chunk {
        data: (*parent).data,
        len: (*parent).len,
    };
    subject_from_buf(
        mem,
        (*parent).start_line,
        (*parent).start_column - 1 + (*parent).internal_offset,
        subj_p,
        &mut content,
        refmap,
    );
    cmark_chunk_rtrim(&mut (*subj_p).input);

    while is_eof(subj_p) == 0 && parse_inline(subj_p, parent, options) != 0 {}

    process_emphasis(subj_p, 0);
    // free bracket and delim stack
    while !(*subj_p).last_delim.is_null() {
        remove_delimiter(subj_p, (*subj_p).last_delim);
    }
    while !(*subj_p).last_bracket.is_null() {
        pop_bracket(subj_p);
    }
}

// Parse zero or more space characters, including at most one newline.
unsafe fn spnl(subj: *mut subject) {
    skip_spaces(subj);
    if skip_line_end(subj) {
        skip_spaces(subj);
    }
}

// Parse reference.  Assumes string begins with '[' character.
// Modify refmap if a reference is encountered.
// Return 0 if no reference found, otherwise position of subject
// after reference is parsed.
pub unsafe fn cmark_parse_reference_inline(
    mem: *mut cmark_mem,
    input: *mut cmark_chunk,
    refmap: *mut cmark_reference_map,
) -> bufsize_t {
    let mut subj: subject = std::mem::zeroed();
    let subj_p: *mut subject = &mut subj;

    let mut lab: cmark_chunk = cmark_chunk {
        data: std::ptr::null(),
        len: 0,
    };
    let mut url: cmark_chunk = cmark_chunk {
        data: std::ptr::null(),
        len: 0,
    };
    let mut title: cmark_chunk;

    let mut matchlen: bufsize_t;
    let beforetitle: bufsize_t;

    subject_from_buf(mem, -1, 0, subj_p, input, null_mut());

    // parse label:
    if link_label(subj_p, &mut lab) == 0 || lab.len == 0 {
        return 0;
    }

    // colon:
    if peek_char(subj_p) == b':' {
        advance(subj_p);
    } else {
        return 0;
    }

    // parse link url:
    spnl(subj_p);
    matchlen = manual_scan_link_url(&mut (*subj_p).input, (*subj_p).pos, &mut url);
    if matchlen > -1 {
        (*subj_p).pos += matchlen;
    } else {
        return 0;
    }

    // parse optional link_title
    beforetitle = (*subj_p).pos;
    spnl(subj_p);
    matchlen = if (*subj_p).pos == beforetitle {
        0
    } else {
        scan_link_title(&mut (*subj_p).input, (*subj_p).pos)
    };
    if matchlen != 0 {
        title = cmark_chunk_dup(&(*subj_p).input, (*subj_p).pos, matchlen);
        (*subj_p).pos += matchlen;
    } else {
        (*subj_p).pos = beforetitle;
        title = cmark_chunk_literal(cs(b"\0"));
    }

    // parse final spaces and newline:
    skip_spaces(subj_p);
    if !skip_line_end(subj_p) {
        if matchlen != 0 {
            // try rewinding before title
            (*subj_p).pos = beforetitle;
            skip_spaces(subj_p);
            if !skip_line_end(subj_p) {
                return 0;
            }
        } else {
            return 0;
        }
    }
    // insert reference into refmap
    cmark_reference_create(refmap, &mut lab, &mut url, &mut title);
    (*subj_p).pos
}
