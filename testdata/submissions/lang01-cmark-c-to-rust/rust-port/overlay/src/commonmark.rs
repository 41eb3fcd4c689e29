//! commonmark.c: render a cmark_node tree back to CommonMark.
use crate::*;
use std::os::raw::{c_char, c_int};

extern "C" {
    fn strlen(s: *const c_char) -> usize;
    fn strchr(s: *const c_char, c: c_int) -> *mut c_char;
    fn strcmp(s1: *const c_char, s2: *const c_char) -> c_int;
    fn strncmp(s1: *const c_char, s2: *const c_char, n: usize) -> c_int;
}

// A NUL-terminated C string literal.
macro_rules! cstr {
    ($s:expr) => {
        concat!($s, "\0").as_ptr() as *const c_char
    };
}

// #define OUT(s, wrap, escaping) renderer->out(renderer, s, wrap, escaping)
macro_rules! OUT {
    ($renderer:expr, $s:expr, $wrap:expr, $escaping:expr) => {
        ((*$renderer).out)($renderer, $s, $wrap, $escaping)
    };
}
// #define LIT(s) renderer->out(renderer, s, false, LITERAL)
macro_rules! LIT {
    ($renderer:expr, $s:expr) => {
        ((*$renderer).out)($renderer, $s, false, LITERAL)
    };
}
// #define CR() renderer->cr(renderer)
macro_rules! CR {
    ($renderer:expr) => {
        ((*$renderer).cr)($renderer)
    };
}
// #define BLANKLINE() renderer->blankline(renderer)
macro_rules! BLANKLINE {
    ($renderer:expr) => {
        ((*$renderer).blankline)($renderer)
    };
}

const ENCODED_SIZE: usize = 20;
const LISTMARKER_SIZE: usize = 20;

// snprintf(dst, size, ...) for an already formatted string: copies at most
// size - 1 bytes and always NUL-terminates.
fn S_snprintf_commonmark(dst: &mut [u8], s: &str) {
    let bytes = s.as_bytes();
    let n = if bytes.len() < dst.len() - 1 {
        bytes.len()
    } else {
        dst.len() - 1
    };
    dst[..n].copy_from_slice(&bytes[..n]);
    dst[n] = 0;
}

// Functions to convert cmark_nodes to commonmark strings.

#[inline]
unsafe fn outc(renderer: *mut cmark_renderer, escape: cmark_escaping, c: i32, nextc: u8) {
    let mut needs_escaping = false;
    let follows_digit = (*(*renderer).buffer).size > 0
        && cmark_isdigit(
            *(*(*renderer).buffer)
                .ptr
                .offset(((*(*renderer).buffer).size - 1) as isize) as c_char,
        ) != 0;
    let mut encoded = [0u8; ENCODED_SIZE];
    let options: i32 = (*renderer).options;

    needs_escaping = c < 0x80
        && escape != LITERAL
        && ((escape == NORMAL
            && (c < 0x20
                || c == b'*' as i32
                || c == b'_' as i32
                || c == b'[' as i32
                || c == b']' as i32
                || c == b'#' as i32
                || c == b'<' as i32
                || c == b'>' as i32
                || c == b'\\' as i32
                || c == b'`' as i32
                || c == b'!' as i32
                || (c == b'&' as i32 && cmark_isalpha(nextc as c_char) != 0)
                || (c == b'!' as i32 && nextc == b'[')
                || ((CMARK_OPT_SMART & options) != 0
                    && ((c == b'-' as i32 && nextc == b'-')
                        || (c == b'.' as i32 && nextc == b'.')
                        || c == b'"' as i32
                        || c == b'\'' as i32))
                || ((*renderer).begin_content
                    && (c == b'-' as i32 || c == b'+' as i32 || c == b'=' as i32)
                    // begin_content doesn't get set to false til we've passed digits
                    // at the beginning of line, so...
                    && !follows_digit)
                || ((*renderer).begin_content
                    && (c == b'.' as i32 || c == b')' as i32)
                    && follows_digit
                    && (nextc == 0 || cmark_isspace(nextc as c_char) != 0))))
            || (escape == URL
                && (c == b'`' as i32
                    || c == b'<' as i32
                    || c == b'>' as i32
                    || cmark_isspace(c as c_char) != 0
                    || c == b'\\' as i32
                    || c == b')' as i32
                    || c == b'(' as i32))
            || (escape == TITLE
                && (c == b'`' as i32
                    || c == b'<' as i32
                    || c == b'>' as i32
                    || c == b'"' as i32
                    || c == b'\\' as i32)));

    if needs_escaping {
        if escape == URL && cmark_isspace(c as c_char) != 0 {
            // use percent encoding for spaces
            S_snprintf_commonmark(&mut encoded, &format!("%{:2X}", c));
            cmark_strbuf_puts((*renderer).buffer, encoded.as_ptr() as *const c_char);
            (*renderer).column += 3;
        } else if cmark_ispunct(c as c_char) != 0 {
            cmark_render_ascii(renderer, cstr!("\\"));
            cmark_render_code_point(renderer, c as u32);
        } else {
            // render as entity
            S_snprintf_commonmark(&mut encoded, &format!("&#{};", c));
            cmark_strbuf_puts((*renderer).buffer, encoded.as_ptr() as *const c_char);
            (*renderer).column += strlen(encoded.as_ptr() as *const c_char) as i32;
        }
    } else {
        cmark_render_code_point(renderer, c as u32);
    }
}

