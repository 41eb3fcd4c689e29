//! blocks.c: the block parser.
//!
//! For a high-level overview of the block parsing process,
//! see http://spec.commonmark.org/0.24/#phase-1-block-structure
use crate::*;
use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;

extern "C" {
    fn fread(ptr: *mut c_void, size: usize, nmemb: usize, stream: *mut c_void) -> usize;
}

const CODE_INDENT: i32 = 4;
const TAB_STOP: i32 = 4;

#[inline]
fn MIN(x: i32, y: i32) -> i32 {
    if x < y {
        x
    } else {
        y
    }
}

#[inline]
unsafe fn peek_at(i: *mut cmark_chunk, n: bufsize_t) -> u8 {
    *(*i).data.offset(n as isize)
}

unsafe fn S_last_line_blank(node: *const cmark_node) -> bool {
    ((*node).flags & (CMARK_NODE__LAST_LINE_BLANK as u16)) != 0
}

unsafe fn S_last_line_checked(node: *const cmark_node) -> bool {
    ((*node).flags & (CMARK_NODE__LAST_LINE_CHECKED as u16)) != 0
}

#[inline]
unsafe fn S_type(node: *const cmark_node) -> cmark_node_type {
    (*node).type_ as cmark_node_type
}

unsafe fn S_set_last_line_blank(node: *mut cmark_node, is_blank: bool) {
    if is_blank {
        (*node).flags |= CMARK_NODE__LAST_LINE_BLANK as u16;
    } else {
        (*node).flags &= !(CMARK_NODE__LAST_LINE_BLANK as u16);
    }
}

unsafe fn S_set_last_line_checked(node: *mut cmark_node) {
    (*node).flags |= CMARK_NODE__LAST_LINE_CHECKED as u16;
}

#[inline]
fn S_is_line_end_char(c: u8) -> bool {
    c == b'\n' || c == b'\r'
}

