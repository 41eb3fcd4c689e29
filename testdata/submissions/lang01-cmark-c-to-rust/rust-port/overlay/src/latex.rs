//! latex.c: render a cmark_node tree as LaTeX.
use crate::*;
use std::os::raw::{c_char, c_int};

extern "C" {
    fn strlen(s: *const c_char) -> usize;
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

const LIST_NUMBER_STRING_SIZE: usize = 20;

// snprintf(dst, size, ...) for an already formatted string: copies at most
// size - 1 bytes and always NUL-terminates.
fn S_snprintf_latex(dst: &mut [u8], s: &str) {
    let bytes = s.as_bytes();
    let n = if bytes.len() < dst.len() - 1 {
        bytes.len()
    } else {
        dst.len() - 1
    };
    dst[..n].copy_from_slice(&bytes[..n]);
    dst[n] = 0;
}

#[inline]
unsafe fn outc(renderer: *mut cmark_renderer, escape: cmark_escaping, c: i32, nextc: u8) {
    if escape == LITERAL {
        cmark_render_code_point(renderer, c as u32);
        return;
    }

    match c {
        // '{' '}' '#' '%' '&'
        123 | 125 | 35 | 37 | 38 => {
            cmark_render_ascii(renderer, cstr!("\\"));
            cmark_render_code_point(renderer, c as u32);
        }
        // '$' '_'
        36 | 95 => {
            if escape == NORMAL {
                cmark_render_ascii(renderer, cstr!("\\"));
            }
            cmark_render_code_point(renderer, c as u32);
        }
        // '-'
        45 => {
            if nextc == 45 {
                // prevent ligature
                cmark_render_ascii(renderer, cstr!("-{}"));
            } else {
                cmark_render_ascii(renderer, cstr!("-"));
            }
        }
        // '~'
        126 => {
            if escape == NORMAL {
                cmark_render_ascii(renderer, cstr!("\\textasciitilde{}"));
            } else {
                cmark_render_code_point(renderer, c as u32);
            }
        }
        // '^'
        94 => {
            cmark_render_ascii(renderer, cstr!("\\^{}"));
        }
        // '\\'
        92 => {
            if escape == URL {
                // / acts as path sep even on windows:
                cmark_render_ascii(renderer, cstr!("/"));
            } else {
                cmark_render_ascii(renderer, cstr!("\\textbackslash{}"));
            }
        }
        // '|'
        124 => {
            cmark_render_ascii(renderer, cstr!("\\textbar{}"));
        }
        // '<'
        60 => {
            cmark_render_ascii(renderer, cstr!("\\textless{}"));
        }
        // '>'
        62 => {
            cmark_render_ascii(renderer, cstr!("\\textgreater{}"));
        }
        // '[' ']'
        91 | 93 => {
            cmark_render_ascii(renderer, cstr!("{"));
            cmark_render_code_point(renderer, c as u32);
            cmark_render_ascii(renderer, cstr!("}"));
        }
        // '"'
        34 => {
            cmark_render_ascii(renderer, cstr!("\\textquotedbl{}"));
            // requires \usepackage[T1]{fontenc}
        }
        // '\''
        39 => {
            cmark_render_ascii(renderer, cstr!("\\textquotesingle{}"));
            // requires \usepackage{textcomp}
        }
        // nbsp
        160 => {
            cmark_render_ascii(renderer, cstr!("~"));
        }
        // hellip
        8230 => {
            cmark_render_ascii(renderer, cstr!("\\ldots{}"));
        }
        // lsquo
        8216 => {
            if escape == NORMAL {
                cmark_render_ascii(renderer, cstr!("`"));
            } else {
                cmark_render_code_point(renderer, c as u32);
            }
        }
        // rsquo
        8217 => {
            if escape == NORMAL {
                cmark_render_ascii(renderer, cstr!("'"));
            } else {
                cmark_render_code_point(renderer, c as u32);
            }
        }
        // ldquo
        8220 => {
            if escape == NORMAL {
                cmark_render_ascii(renderer, cstr!("``"));
            } else {
                cmark_render_code_point(renderer, c as u32);
            }
        }
        // rdquo
        8221 => {
            if escape == NORMAL {
                cmark_render_ascii(renderer, cstr!("''"));
            } else {
                cmark_render_code_point(renderer, c as u32);
            }
        }
        // emdash
        8212 => {
            if escape == NORMAL {
                cmark_render_ascii(renderer, cstr!("---"));
            } else {
                cmark_render_code_point(renderer, c as u32);
            }
        }
        // endash
        8211 => {
            if escape == NORMAL {
                cmark_render_ascii(renderer, cstr!("--"));
            } else {
                cmark_render_code_point(renderer, c as u32);
            }
        }
        _ => {
            cmark_render_code_point(renderer, c as u32);
        }
    }
}

type link_type = u32;
const NO_LINK: link_type = 0;
const URL_AUTOLINK: link_type = 1;
const EMAIL_AUTOLINK: link_type = 2;
const NORMAL_LINK: link_type = 3;
const INTERNAL_LINK: link_type = 4;

unsafe fn get_link_type(node: *mut cmark_node) -> link_type {
    let title_len: usize;
    let url_len: usize;
    let link_text: *mut cmark_node;
    let mut realurl: *mut c_char;
    let mut realurllen: i32;
    let mut isemail = false;

    if (*node).type_ as cmark_node_type != CMARK_NODE_LINK {
        return NO_LINK;
    }

    let url: *const c_char = cmark_node_get_url(node);
    let mut url_chunk: cmark_chunk = cmark_chunk_literal(url);

    if !url.is_null() && *url == b'#' as c_char {
        return INTERNAL_LINK;
    }

    url_len = strlen(url);
    if url_len == 0 || scan_scheme(&mut url_chunk, 0) == 0 {
        return NO_LINK;
    }

    let title: *const c_char = cmark_node_get_title(node);
    title_len = strlen(title);
    // if it has a title, we can't treat it as an autolink:
    if title_len == 0 {
        link_text = (*node).first_child;
        cmark_consolidate_text_nodes(link_text);

        if link_text.is_null() {
            return NO_LINK;
        }

        realurl = url as *mut c_char;
        realurllen = url_len as i32;
        if strncmp(realurl, cstr!("mailto:"), 7) == 0 {
            realurl = realurl.add(7);
            realurllen -= 7;
            isemail = true;
        }
        if realurllen == (*link_text).len
            && strncmp(
                realurl,
                (*link_text).data as *const c_char,
                (*link_text).len as usize,
            ) == 0
        {
            if isemail {
                return EMAIL_AUTOLINK;
            } else {
                return URL_AUTOLINK;
            }
        }
    }

    NORMAL_LINK
}

unsafe fn S_get_enumlevel(node: *mut cmark_node) -> i32 {
    let mut enumlevel: i32 = 0;
    let mut tmp: *mut cmark_node = node;
    while !tmp.is_null() {
        if (*tmp).type_ as cmark_node_type == CMARK_NODE_LIST
            && cmark_node_get_list_type(node) == CMARK_ORDERED_LIST
        {
            enumlevel += 1;
        }
        tmp = (*tmp).parent;
    }
    enumlevel
}

unsafe fn S_render_node(
    renderer: *mut cmark_renderer,
    node: *mut cmark_node,
    ev_type: cmark_event_type,
    options: i32,
) -> i32 {
    let mut list_number: i32;
    let mut enumlevel: i32;
    let mut list_number_string = [0u8; LIST_NUMBER_STRING_SIZE];
    let entering = ev_type == CMARK_EVENT_ENTER;
    let mut list_type: cmark_list_type;
    let allow_wrap = (*renderer).width > 0 && (CMARK_OPT_NOBREAKS & options) == 0;

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_DOCUMENT => {}

        CMARK_NODE_BLOCK_QUOTE => {
            if entering {
                LIT!(renderer, cstr!("\\begin{quote}"));
                CR!(renderer);
            } else {
                LIT!(renderer, cstr!("\\end{quote}"));
                BLANKLINE!(renderer);
            }
        }

        CMARK_NODE_LIST => {
            list_type = cmark_node_get_list_type(node);
            if entering {
                LIT!(renderer, cstr!("\\begin{"));
                LIT!(
                    renderer,
                    if list_type == CMARK_ORDERED_LIST {
                        cstr!("enumerate")
                    } else {
                        cstr!("itemize")
                    }
                );
                LIT!(renderer, cstr!("}"));
                CR!(renderer);
                list_number = cmark_node_get_list_start(node);
                if list_number > 1 {
                    enumlevel = S_get_enumlevel(node);
                    // latex normally supports only five levels
                    if enumlevel >= 1 && enumlevel <= 5 {
                        S_snprintf_latex(&mut list_number_string, &format!("{}", list_number));
                        LIT!(renderer, cstr!("\\setcounter{enum"));
                        match enumlevel {
                            1 => LIT!(renderer, cstr!("i")),
                            2 => LIT!(renderer, cstr!("ii")),
                            3 => LIT!(renderer, cstr!("iii")),
                            4 => LIT!(renderer, cstr!("iv")),
                            5 => LIT!(renderer, cstr!("v")),
                            _ => LIT!(renderer, cstr!("i")),
                        }
                        LIT!(renderer, cstr!("}{"));
                        OUT!(
                            renderer,
                            list_number_string.as_ptr() as *const c_char,
                            false,
                            NORMAL
                        );
                        LIT!(renderer, cstr!("}"));
                    }
                    CR!(renderer);
                }
            } else {
                LIT!(renderer, cstr!("\\end{"));
                LIT!(
                    renderer,
                    if list_type == CMARK_ORDERED_LIST {
                        cstr!("enumerate")
                    } else {
                        cstr!("itemize")
                    }
                );
                LIT!(renderer, cstr!("}"));
                BLANKLINE!(renderer);
            }
        }

        CMARK_NODE_ITEM => {
            if entering {
                LIT!(renderer, cstr!("\\item "));
            } else {
                CR!(renderer);
            }
        }

        CMARK_NODE_HEADING => {
            if entering {
                match cmark_node_get_heading_level(node) {
                    1 => LIT!(renderer, cstr!("\\section")),
                    2 => LIT!(renderer, cstr!("\\subsection")),
                    3 => LIT!(renderer, cstr!("\\subsubsection")),
                    4 => LIT!(renderer, cstr!("\\paragraph")),
                    5 => LIT!(renderer, cstr!("\\subparagraph")),
                    _ => {}
                }
                LIT!(renderer, cstr!("{"));
            } else {
                LIT!(renderer, cstr!("}"));
                BLANKLINE!(renderer);
            }
        }

        CMARK_NODE_CODE_BLOCK => {
            CR!(renderer);
            LIT!(renderer, cstr!("\\begin{verbatim}"));
            CR!(renderer);
            OUT!(renderer, cmark_node_get_literal(node), false, LITERAL);
            CR!(renderer);
            LIT!(renderer, cstr!("\\end{verbatim}"));
            BLANKLINE!(renderer);
        }

        CMARK_NODE_HTML_BLOCK => {}

        CMARK_NODE_CUSTOM_BLOCK => {
            CR!(renderer);
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
            CR!(renderer);
        }

        CMARK_NODE_THEMATIC_BREAK => {
            BLANKLINE!(renderer);
            LIT!(
                renderer,
                cstr!("\\begin{center}\\rule{0.5\\linewidth}{\\linethickness}\\end{center}")
            );
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
            LIT!(renderer, cstr!("\\\\"));
            CR!(renderer);
        }

        CMARK_NODE_SOFTBREAK => {
            if (options & CMARK_OPT_HARDBREAKS) != 0 {
                LIT!(renderer, cstr!("\\\\"));
                CR!(renderer);
            } else if (*renderer).width == 0 && (CMARK_OPT_NOBREAKS & options) == 0 {
                CR!(renderer);
            } else {
                OUT!(renderer, cstr!(" "), allow_wrap, NORMAL);
            }
        }

        CMARK_NODE_CODE => {
            LIT!(renderer, cstr!("\\texttt{"));
            OUT!(renderer, cmark_node_get_literal(node), false, NORMAL);
            LIT!(renderer, cstr!("}"));
        }

        CMARK_NODE_HTML_INLINE => {}

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
                LIT!(renderer, cstr!("\\textbf{"));
            } else {
                LIT!(renderer, cstr!("}"));
            }
        }

        CMARK_NODE_EMPH => {
            if entering {
                LIT!(renderer, cstr!("\\emph{"));
            } else {
                LIT!(renderer, cstr!("}"));
            }
        }

        CMARK_NODE_LINK => {
            if entering {
                let url: *const c_char = cmark_node_get_url(node);
                // requires \usepackage{hyperref}
                match get_link_type(node) {
                    URL_AUTOLINK => {
                        LIT!(renderer, cstr!("\\url{"));
                        OUT!(renderer, url, false, URL);
                        LIT!(renderer, cstr!("}"));
                        return 0; // Don't process further nodes to avoid double-rendering artefacts
                    }
                    EMAIL_AUTOLINK => {
                        LIT!(renderer, cstr!("\\href{"));
                        OUT!(renderer, url, false, URL);
                        LIT!(renderer, cstr!("}\\nolinkurl{"));
                    }
                    NORMAL_LINK => {
                        LIT!(renderer, cstr!("\\href{"));
                        OUT!(renderer, url, false, URL);
                        LIT!(renderer, cstr!("}{"));
                    }
                    INTERNAL_LINK => {
                        LIT!(renderer, cstr!("\\protect\\hyperlink{"));
                        OUT!(renderer, url.add(1), false, URL);
                        LIT!(renderer, cstr!("}{"));
                    }
                    NO_LINK => {
                        LIT!(renderer, cstr!("{")); // error?
                    }
                    _ => {}
                }
            } else {
                LIT!(renderer, cstr!("}"));
            }
        }

        CMARK_NODE_IMAGE => {
            if entering {
                LIT!(renderer, cstr!("\\protect\\includegraphics{"));
                // requires \include{graphicx}
                OUT!(renderer, cmark_node_get_url(node), false, URL);
                LIT!(renderer, cstr!("}"));
                return 0;
            }
        }

        _ => {
            debug_assert!(false);
        }
    }

    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_render_latex(
    root: *mut cmark_node,
    options: c_int,
    width: c_int,
) -> *mut c_char {
    cmark_render(root, options, width, outc, S_render_node)
}