unsafe fn longest_backtick_sequence(code: *const c_char) -> i32 {
    let mut longest: i32 = 0;
    let mut current: i32 = 0;
    let mut i: usize = 0;
    let code_len: usize = strlen(code);
    while i <= code_len {
        if *code.add(i) == b'`' as c_char {
            current += 1;
        } else {
            if current > longest {
                longest = current;
            }
            current = 0;
        }
        i += 1;
    }
    longest
}

unsafe fn shortest_unused_backtick_sequence(code: *const c_char) -> i32 {
    // note: if the shortest sequence is >= 32, this returns 32
    // so as not to overflow the bit array.
    let mut used: u32 = 1;
    let mut current: i32 = 0;
    let mut i: usize = 0;
    let code_len: usize = strlen(code);
    while i <= code_len {
        if *code.add(i) == b'`' as c_char {
            current += 1;
        } else {
            if current > 0 && current < 32 {
                used |= 1u32 << current;
            }
            current = 0;
        }
        i += 1;
    }
    // return number of first bit that is 0:
    i = 0;
    while i < 32 && (used & 1) != 0 {
        used = used >> 1;
        i += 1;
    }
    i as i32
}

unsafe fn is_autolink(node: *mut cmark_node) -> bool {
    let title: *const u8;
    let mut url: *const u8;
    let link_text: *mut cmark_node;

    if (*node).type_ as cmark_node_type != CMARK_NODE_LINK {
        return false;
    }

    url = (*node).as_.link.url;
    if url.is_null() || _scan_scheme(url) == 0 {
        return false;
    }

    title = (*node).as_.link.title;
    // if it has a title, we can't treat it as an autolink:
    if !title.is_null() && *title != 0 {
        return false;
    }

    link_text = (*node).first_child;
    if link_text.is_null() {
        return false;
    }
    cmark_consolidate_text_nodes(link_text);
    if strncmp(url as *const c_char, cstr!("mailto:"), 7) == 0 {
        url = url.add(7);
    }
    !(*link_text).data.is_null()
        && strcmp(url as *const c_char, (*link_text).data as *const c_char) == 0
}

// if node is a block node, returns node.
// otherwise returns first block-level node that is an ancestor of node.
// if there is no block-level ancestor, returns NULL.
unsafe fn get_containing_block(mut node: *mut cmark_node) -> *mut cmark_node {
    while !node.is_null() {
        if (*node).type_ as cmark_node_type >= CMARK_NODE_FIRST_BLOCK
            && (*node).type_ as cmark_node_type <= CMARK_NODE_LAST_BLOCK
        {
            return node;
        } else {
            node = (*node).parent;
        }
    }
    std::ptr::null_mut()
}