#[inline]
fn S_is_space_or_tab(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

unsafe fn make_block(
    mem: *mut cmark_mem,
    tag: cmark_node_type,
    start_line: i32,
    start_column: i32,
) -> *mut cmark_node {
    let e: *mut cmark_node;

    e = ((*mem).calloc)(1, std::mem::size_of::<cmark_node>()) as *mut cmark_node;
    (*e).mem = mem;
    (*e).type_ = tag as u16;
    (*e).flags = CMARK_NODE__OPEN as u16;
    (*e).start_line = start_line;
    (*e).start_column = start_column;
    (*e).end_line = start_line;

    e
}

// Create a root document node.
unsafe fn make_document(mem: *mut cmark_mem) -> *mut cmark_node {
    let e = make_block(mem, CMARK_NODE_DOCUMENT, 1, 1);
    e
}

#[no_mangle]
pub unsafe extern "C" fn cmark_parser_new_with_mem(
    options: i32,
    mem: *mut cmark_mem,
) -> *mut cmark_parser {
    let parser =
        ((*mem).calloc)(1, std::mem::size_of::<cmark_parser>()) as *mut cmark_parser;
    (*parser).mem = mem;

    let document = make_document(mem);

    cmark_strbuf_init(mem, &mut (*parser).curline, 256);
    cmark_strbuf_init(mem, &mut (*parser).linebuf, 0);
    cmark_strbuf_init(mem, &mut (*parser).content, 0);

    (*parser).refmap = cmark_reference_map_new(mem);
    (*parser).root = document;
    (*parser).current = document;
    (*parser).line_number = 0;
    (*parser).offset = 0;
    (*parser).column = 0;
    (*parser).first_nonspace = 0;
    (*parser).first_nonspace_column = 0;
    (*parser).thematic_break_kill_pos = 0;
    (*parser).indent = 0;
    (*parser).blank = false;
    (*parser).partially_consumed_tab = false;
    (*parser).last_line_length = 0;
    (*parser).options = options;
    (*parser).last_buffer_ended_with_cr = false;

    parser
}

#[no_mangle]
pub unsafe extern "C" fn cmark_parser_new(options: i32) -> *mut cmark_parser {
    cmark_parser_new_with_mem(options, std::ptr::addr_of_mut!(DEFAULT_MEM_ALLOCATOR))
}

#[no_mangle]
pub unsafe extern "C" fn cmark_parser_free(parser: *mut cmark_parser) {
    let mem = (*parser).mem;
    cmark_strbuf_free(&mut (*parser).curline);
    cmark_strbuf_free(&mut (*parser).linebuf);
    cmark_reference_map_free((*parser).refmap);
    ((*mem).free)(parser as *mut c_void);
}

// Returns true if line has only space characters, else false.
unsafe fn is_blank(s: *mut cmark_strbuf, mut offset: bufsize_t) -> bool {
    while offset < (*s).size {
        match *(*s).ptr.offset(offset as isize) {
            b'\r' | b'\n' => return true,
            b' ' => offset += 1,
            b'\t' => offset += 1,
            _ => return false,
        }
    }

    true
}

#[inline]
fn can_contain(parent_type: cmark_node_type, child_type: cmark_node_type) -> bool {
    parent_type == CMARK_NODE_DOCUMENT
        || parent_type == CMARK_NODE_BLOCK_QUOTE
        || parent_type == CMARK_NODE_ITEM
        || (parent_type == CMARK_NODE_LIST && child_type == CMARK_NODE_ITEM)
}

#[inline]
fn accepts_lines(block_type: cmark_node_type) -> bool {
    block_type == CMARK_NODE_PARAGRAPH
        || block_type == CMARK_NODE_HEADING
        || block_type == CMARK_NODE_CODE_BLOCK
}

#[inline]
fn contains_inlines(block_type: cmark_node_type) -> bool {
    block_type == CMARK_NODE_PARAGRAPH || block_type == CMARK_NODE_HEADING
}

unsafe fn add_line(ch: *mut cmark_chunk, parser: *mut cmark_parser) {
    let chars_to_tab: i32;
    let mut i: i32;
    if (*parser).partially_consumed_tab {
        (*parser).offset += 1; // skip over tab
        // add space characters:
        chars_to_tab = TAB_STOP - ((*parser).column % TAB_STOP);
        i = 0;
        while i < chars_to_tab {
            cmark_strbuf_putc(&mut (*parser).content, b' ' as i32);
            i += 1;
        }
    }
    cmark_strbuf_put(
        &mut (*parser).content,
        (*ch).data.offset((*parser).offset as isize),
        (*ch).len - (*parser).offset,
    );
}

unsafe fn remove_trailing_blank_lines(ln: *mut cmark_strbuf) {
    let mut i: bufsize_t;
    let mut c: u8;

    i = (*ln).size - 1;
    while i >= 0 {
        c = *(*ln).ptr.offset(i as isize);

        if c != b' ' && c != b'\t' && !S_is_line_end_char(c) {
            break;
        }
        i -= 1;
    }

    if i < 0 {
        cmark_strbuf_clear(ln);
        return;
    }

    while i < (*ln).size {
        c = *(*ln).ptr.offset(i as isize);

        if !S_is_line_end_char(c) {
            i += 1;
            continue;
        }

        cmark_strbuf_truncate(ln, i);
        break;
    }
}

// Check to see if a node ends with a blank line, descending
// if needed into lists and sublists.
unsafe fn S_ends_with_blank_line(node: *mut cmark_node) -> bool {
    if S_last_line_checked(node) {
        S_last_line_blank(node)
    } else if (S_type(node) == CMARK_NODE_LIST || S_type(node) == CMARK_NODE_ITEM)
        && !(*node).last_child.is_null()
    {
        S_set_last_line_checked(node);
        S_ends_with_blank_line((*node).last_child)
    } else {
        S_set_last_line_checked(node);
        S_last_line_blank(node)
    }
}

// returns true if content remains after link defs are resolved.
unsafe fn resolve_reference_link_definitions(parser: *mut cmark_parser) -> bool {
    let mut pos: bufsize_t = 0;
    let node_content: *mut cmark_strbuf = &mut (*parser).content;
    let mut chunk = cmark_chunk {
        data: (*node_content).ptr as *const u8,
        len: (*node_content).size,
    };
    while chunk.len != 0 && *chunk.data == b'[' && {
        pos = cmark_parse_reference_inline((*parser).mem, &mut chunk, (*parser).refmap);
        pos != 0
    } {
        chunk.data = chunk.data.offset(pos as isize);
        chunk.len -= pos;
    }
    cmark_strbuf_drop(node_content, (*node_content).size - chunk.len);
    !is_blank(node_content, 0)
}

unsafe fn finalize(parser: *mut cmark_parser, b: *mut cmark_node) -> *mut cmark_node {
    let mut pos: bufsize_t;
    let mut item: *mut cmark_node;
    let mut subitem: *mut cmark_node;
    let parent: *mut cmark_node;
    let has_content: bool;

    parent = (*b).parent;
    debug_assert!(((*b).flags & (CMARK_NODE__OPEN as u16)) != 0); // shouldn't call finalize on closed blocks
    (*b).flags &= !(CMARK_NODE__OPEN as u16);

    if (*parser).curline.size == 0 {
        // end of input - line number has not been incremented
        (*b).end_line = (*parser).line_number;
        (*b).end_column = (*parser).last_line_length;
    } else if S_type(b) == CMARK_NODE_DOCUMENT
        || (S_type(b) == CMARK_NODE_CODE_BLOCK && (*b).as_.code.fenced != 0)
        || (S_type(b) == CMARK_NODE_HEADING && (*b).as_.heading.setext)
    {
        (*b).end_line = (*parser).line_number;
        (*b).end_column = (*parser).curline.size;
        if (*b).end_column != 0
            && *(*parser).curline.ptr.offset(((*b).end_column - 1) as isize) == b'\n'
        {
            (*b).end_column -= 1;
        }
        if (*b).end_column != 0
            && *(*parser).curline.ptr.offset(((*b).end_column - 1) as isize) == b'\r'
        {
            (*b).end_column -= 1;
        }
    } else {
        (*b).end_line = (*parser).line_number - 1;
        (*b).end_column = (*parser).last_line_length;
    }

    let node_content: *mut cmark_strbuf = &mut (*parser).content;

    match S_type(b) {
        CMARK_NODE_PARAGRAPH => {
            has_content = resolve_reference_link_definitions(parser);
            if !has_content {
                // remove blank node (former reference def)
                cmark_node_free(b);
            } else {
                (*b).len = (*node_content).size;
                (*b).data = cmark_strbuf_detach(node_content);
            }
        }

        CMARK_NODE_CODE_BLOCK => {
            if (*b).as_.code.fenced == 0 {
                // indented code
                remove_trailing_blank_lines(node_content);
                cmark_strbuf_putc(node_content, b'\n' as i32);
            } else {
                // first line of contents becomes info
                pos = 0;
                while pos < (*node_content).size {
                    if S_is_line_end_char(*(*node_content).ptr.offset(pos as isize)) {
                        break;
                    }
                    pos += 1;
                }
                debug_assert!(pos < (*node_content).size);

                if pos == 0 {
                    (*b).as_.code.info = null_mut();
                } else {
                    let mut tmp: cmark_strbuf = CMARK_BUF_INIT((*parser).mem);
                    houdini_unescape_html_f(&mut tmp, (*node_content).ptr, pos);
                    cmark_strbuf_trim(&mut tmp);
                    cmark_strbuf_unescape(&mut tmp);
                    (*b).as_.code.info = cmark_strbuf_detach(&mut tmp);
                }

                if *(*node_content).ptr.offset(pos as isize) == b'\r' {
                    pos += 1;
                }
                if *(*node_content).ptr.offset(pos as isize) == b'\n' {
                    pos += 1;
                }
                cmark_strbuf_drop(node_content, pos);
            }
            (*b).len = (*node_content).size;
            (*b).data = cmark_strbuf_detach(node_content);
        }

        CMARK_NODE_HEADING | CMARK_NODE_HTML_BLOCK => {
            (*b).len = (*node_content).size;
            (*b).data = cmark_strbuf_detach(node_content);
        }

        CMARK_NODE_LIST => {
            // determine tight/loose status
            (*b).as_.list.tight = true; // tight by default
            item = (*b).first_child;

            while !item.is_null() {
                // check for non-final non-empty list item ending with blank line:
                if S_last_line_blank(item) && !(*item).next.is_null() {
                    (*b).as_.list.tight = false;
                    break;
                }
                // recurse into children of list item, to see if there are
                // spaces between them:
                subitem = (*item).first_child;
                while !subitem.is_null() {
                    if (!(*item).next.is_null() || !(*subitem).next.is_null())
                        && S_ends_with_blank_line(subitem)
                    {
                        (*b).as_.list.tight = false;
                        break;
                    }
                    subitem = (*subitem).next;
                }
                if !((*b).as_.list.tight) {
                    break;
                }
                item = (*item).next;
            }
        }

        _ => {}
    }

    parent
}

// Add a node as child of another.  Return pointer to child.
unsafe fn add_child(
    parser: *mut cmark_parser,
    mut parent: *mut cmark_node,
    block_type: cmark_node_type,
    start_column: i32,
) -> *mut cmark_node {
    debug_assert!(!parent.is_null());

    // if 'parent' isn't the kind of node that can accept this child,
    // then back up til we hit a node that can.
    while !can_contain(S_type(parent), block_type) {
        parent = finalize(parser, parent);
    }

    let child = make_block((*parser).mem, block_type, (*parser).line_number, start_column);
    (*child).parent = parent;

    if !(*parent).last_child.is_null() {
        (*(*parent).last_child).next = child;
        (*child).prev = (*parent).last_child;
    } else {
        (*parent).first_child = child;
        (*child).prev = null_mut();
    }
    (*parent).last_child = child;
    child
}

// Walk through node and all children, recursively, parsing
// string content into inline content where appropriate.
unsafe fn process_inlines(
    mem: *mut cmark_mem,
    root: *mut cmark_node,
    refmap: *mut cmark_reference_map,
    options: i32,
) {
    let iter = cmark_iter_new(root);
    let mut cur: *mut cmark_node;
    let mut ev_type: cmark_event_type;

    loop {
        ev_type = cmark_iter_next(iter);
        if ev_type == CMARK_EVENT_DONE {
            break;
        }
        cur = cmark_iter_get_node(iter);
        if ev_type == CMARK_EVENT_ENTER {
            if contains_inlines(S_type(cur)) {
                cmark_parse_inlines(mem, cur, refmap, options);
                ((*mem).free)((*cur).data as *mut c_void);
                (*cur).data = null_mut();
                (*cur).len = 0;
            }
        }
    }

    cmark_iter_free(iter);
}

// Attempts to parse a list item marker (bullet or enumerated).
// On success, returns length of the marker, and populates
// data with the details.  On failure, returns 0.
unsafe fn parse_list_marker(
    mem: *mut cmark_mem,
    input: *mut cmark_chunk,
    mut pos: bufsize_t,
    interrupts_paragraph: bool,
    dataptr: *mut *mut cmark_list,
) -> bufsize_t {
    let mut c: u8;
    let startpos: bufsize_t;
    let data: *mut cmark_list;
    let mut i: bufsize_t;

    startpos = pos;
    c = peek_at(input, pos);

    if c == b'*' || c == b'-' || c == b'+' {
        pos += 1;
        if cmark_isspace(peek_at(input, pos) as c_char) == 0 {
            return 0;
        }

        if interrupts_paragraph {
            i = pos;
            // require non-blank content after list marker:
            while S_is_space_or_tab(peek_at(input, i)) {
                i += 1;
            }
            if peek_at(input, i) == b'\n' {
                return 0;
            }
        }

        data = ((*mem).calloc)(1, std::mem::size_of::<cmark_list>()) as *mut cmark_list;
        (*data).marker_offset = 0; // will be adjusted later
        (*data).list_type = CMARK_BULLET_LIST as u8;
        (*data).bullet_char = c;
        (*data).start = 0;
        (*data).delimiter = CMARK_NO_DELIM as u8;
        (*data).tight = false;
    } else if cmark_isdigit(c as c_char) != 0 {
        let mut start: i32 = 0;
        let mut digits: i32 = 0;

        loop {
            start = (10 * start) + (peek_at(input, pos) as i32 - b'0' as i32);
            pos += 1;
            digits += 1;
            // We limit to 9 digits to avoid overflow,
            // assuming max int is 2^31 - 1
            // This also seems to be the limit for 'start' in some browsers.
            if !(digits < 9 && cmark_isdigit(peek_at(input, pos) as c_char) != 0) {
                break;
            }
        }

        if interrupts_paragraph && start != 1 {
            return 0;
        }
        c = peek_at(input, pos);
        if c == b'.' || c == b')' {
            pos += 1;
            if cmark_isspace(peek_at(input, pos) as c_char) == 0 {
                return 0;
            }
            if interrupts_paragraph {
                // require non-blank content after list marker:
                i = pos;
                while S_is_space_or_tab(peek_at(input, i)) {
                    i += 1;
                }
                if S_is_line_end_char(peek_at(input, i)) {
                    return 0;
                }
            }

            data = ((*mem).calloc)(1, std::mem::size_of::<cmark_list>()) as *mut cmark_list;
            (*data).marker_offset = 0; // will be adjusted later
            (*data).list_type = CMARK_ORDERED_LIST as u8;
            (*data).bullet_char = 0;
            (*data).start = start;
            (*data).delimiter = if c == b'.' {
                CMARK_PERIOD_DELIM as u8
            } else {
                CMARK_PAREN_DELIM as u8
            };
            (*data).tight = false;
        } else {
            return 0;
        }
    } else {
        return 0;
    }

    *dataptr = data;
    pos - startpos
}

// Return 1 if list item belongs in list, else 0.
unsafe fn lists_match(list_data: *mut cmark_list, item_data: *mut cmark_list) -> i32 {
    ((*list_data).list_type == (*item_data).list_type
        && (*list_data).delimiter == (*item_data).delimiter
        // list_data->marker_offset == item_data.marker_offset &&
        && (*list_data).bullet_char == (*item_data).bullet_char) as i32
}

unsafe fn finalize_document(parser: *mut cmark_parser) -> *mut cmark_node {
    while (*parser).current != (*parser).root {
        (*parser).current = finalize(parser, (*parser).current);
    }

    finalize(parser, (*parser).root);

    // Limit total size of extra content created from reference links to
    // document size to avoid superlinear growth. Always allow 100KB.
    if (*parser).total_size > 100000 {
        (*(*parser).refmap).max_ref_size = (*parser).total_size;
    } else {
        (*(*parser).refmap).max_ref_size = 100000;
    }

    process_inlines(
        (*parser).mem,
        (*parser).root,
        (*parser).refmap,
        (*parser).options,
    );

    cmark_strbuf_free(&mut (*parser).content);

    (*parser).root
}

#[no_mangle]
pub unsafe extern "C" fn cmark_parse_file(f: *mut c_void, options: i32) -> *mut cmark_node {
    let mut buffer: [u8; 4096] = [0; 4096];
    let parser = cmark_parser_new(options);
    let mut bytes: usize;
    let document: *mut cmark_node;

    loop {
        bytes = fread(
            buffer.as_mut_ptr() as *mut c_void,
            1,
            std::mem::size_of::<[u8; 4096]>(),
            f,
        );
        if bytes == 0 {
            break;
        }
        let eof = bytes < std::mem::size_of::<[u8; 4096]>();
        S_parser_feed(parser, buffer.as_ptr(), bytes, eof);
        if eof {
            break;
        }
    }

    document = cmark_parser_finish(parser);
    cmark_parser_free(parser);
    document
}

#[no_mangle]
pub unsafe extern "C" fn cmark_parse_document(
    buffer: *const c_char,
    len: usize,
    options: i32,
) -> *mut cmark_node {
    let parser = cmark_parser_new(options);
    let document: *mut cmark_node;

    S_parser_feed(parser, buffer as *const u8, len, true);

    document = cmark_parser_finish(parser);
    cmark_parser_free(parser);
    document
}

#[no_mangle]
pub unsafe extern "C" fn cmark_parser_feed(
    parser: *mut cmark_parser,
    buffer: *const c_char,
    len: usize,
) {
    S_parser_feed(parser, buffer as *const u8, len, false);
}

static repl: [u8; 3] = [239, 191, 189];

unsafe fn S_parser_feed(parser: *mut cmark_parser, mut buffer: *const u8, len: usize, eof: bool) {
    let end: *const u8 = buffer.wrapping_add(len);

    if len > (u32::MAX - (*parser).total_size) as usize {
        (*parser).total_size = u32::MAX;
    } else {
        (*parser).total_size = (*parser).total_size.wrapping_add(len as u32);
    }

    // Skip UTF-8 BOM if present; see #334
    if (*parser).line_number == 0
        && (*parser).column == 0
        && len >= 3
        && *buffer == 0xEF
        && *buffer.offset(1) == 0xBB
        && *buffer.offset(2) == 0xBF
    {
        buffer = buffer.offset(3);
    } else if (*parser).last_buffer_ended_with_cr && len > 0 && *buffer == b'\n' {
        // (the C reads *buffer even when len == 0; with nothing to
        // process the outcome is the same, so that read is skipped here)
        // skip NL if last buffer ended with CR ; see #117
        buffer = buffer.offset(1);
    }

    (*parser).last_buffer_ended_with_cr = false;
    while buffer < end {
        let mut eol: *const u8;
        let chunk_len: bufsize_t;
        let mut process = false;
        eol = buffer;
        while eol < end {
            if S_is_line_end_char(*eol) {
                process = true;
                break;
            }
            if *eol == b'\0' && eol < end {
                break;
            }
            eol = eol.offset(1);
        }
        if eol >= end && eof {
            process = true;
        }

        chunk_len = eol.offset_from(buffer) as bufsize_t;
        if process {
            if (*parser).linebuf.size > 0 {
                cmark_strbuf_put(&mut (*parser).linebuf, buffer, chunk_len);
                S_process_line(parser, (*parser).linebuf.ptr, (*parser).linebuf.size);
                cmark_strbuf_clear(&mut (*parser).linebuf);
            } else {
                S_process_line(parser, buffer, chunk_len);
            }
        } else {
            if eol < end && *eol == b'\0' {
                // omit NULL byte
                cmark_strbuf_put(&mut (*parser).linebuf, buffer, chunk_len);
                // add replacement character
                cmark_strbuf_put(&mut (*parser).linebuf, repl.as_ptr(), 3);
            } else {
                cmark_strbuf_put(&mut (*parser).linebuf, buffer, chunk_len);
            }
        }

        buffer = buffer.offset(chunk_len as isize);
        if buffer < end {
            if *buffer == b'\0' {
                // skip over NULL
                buffer = buffer.offset(1);
            } else {
                // skip over line ending characters
                if *buffer == b'\r' {
                    buffer = buffer.offset(1);
                    if buffer == end {
                        (*parser).last_buffer_ended_with_cr = true;
                    }
                }
                if buffer < end && *buffer == b'\n' {
                    buffer = buffer.offset(1);
                }
            }
        }
    }
}

unsafe fn chop_trailing_hashtags(ch: *mut cmark_chunk) {
    let mut n: bufsize_t;
    let orig_n: bufsize_t;

    cmark_chunk_rtrim(ch);
    n = (*ch).len - 1;
    orig_n = n;

    // if string ends in space followed by #s, remove these:
    while n >= 0 && peek_at(ch, n) == b'#' {
        n -= 1;
    }

    // Check for a space before the final #s:
    if n != orig_n && n >= 0 && S_is_space_or_tab(peek_at(ch, n)) {
        (*ch).len = n;
        cmark_chunk_rtrim(ch);
    }
}

// Check for thematic break.  On failure, return 0 and update
// thematic_break_kill_pos with the index at which the
// parse fails.  On success, return length of match.
// "...three or more hyphens, asterisks,
// or underscores on a line by themselves. If you wish, you may use
// spaces between the hyphens or asterisks."
unsafe fn S_scan_thematic_break(
    parser: *mut cmark_parser,
    input: *mut cmark_chunk,
    offset: bufsize_t,
) -> i32 {
    let mut i: bufsize_t;
    let c: u8;
    let mut nextc: u8 = b'\0';
    let mut count: i32;
    i = offset;
    c = peek_at(input, i);
    if !(c == b'*' || c == b'_' || c == b'-') {
        (*parser).thematic_break_kill_pos = i;
        return 0;
    }
    count = 1;
    loop {
        i += 1;
        nextc = peek_at(input, i);
        if nextc == 0 {
            break;
        }
        if nextc == c {
            count += 1;
        } else if nextc != b' ' && nextc != b'\t' {
            break;
        }
    }
    if count >= 3 && (nextc == b'\r' || nextc == b'\n') {
        (i - offset) + 1
    } else {
        (*parser).thematic_break_kill_pos = i;
        0
    }
}

// Find first nonspace character from current offset, setting
// parser->first_nonspace, parser->first_nonspace_column,
// parser->indent, and parser->blank. Does not advance parser->offset.
unsafe fn S_find_first_nonspace(parser: *mut cmark_parser, input: *mut cmark_chunk) {
    let mut c: u8;
    let mut chars_to_tab: i32 = TAB_STOP - ((*parser).column % TAB_STOP);

    if (*parser).first_nonspace <= (*parser).offset {
        (*parser).first_nonspace = (*parser).offset;
        (*parser).first_nonspace_column = (*parser).column;
        loop {
            c = peek_at(input, (*parser).first_nonspace);
            if c == 0 {
                break;
            }
            if c == b' ' {
                (*parser).first_nonspace += 1;
                (*parser).first_nonspace_column += 1;
                chars_to_tab = chars_to_tab - 1;
                if chars_to_tab == 0 {
                    chars_to_tab = TAB_STOP;
                }
            } else if c == b'\t' {
                (*parser).first_nonspace += 1;
                (*parser).first_nonspace_column += chars_to_tab;
                chars_to_tab = TAB_STOP;
            } else {
                break;
            }
        }
    }

    (*parser).indent = (*parser).first_nonspace_column - (*parser).column;
    (*parser).blank = S_is_line_end_char(peek_at(input, (*parser).first_nonspace));
}

// Advance parser->offset and parser->column.  parser->offset is the
// byte position in input; parser->column is a virtual column number
// that takes into account tabs. (Multibyte characters are not taken
// into account, because the Markdown line prefixes we are interested in
// analyzing are entirely ASCII.)  The count parameter indicates
// how far to advance the offset.  If columns is true, then count
// indicates a number of columns; otherwise, a number of bytes.
// If advancing a certain number of columns partially consumes
// a tab character, parser->partially_consumed_tab is set to true.
unsafe fn S_advance_offset(
    parser: *mut cmark_parser,
    input: *mut cmark_chunk,
    mut count: bufsize_t,
    columns: bool,
) {
    let mut c: u8 = 0;
    let mut chars_to_tab: i32;
    let mut chars_to_advance: i32;
    while count > 0 && {
        c = peek_at(input, (*parser).offset);
        c != 0
    } {
        if c == b'\t' {
            chars_to_tab = TAB_STOP - ((*parser).column % TAB_STOP);
            if columns {
                (*parser).partially_consumed_tab = chars_to_tab > count;
                chars_to_advance = MIN(count, chars_to_tab);
                (*parser).column += chars_to_advance;
                (*parser).offset += if (*parser).partially_consumed_tab { 0 } else { 1 };
                count -= chars_to_advance;
            } else {
                (*parser).partially_consumed_tab = false;
                (*parser).column += chars_to_tab;
                (*parser).offset += 1;
                count -= 1;
            }
        } else {
            (*parser).partially_consumed_tab = false;
            (*parser).offset += 1;
            (*parser).column += 1; // assume ascii; block starts are ascii
            count -= 1;
        }
    }
}

unsafe fn S_last_child_is_open(container: *mut cmark_node) -> bool {
    !(*container).last_child.is_null()
        && ((*(*container).last_child).flags & (CMARK_NODE__OPEN as u16)) != 0
}

unsafe fn parse_block_quote_prefix(parser: *mut cmark_parser, input: *mut cmark_chunk) -> bool {
    let mut res = false;
    let matched: bufsize_t;

    matched = ((*parser).indent <= 3 && peek_at(input, (*parser).first_nonspace) == b'>')
        as bufsize_t;
    if matched != 0 {
        S_advance_offset(parser, input, (*parser).indent + 1, true);

        if S_is_space_or_tab(peek_at(input, (*parser).offset)) {
            S_advance_offset(parser, input, 1, true);
        }

        res = true;
    }
    res
}

unsafe fn parse_node_item_prefix(
    parser: *mut cmark_parser,
    input: *mut cmark_chunk,
    container: *mut cmark_node,
) -> bool {
    let mut res = false;

    if (*parser).indent >= (*container).as_.list.marker_offset + (*container).as_.list.padding {
        S_advance_offset(
            parser,
            input,
            (*container).as_.list.marker_offset + (*container).as_.list.padding,
            true,
        );
        res = true;
    } else if (*parser).blank && !(*container).first_child.is_null() {
        // if container->first_child is NULL, then the opening line
        // of the list item was blank after the list marker; in this
        // case, we are done with the list item.
        S_advance_offset(
            parser,
            input,
            (*parser).first_nonspace - (*parser).offset,
            false,
        );
        res = true;
    }
    res
}

unsafe fn parse_code_block_prefix(
    parser: *mut cmark_parser,
    input: *mut cmark_chunk,
    container: *mut cmark_node,
    should_continue: *mut bool,
) -> bool {
    let mut res = false;

    if (*container).as_.code.fenced == 0 {
        // indented
        if (*parser).indent >= CODE_INDENT {
            S_advance_offset(parser, input, CODE_INDENT, true);
            res = true;
        } else if (*parser).blank {
            S_advance_offset(
                parser,
                input,
                (*parser).first_nonspace - (*parser).offset,
                false,
            );
            res = true;
        }
    } else {
        // fenced
        let mut matched: bufsize_t = 0;

        if (*parser).indent <= 3
            && (peek_at(input, (*parser).first_nonspace) == (*container).as_.code.fence_char)
        {
            matched = scan_close_code_fence(input, (*parser).first_nonspace);
        }

        if matched >= (*container).as_.code.fence_length as bufsize_t {
            // closing fence - and since we're at
            // the end of a line, we can stop processing it:
            *should_continue = false;
            S_advance_offset(parser, input, matched, false);
            (*parser).current = finalize(parser, container);
        } else {
            // skip opt. spaces of fence parser->offset
            let mut i: i32 = (*container).as_.code.fence_offset as i32;

            while i > 0 && S_is_space_or_tab(peek_at(input, (*parser).offset)) {
                S_advance_offset(parser, input, 1, true);
                i -= 1;
            }
            res = true;
        }
    }

    res
}

unsafe fn parse_html_block_prefix(parser: *mut cmark_parser, container: *mut cmark_node) -> bool {
    let mut res = false;
    let html_block_type: i32 = (*container).as_.html_block_type;

    debug_assert!(html_block_type >= 1 && html_block_type <= 7);
    match html_block_type {
        1 | 2 | 3 | 4 | 5 => {
            // these types of blocks can accept blanks
            res = true;
        }
        6 | 7 => {
            res = !(*parser).blank;
        }
        _ => {}
    }

    res
}

/**
 * For each containing node, try to parse the associated line start.
 *
 * Will not close unmatched blocks, as we may have a lazy continuation
 * line -> http://spec.commonmark.org/0.24/#lazy-continuation-line
 *
 * Returns: The last matching node, or NULL
 */
unsafe fn check_open_blocks(
    parser: *mut cmark_parser,
    input: *mut cmark_chunk,
    all_matched: *mut bool,
) -> *mut cmark_node {
    let mut should_continue = true;
    *all_matched = false;
    let mut container: *mut cmark_node = (*parser).root;
    let mut cont_type: cmark_node_type;

    'done: loop {
        if !S_last_child_is_open(container) {
            *all_matched = true;
            break 'done;
        }
        container = (*container).last_child;
        cont_type = S_type(container);

        S_find_first_nonspace(parser, input);

        match cont_type {
            CMARK_NODE_BLOCK_QUOTE => {
                if !parse_block_quote_prefix(parser, input) {
                    break 'done;
                }
            }
            CMARK_NODE_ITEM => {
                if !parse_node_item_prefix(parser, input, container) {
                    break 'done;
                }
            }
            CMARK_NODE_CODE_BLOCK => {
                if !parse_code_block_prefix(parser, input, container, &mut should_continue) {
                    break 'done;
                }
            }
            CMARK_NODE_HEADING => {
                // a heading can never contain more than one line
                break 'done;
            }
            CMARK_NODE_HTML_BLOCK => {
                if !parse_html_block_prefix(parser, container) {
                    break 'done;
                }
            }
            CMARK_NODE_PARAGRAPH => {
                if (*parser).blank {
                    break 'done;
                }
            }
            _ => {}
        }
    }

    // done:
    if !*all_matched {
        container = (*container).parent; // back up to last matching node
    }

    if !should_continue {
        container = null_mut();
    }

    container
}

unsafe fn open_new_blocks(
    parser: *mut cmark_parser,
    container: *mut *mut cmark_node,
    input: *mut cmark_chunk,
    all_matched: bool,
) {
    let mut indented: bool;
    let mut data: *mut cmark_list = null_mut();
    let mut maybe_lazy: bool = S_type((*parser).current) == CMARK_NODE_PARAGRAPH;
    let mut cont_type: cmark_node_type = S_type(*container);
    let mut matched: bufsize_t = 0;
    let mut lev: i32 = 0;
    let mut save_partially_consumed_tab: bool;
    let mut has_content: bool;
    let mut save_offset: i32;
    let mut save_column: i32;

    while cont_type != CMARK_NODE_CODE_BLOCK && cont_type != CMARK_NODE_HTML_BLOCK {
        S_find_first_nonspace(parser, input);
        indented = (*parser).indent >= CODE_INDENT;

        if !indented && peek_at(input, (*parser).first_nonspace) == b'>' {
            let blockquote_startpos: bufsize_t = (*parser).first_nonspace;

            S_advance_offset(
                parser,
                input,
                (*parser).first_nonspace + 1 - (*parser).offset,
                false,
            );
            // optional following character
            if S_is_space_or_tab(peek_at(input, (*parser).offset)) {
                S_advance_offset(parser, input, 1, true);
            }
            *container = add_child(
                parser,
                *container,
                CMARK_NODE_BLOCK_QUOTE,
                blockquote_startpos + 1,
            );
        } else if !indented && {
            matched = scan_atx_heading_start(input, (*parser).first_nonspace);
            matched != 0
        } {
            let mut hashpos: bufsize_t;
            let mut level: i32 = 0;
            let heading_startpos: bufsize_t = (*parser).first_nonspace;

            S_advance_offset(
                parser,
                input,
                (*parser).first_nonspace + matched - (*parser).offset,
                false,
            );
            *container = add_child(parser, *container, CMARK_NODE_HEADING, heading_startpos + 1);

            hashpos = cmark_chunk_strchr(input, b'#' as i32, (*parser).first_nonspace);

            while peek_at(input, hashpos) == b'#' {
                level += 1;
                hashpos += 1;
            }

            (**container).as_.heading.level = level;
            (**container).as_.heading.setext = false;
            (**container).internal_offset = matched;
        } else if !indented && {
            matched = scan_open_code_fence(input, (*parser).first_nonspace);
            matched != 0
        } {
            *container = add_child(
                parser,
                *container,
                CMARK_NODE_CODE_BLOCK,
                (*parser).first_nonspace + 1,
            );
            (**container).as_.code.fenced = 1;
            (**container).as_.code.fence_char = peek_at(input, (*parser).first_nonspace);
            (**container).as_.code.fence_length = if matched > 255 { 255 } else { matched as u8 };
            (**container).as_.code.fence_offset =
                ((*parser).first_nonspace - (*parser).offset) as i8 as u8;
            (**container).as_.code.info = null_mut();
            S_advance_offset(
                parser,
                input,
                (*parser).first_nonspace + matched - (*parser).offset,
                false,
            );
        } else if !indented
            && ({
                matched = scan_html_block_start(input, (*parser).first_nonspace);
                matched != 0
            } || (cont_type != CMARK_NODE_PARAGRAPH
                && !maybe_lazy
                && {
                    matched = scan_html_block_start_7(input, (*parser).first_nonspace);
                    matched != 0
                }))
        {
            *container = add_child(
                parser,
                *container,
                CMARK_NODE_HTML_BLOCK,
                (*parser).first_nonspace + 1,
            );
            (**container).as_.html_block_type = matched;
            // note, we don't adjust parser->offset because the tag is part of the
            // text
        } else if !indented && cont_type == CMARK_NODE_PARAGRAPH && {
            lev = scan_setext_heading_line(input, (*parser).first_nonspace);
            lev != 0
        } {
            // finalize paragraph, resolving reference links
            has_content = resolve_reference_link_definitions(parser);

            if has_content {
                (**container).type_ = CMARK_NODE_HEADING as u16;
                (**container).as_.heading.level = lev;
                (**container).as_.heading.setext = true;
                S_advance_offset(parser, input, (*input).len - 1 - (*parser).offset, false);
            }
        } else if !indented
            && !(cont_type == CMARK_NODE_PARAGRAPH && !all_matched)
            && ((*parser).thematic_break_kill_pos <= (*parser).first_nonspace)
            && S_scan_thematic_break(parser, input, (*parser).first_nonspace) != 0
        {
            // it's only now that we know the line is not part of a setext heading:
            *container = add_child(
                parser,
                *container,
                CMARK_NODE_THEMATIC_BREAK,
                (*parser).first_nonspace + 1,
            );
            S_advance_offset(parser, input, (*input).len - 1 - (*parser).offset, false);
        } else if (!indented || cont_type == CMARK_NODE_LIST)
            && (*parser).indent < 4
            && {
                matched = parse_list_marker(
                    (*parser).mem,
                    input,
                    (*parser).first_nonspace,
                    (**container).type_ as cmark_node_type == CMARK_NODE_PARAGRAPH,
                    &mut data,
                );
                matched != 0
            }
        {
            // Note that we can have new list items starting with >= 4
            // spaces indent, as long as the list container is still open.
            let mut i: i32;

            // compute padding:
            S_advance_offset(
                parser,
                input,
                (*parser).first_nonspace + matched - (*parser).offset,
                false,
            );

            save_partially_consumed_tab = (*parser).partially_consumed_tab;
            save_offset = (*parser).offset;
            save_column = (*parser).column;

            while (*parser).column - save_column <= 5
                && S_is_space_or_tab(peek_at(input, (*parser).offset))
            {
                S_advance_offset(parser, input, 1, true);
            }

            i = (*parser).column - save_column;
            if i >= 5
                || i < 1
                // only spaces after list marker:
                || S_is_line_end_char(peek_at(input, (*parser).offset))
            {
                (*data).padding = matched + 1;
                (*parser).offset = save_offset;
                (*parser).column = save_column;
                (*parser).partially_consumed_tab = save_partially_consumed_tab;
                if i > 0 {
                    S_advance_offset(parser, input, 1, true);
                }
            } else {
                (*data).padding = matched + i;
            }

            // check container; if it's a list, see if this list item
            // can continue the list; otherwise, create a list container.

            (*data).marker_offset = (*parser).indent;

            if cont_type != CMARK_NODE_LIST
                || lists_match(std::ptr::addr_of_mut!((**container).as_.list), data) == 0
            {
                *container = add_child(
                    parser,
                    *container,
                    CMARK_NODE_LIST,
                    (*parser).first_nonspace + 1,
                );

                std::ptr::copy_nonoverlapping(
                    data as *const cmark_list,
                    std::ptr::addr_of_mut!((**container).as_.list),
                    1,
                );
            }

            // add the list item
            *container = add_child(
                parser,
                *container,
                CMARK_NODE_ITEM,
                (*parser).first_nonspace + 1,
            );
            /* TODO: static */
            std::ptr::copy_nonoverlapping(
                data as *const cmark_list,
                std::ptr::addr_of_mut!((**container).as_.list),
                1,
            );
            ((*(*parser).mem).free)(data as *mut c_void);
        } else if indented && !maybe_lazy && !(*parser).blank {
            S_advance_offset(parser, input, CODE_INDENT, true);
            *container = add_child(
                parser,
                *container,
                CMARK_NODE_CODE_BLOCK,
                (*parser).offset + 1,
            );
            (**container).as_.code.fenced = 0;
            (**container).as_.code.fence_char = 0;
            (**container).as_.code.fence_length = 0;
            (**container).as_.code.fence_offset = 0;
            (**container).as_.code.info = null_mut();
        } else {
            break;
        }

        if accepts_lines(S_type(*container)) {
            // if it's a line container, it can't contain other containers
            break;
        }

        cont_type = S_type(*container);
        maybe_lazy = false;
    }
}