unsafe fn S_render_node(
    renderer: *mut cmark_renderer,
    node: *mut cmark_node,
    ev_type: cmark_event_type,
    options: i32,
) -> i32 {
    let mut tmp: *mut cmark_node;
    let mut list_number: i32;
    let mut list_delim: cmark_delim_type;
    let mut numticks: usize;
    let mut extra_spaces: bool;
    let mut i: usize;
    let entering = ev_type == CMARK_EVENT_ENTER;
    let mut info: *const c_char;
    let mut code: *const c_char;
    let mut title: *const c_char;
    let mut fencechar: [c_char; 2] = [0, 0];
    let mut code_len: usize;
    let mut listmarker = [0u8; LISTMARKER_SIZE];
    let mut emph_delim: *const c_char;
    let mut first_in_list_item: bool;
    let mut marker_width: bufsize_t;
    let mut has_nonspace: bool;
    let allow_wrap = (*renderer).width > 0
        && (CMARK_OPT_NOBREAKS & options) == 0
        && (CMARK_OPT_HARDBREAKS & options) == 0;

    // Don't adjust tight list status til we've started the list.
    // Otherwise we loose the blank line between a paragraph and
    // a following list.
    if !((*node).type_ as cmark_node_type == CMARK_NODE_ITEM
        && (*node).prev.is_null()
        && entering)
    {
        tmp = get_containing_block(node);
        (*renderer).in_tight_list_item = !tmp.is_null() // tmp might be NULL if there is no containing block
            && (((*tmp).type_ as cmark_node_type == CMARK_NODE_ITEM
                && cmark_node_get_list_tight((*tmp).parent) != 0)
                || (!tmp.is_null()
                    && !(*tmp).parent.is_null()
                    && (*(*tmp).parent).type_ as cmark_node_type == CMARK_NODE_ITEM
                    && cmark_node_get_list_tight((*(*tmp).parent).parent) != 0));
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_DOCUMENT => {}

        CMARK_NODE_BLOCK_QUOTE => {
            if entering {
                LIT!(renderer, cstr!("> "));
                (*renderer).begin_content = true;
                cmark_strbuf_puts((*renderer).prefix, cstr!("> "));
            } else {
                cmark_strbuf_truncate((*renderer).prefix, (*(*renderer).prefix).size - 2);
                BLANKLINE!(renderer);
            }
        }

        CMARK_NODE_LIST => {
            if !entering
                && !(*node).next.is_null()
                && ((*(*node).next).type_ as cmark_node_type == CMARK_NODE_LIST)
            {
                // this ensures that a following indented code block or list will be
                // inteprereted correctly.
                CR!(renderer);
                LIT!(renderer, cstr!("<!-- end list -->"));
                BLANKLINE!(renderer);
            }
        }

        CMARK_NODE_ITEM => {
            if cmark_node_get_list_type((*node).parent) == CMARK_BULLET_LIST {
                marker_width = 4;
            } else {
                list_number = cmark_node_get_list_start((*node).parent);
                list_delim = cmark_node_get_list_delim((*node).parent);
                tmp = node;
                while !(*tmp).prev.is_null() {
                    tmp = (*tmp).prev;
                    list_number = list_number.wrapping_add(1);
                }
                // we ensure a width of at least 4 so
                // we get nice transition from single digits
                // to double
                S_snprintf_commonmark(
                    &mut listmarker,
                    &format!(
                        "{}{}{}",
                        list_number,
                        if list_delim == CMARK_PAREN_DELIM { ")" } else { "." },
                        if list_number < 10 { "  " } else { " " }
                    ),
                );
                marker_width = strlen(listmarker.as_ptr() as *const c_char) as bufsize_t;
            }
            if entering {
                if cmark_node_get_list_type((*node).parent) == CMARK_BULLET_LIST {
                    LIT!(renderer, cstr!("  - "));
                    (*renderer).begin_content = true;
                } else {
                    LIT!(renderer, listmarker.as_ptr() as *const c_char);
                    (*renderer).begin_content = true;
                }
                i = marker_width as usize;
                while i != 0 {
                    i -= 1;
                    cmark_strbuf_putc((*renderer).prefix, b' ' as i32);
                }
            } else {
                cmark_strbuf_truncate(
                    (*renderer).prefix,
                    (*(*renderer).prefix).size - marker_width,
                );
                CR!(renderer);
            }
        }

        CMARK_NODE_HEADING => {
            if entering {
                let mut level: i32 = cmark_node_get_heading_level(node);
                while level > 0 {
                    LIT!(renderer, cstr!("#"));
                    level -= 1;
                }
                LIT!(renderer, cstr!(" "));
                (*renderer).begin_content = true;
                (*renderer).no_linebreaks = true;
            } else {
                (*renderer).no_linebreaks = false;
                BLANKLINE!(renderer);
            }
        }

        CMARK_NODE_CODE_BLOCK => {
            first_in_list_item = (*node).prev.is_null()
                && !(*node).parent.is_null()
                && (*(*node).parent).type_ as cmark_node_type == CMARK_NODE_ITEM;

            if !first_in_list_item {
                BLANKLINE!(renderer);
            }
            info = cmark_node_get_fence_info(node);
            fencechar[0] = if strchr(info, b'`' as c_int).is_null() {
                b'`' as c_char
            } else {
                b'~' as c_char
            };
            code = cmark_node_get_literal(node);

            numticks = (longest_backtick_sequence(code) + 1) as usize;
            if numticks < 3 {
                numticks = 3;
            }
            i = 0;
            while i < numticks {
                LIT!(renderer, fencechar.as_ptr());
                i += 1;
            }
            LIT!(renderer, cstr!(" "));
            OUT!(renderer, info, false, LITERAL);
            CR!(renderer);
            OUT!(renderer, cmark_node_get_literal(node), false, LITERAL);
            CR!(renderer);
            i = 0;
            while i < numticks {
                LIT!(renderer, fencechar.as_ptr());
                i += 1;
            }

            BLANKLINE!(renderer);
        }

        CMARK_NODE_HTML_BLOCK => {
            BLANKLINE!(renderer);
            OUT!(renderer, cmark_node_get_literal(node), false, LITERAL);
            BLANKLINE!(renderer);
        }

        CMARK_NODE_CUSTOM_BLOCK => {
            BLANKLINE!(renderer);
            OUT!(
                renderer,
                if entering {
                    cmark_node_get_on_enter(node)
                } else {
                    cmark_node_get_on_exit(node)
                },
                false,
                LITERAL
            );
            BLANKLINE!(renderer);
        }

        CMARK_NODE_THEMATIC_BREAK => {
            BLANKLINE!(renderer);
            LIT!(renderer, cstr!("-----"));
            BLANKLINE!(renderer);
        }

        CMARK_NODE_PARAGRAPH => {
            if !entering {
                BLANKLINE!(renderer);
            }
        }

        CMARK_NODE_TEXT => {
            OUT!(renderer, cmark_node_get_literal(node), allow_wrap, NORMAL);
        }

        CMARK_NODE_LINEBREAK => {
            if (CMARK_OPT_HARDBREAKS & options) == 0 {
                LIT!(renderer, cstr!("  "));
            }
            CR!(renderer);
        }

        CMARK_NODE_SOFTBREAK => {
            if (CMARK_OPT_HARDBREAKS & options) != 0 {
                LIT!(renderer, cstr!("  "));
                CR!(renderer);
            } else if !(*renderer).no_linebreaks
                && (*renderer).width == 0
                && (CMARK_OPT_HARDBREAKS & options) == 0
                && (CMARK_OPT_NOBREAKS & options) == 0
            {
                CR!(renderer);
            } else {
                OUT!(renderer, cstr!(" "), allow_wrap, LITERAL);
            }
        }

        CMARK_NODE_CODE => {
            code = cmark_node_get_literal(node);
            code_len = strlen(code);
            numticks = shortest_unused_backtick_sequence(code) as usize;
            has_nonspace = false;
            i = 0;
            while i < code_len {
                if *code.add(i) != b' ' as c_char {
                    has_nonspace = true;
                    break;
                }
                i += 1;
            }
            extra_spaces = code_len == 0
                || *code.add(0) == b'`' as c_char
                || *code.add(code_len - 1) == b'`' as c_char
                || (has_nonspace
                    && *code.add(0) == b' ' as c_char
                    && *code.add(code_len - 1) == b' ' as c_char);
            i = 0;
            while i < numticks {
                LIT!(renderer, cstr!("`"));
                i += 1;
            }
            if extra_spaces {
                LIT!(renderer, cstr!(" "));
            }
            OUT!(renderer, cmark_node_get_literal(node), allow_wrap, LITERAL);
            if extra_spaces {
                LIT!(renderer, cstr!(" "));
            }
            i = 0;
            while i < numticks {
                LIT!(renderer, cstr!("`"));
                i += 1;
            }
        }

        CMARK_NODE_HTML_INLINE => {
            OUT!(renderer, cmark_node_get_literal(node), false, LITERAL);
        }

        CMARK_NODE_CUSTOM_INLINE => {
            OUT!(
                renderer,
                if entering {
                    cmark_node_get_on_enter(node)
                } else {
                    cmark_node_get_on_exit(node)
                },
                false,
                LITERAL
            );
        }

        CMARK_NODE_STRONG => {
            if entering {
                LIT!(renderer, cstr!("**"));
            } else {
                LIT!(renderer, cstr!("**"));
            }
        }

        CMARK_NODE_EMPH => {
            // If we have EMPH(EMPH(x)), we need to use *_x_*
            // because **x** is STRONG(x):
            if !(*node).parent.is_null()
                && (*(*node).parent).type_ as cmark_node_type == CMARK_NODE_EMPH
                && (*node).next.is_null()
                && (*node).prev.is_null()
            {
                emph_delim = cstr!("_");
            } else {
                emph_delim = cstr!("*");
            }
            if entering {
                LIT!(renderer, emph_delim);
            } else {
                LIT!(renderer, emph_delim);
            }
        }

        CMARK_NODE_LINK => {
            if is_autolink(node) {
                if entering {
                    LIT!(renderer, cstr!("<"));
                    if strncmp(cmark_node_get_url(node), cstr!("mailto:"), 7) == 0 {
                        LIT!(renderer, cmark_node_get_url(node).add(7));
                    } else {
                        LIT!(renderer, cmark_node_get_url(node));
                    }
                    LIT!(renderer, cstr!(">"));
                    // return signal to skip contents of node...
                    return 0;
                }
            } else {
                if entering {
                    LIT!(renderer, cstr!("["));
                } else {
                    LIT!(renderer, cstr!("]("));
                    OUT!(renderer, cmark_node_get_url(node), false, URL);
                    title = cmark_node_get_title(node);
                    if strlen(title) > 0 {
                        LIT!(renderer, cstr!(" \""));
                        OUT!(renderer, title, false, TITLE);
                        LIT!(renderer, cstr!("\""));
                    }
                    LIT!(renderer, cstr!(")"));
                }
            }
        }

        CMARK_NODE_IMAGE => {
            if entering {
                LIT!(renderer, cstr!("!["));
            } else {
                LIT!(renderer, cstr!("]("));
                OUT!(renderer, cmark_node_get_url(node), false, URL);
                title = cmark_node_get_title(node);
                if strlen(title) > 0 {
                    OUT!(renderer, cstr!(" \""), allow_wrap, LITERAL);
                    OUT!(renderer, title, false, TITLE);
                    LIT!(renderer, cstr!("\""));
                }
                LIT!(renderer, cstr!(")"));
            }
        }

        _ => {
            debug_assert!(false);
        }
    }

    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_render_commonmark(
    root: *mut cmark_node,
    options: c_int,
    mut width: c_int,
) -> *mut c_char {
    if (options & CMARK_OPT_HARDBREAKS) != 0 {
        // disable breaking on width, since it has
        // a different meaning with OPT_HARDBREAKS
        width = 0;
    }
    cmark_render(root, options, width, outc, S_render_node)
}