unsafe fn add_text_to_container(
    parser: *mut cmark_parser,
    mut container: *mut cmark_node,
    last_matched_container: *mut cmark_node,
    input: *mut cmark_chunk,
) {
    let mut tmp: *mut cmark_node;
    // what remains at parser->offset is a text line.  add the text to the
    // appropriate container.

    S_find_first_nonspace(parser, input);

    if (*parser).blank && !(*container).last_child.is_null() {
        S_set_last_line_blank((*container).last_child, true);
    }

    // block quote lines are never blank as they start with >
    // and we don't count blanks in fenced code for purposes of tight/loose
    // lists or breaking out of lists.  we also don't set last_line_blank
    // on an empty list item.
    let ctype: cmark_node_type = S_type(container);
    let last_line_blank: bool = (*parser).blank
        && ctype != CMARK_NODE_BLOCK_QUOTE
        && ctype != CMARK_NODE_HEADING
        && ctype != CMARK_NODE_THEMATIC_BREAK
        && !(ctype == CMARK_NODE_CODE_BLOCK && (*container).as_.code.fenced != 0)
        && !(ctype == CMARK_NODE_ITEM
            && (*container).first_child.is_null()
            && (*container).start_line == (*parser).line_number);

    S_set_last_line_blank(container, last_line_blank);

    tmp = container;
    while !(*tmp).parent.is_null() {
        S_set_last_line_blank((*tmp).parent, false);
        tmp = (*tmp).parent;
    }

    // If the last line processed belonged to a paragraph node,
    // and we didn't match all of the line prefixes for the open containers,
    // and we didn't start any new containers,
    // and the line isn't blank,
    // then treat this as a "lazy continuation line" and add it to
    // the open paragraph.
    if (*parser).current != last_matched_container
        && container == last_matched_container
        && !(*parser).blank
        && S_type((*parser).current) == CMARK_NODE_PARAGRAPH
    {
        add_line(input, parser);
    } else {
        // not a lazy continuation
        // Finalize any blocks that were not matched and set cur to container:
        while (*parser).current != last_matched_container {
            (*parser).current = finalize(parser, (*parser).current);
            debug_assert!(!(*parser).current.is_null());
        }

        if S_type(container) == CMARK_NODE_CODE_BLOCK {
            add_line(input, parser);
        } else if S_type(container) == CMARK_NODE_HTML_BLOCK {
            add_line(input, parser);

            let matches_end_condition: i32;
            match (*container).as_.html_block_type {
                1 => {
                    // </script>, </style>, </textarea>, </pre>
                    matches_end_condition = scan_html_block_end_1(input, (*parser).first_nonspace);
                }
                2 => {
                    // -->
                    matches_end_condition = scan_html_block_end_2(input, (*parser).first_nonspace);
                }
                3 => {
                    // ?>
                    matches_end_condition = scan_html_block_end_3(input, (*parser).first_nonspace);
                }
                4 => {
                    // >
                    matches_end_condition = scan_html_block_end_4(input, (*parser).first_nonspace);
                }
                5 => {
                    // ]]>
                    matches_end_condition = scan_html_block_end_5(input, (*parser).first_nonspace);
                }
                _ => {
                    matches_end_condition = 0;
                }
            }

            if matches_end_condition != 0 {
                container = finalize(parser, container);
                debug_assert!(!(*parser).current.is_null());
            }
        } else if (*parser).blank {
            // ??? do nothing
        } else if accepts_lines(S_type(container)) {
            if S_type(container) == CMARK_NODE_HEADING && !(*container).as_.heading.setext {
                chop_trailing_hashtags(input);
            }
            S_advance_offset(
                parser,
                input,
                (*parser).first_nonspace - (*parser).offset,
                false,
            );
            add_line(input, parser);
        } else {
            // create paragraph container for line
            container = add_child(
                parser,
                container,
                CMARK_NODE_PARAGRAPH,
                (*parser).first_nonspace + 1,
            );
            S_advance_offset(
                parser,
                input,
                (*parser).first_nonspace - (*parser).offset,
                false,
            );
            add_line(input, parser);
        }

        (*parser).current = container;
    }
}

/* See http://spec.commonmark.org/0.24/#phase-1-block-structure */
unsafe fn S_process_line(parser: *mut cmark_parser, buffer: *const u8, mut bytes: bufsize_t) {
    let last_matched_container: *mut cmark_node;
    let mut all_matched: bool = true;
    let mut container: *mut cmark_node;
    let mut input: cmark_chunk = cmark_chunk {
        data: std::ptr::null(),
        len: 0,
    };

    if ((*parser).options & (CMARK_OPT_VALIDATE_UTF8 as i32)) != 0 {
        cmark_utf8proc_check(&mut (*parser).curline, buffer, bytes);
    } else {
        cmark_strbuf_put(&mut (*parser).curline, buffer, bytes);
    }

    bytes = (*parser).curline.size;

    // ensure line ends with a newline:
    if bytes == 0 || !S_is_line_end_char(*(*parser).curline.ptr.offset((bytes - 1) as isize)) {
        cmark_strbuf_putc(&mut (*parser).curline, b'\n' as i32);
    }

    (*parser).offset = 0;
    (*parser).column = 0;
    (*parser).first_nonspace = 0;
    (*parser).first_nonspace_column = 0;
    (*parser).thematic_break_kill_pos = 0;
    (*parser).indent = 0;
    (*parser).blank = false;
    (*parser).partially_consumed_tab = false;

    input.data = (*parser).curline.ptr;
    input.len = (*parser).curline.size;

    (*parser).line_number += 1;

    last_matched_container = check_open_blocks(parser, &mut input, &mut all_matched);

    if !last_matched_container.is_null() {
        container = last_matched_container;

        open_new_blocks(parser, &mut container, &mut input, all_matched);

        add_text_to_container(parser, container, last_matched_container, &mut input);
    }

    // finished:
    (*parser).last_line_length = input.len;
    if (*parser).last_line_length != 0
        && *input.data.offset(((*parser).last_line_length - 1) as isize) == b'\n'
    {
        (*parser).last_line_length -= 1;
    }
    if (*parser).last_line_length != 0
        && *input.data.offset(((*parser).last_line_length - 1) as isize) == b'\r'
    {
        (*parser).last_line_length -= 1;
    }

    cmark_strbuf_clear(&mut (*parser).curline);
}

#[no_mangle]
pub unsafe extern "C" fn cmark_parser_finish(parser: *mut cmark_parser) -> *mut cmark_node {
    if (*parser).linebuf.size != 0 {
        S_process_line(parser, (*parser).linebuf.ptr, (*parser).linebuf.size);
        cmark_strbuf_clear(&mut (*parser).linebuf);
    }

    finalize_document(parser);

    cmark_consolidate_text_nodes((*parser).root);

    cmark_strbuf_free(&mut (*parser).curline);

    // (CMARK_DEBUG_NODES is off in State A's release build.)
    (*parser).root
}
