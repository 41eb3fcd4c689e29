//! man.c: rendering a cmark_node tree as groff man.
use crate::*;
use std::os::raw::{c_char, c_int, c_void};

/// A C string literal (NUL-terminated) as `*const c_char`.
macro_rules! man_cs {
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
#[allow(unused_macros)]
macro_rules! BLANKLINE {
    ($renderer:expr) => {
        ((*$renderer).blankline)($renderer)
    };
}
const LIST_NUMBER_SIZE: usize = 20;

/// snprintf(buffer, sizeof buffer, ...): formats into a fixed buffer,
/// truncating to its size - 1 bytes, always NUL-terminated.
fn man_snprintf(buffer: &mut [u8], args: std::fmt::Arguments) {
    use std::io::Write;
    let n = buffer.len() - 1;
    let pos = {
        let mut cur = std::io::Cursor::new(&mut buffer[..n]);
        let _ = cur.write_fmt(args);
        cur.position() as usize
    };
    buffer[pos] = 0;
}

// Functions to convert cmark_nodes to groff man strings.
unsafe fn S_outc(renderer: *mut cmark_renderer, escape: cmark_escaping, c: i32, nextc: u8) {
    let _ = nextc;

    if escape == LITERAL {
        cmark_render_code_point(renderer, c as u32);
        return;
    }

    match c {
        46 => {
            if (*renderer).begin_line {
                cmark_render_ascii(renderer, man_cs!("\\&."));
            } else {
                cmark_render_code_point(renderer, c as u32);
            }
        }
        39 => {
            if (*renderer).begin_line {
                cmark_render_ascii(renderer, man_cs!("\\&'"));
            } else {
                cmark_render_code_point(renderer, c as u32);
            }
        }
        45 => {
            cmark_render_ascii(renderer, man_cs!("\\-"));
        }
        92 => {
            cmark_render_ascii(renderer, man_cs!("\\e"));
        }
        8216 => {
            // left single quote
            cmark_render_ascii(renderer, man_cs!("\\[oq]"));
        }
        8217 => {
            // right single quote
            cmark_render_ascii(renderer, man_cs!("\\[cq]"));
        }
        8220 => {
            // left double quote
            cmark_render_ascii(renderer, man_cs!("\\[lq]"));
        }
        8221 => {
            // right double quote
            cmark_render_ascii(renderer, man_cs!("\\[rq]"));
        }
        8212 => {
            // em dash
            cmark_render_ascii(renderer, man_cs!("\\[em]"));
        }
        8211 => {
            // en dash
            cmark_render_ascii(renderer, man_cs!("\\[en]"));
        }
        _ => {
            cmark_render_code_point(renderer, c as u32);
        }
    }
}

unsafe fn S_render_node(
    renderer: *mut cmark_renderer,
    node: *mut cmark_node,
    ev_type: cmark_event_type,
    options: c_int,
) -> c_int {
    let mut tmp: *mut cmark_node;
    let mut list_number: c_int;
    let entering = ev_type == CMARK_EVENT_ENTER;
    let allow_wrap = (*renderer).width > 0 && (CMARK_OPT_NOBREAKS as c_int & options) == 0;
    let mut new_block_number: *mut block_number;
    let allocator: *mut cmark_mem = cmark_get_default_mem_allocator();

    // avoid unused parameter error:
    let _ = options;

    // indent inside nested lists
    if !(*renderer).block_number_in_list_item.is_null()
        && ((*node).type_ as cmark_node_type) < CMARK_NODE_FIRST_INLINE
    {
        if entering {
            (*(*renderer).block_number_in_list_item).number += 1;
            if (*(*renderer).block_number_in_list_item).number == 2 {
                CR!(renderer);
                LIT!(renderer, man_cs!(".RS")); // indent
                CR!(renderer);
            }
        }
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_DOCUMENT => {}

        CMARK_NODE_BLOCK_QUOTE => {
            if entering {
                CR!(renderer);
                LIT!(renderer, man_cs!(".RS"));
                CR!(renderer);
            } else {
                CR!(renderer);
                LIT!(renderer, man_cs!(".RE"));
                CR!(renderer);
            }
        }

        CMARK_NODE_LIST => {}

        CMARK_NODE_ITEM => {
            if entering {
                new_block_number = ((*allocator).calloc)(1, std::mem::size_of::<block_number>())
                    as *mut block_number;
                (*new_block_number).number = 0;
                (*new_block_number).parent = (*renderer).block_number_in_list_item;
                (*renderer).block_number_in_list_item = new_block_number;
                CR!(renderer);
                LIT!(renderer, man_cs!(".IP "));
                if cmark_node_get_list_type((*node).parent) == CMARK_BULLET_LIST {
                    LIT!(renderer, man_cs!("\\[bu] 2"));
                } else {
                    list_number = cmark_node_get_list_start((*node).parent);
                    tmp = node;
                    while !(*tmp).prev.is_null() {
                        tmp = (*tmp).prev;
                        list_number = list_number.wrapping_add(1);
                    }
                    let mut list_number_s = [0u8; LIST_NUMBER_SIZE];
                    man_snprintf(&mut list_number_s, format_args!("\"{}.\" 4", list_number));
                    LIT!(renderer, list_number_s.as_ptr() as *const c_char);
                }
                CR!(renderer);
            } else {
                if !(*renderer).block_number_in_list_item.is_null() {
                    if (*(*renderer).block_number_in_list_item).number >= 2 {
                        CR!(renderer);
                        LIT!(renderer, man_cs!(".RE")); // de-indent
                    }
                    new_block_number = (*renderer).block_number_in_list_item;
                    (*renderer).block_number_in_list_item =
                        (*(*renderer).block_number_in_list_item).parent;
                    ((*allocator).free)(new_block_number as *mut c_void);
                }
                CR!(renderer);
            }
        }

        CMARK_NODE_HEADING => {
            if entering {
                CR!(renderer);
                LIT!(
                    renderer,
                    if cmark_node_get_heading_level(node) == 1 {
                        man_cs!(".SH")
                    } else {
                        man_cs!(".SS")
                    }
                );
                CR!(renderer);
            } else {
                CR!(renderer);
            }
        }

        CMARK_NODE_CODE_BLOCK => {
            CR!(renderer);
            LIT!(renderer, man_cs!(".IP\n.nf\n\\f[C]\n"));
            OUT!(renderer, cmark_node_get_literal(node), false, NORMAL);
            CR!(renderer);
            LIT!(renderer, man_cs!("\\f[]\n.fi"));
            CR!(renderer);
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
            CR!(renderer);
            LIT!(renderer, man_cs!(".PP\n  *  *  *  *  *"));
            CR!(renderer);
        }

        CMARK_NODE_PARAGRAPH => {
            if entering {
                // no blank line if first paragraph in list:
                if !(*node).parent.is_null()
                    && (*(*node).parent).type_ as cmark_node_type == CMARK_NODE_ITEM
                    && (*node).prev.is_null()
                {
                    // no blank line or .PP
                } else {
                    CR!(renderer);
                    LIT!(renderer, man_cs!(".PP"));
                    CR!(renderer);
                }
            } else {
                CR!(renderer);
            }
        }

        CMARK_NODE_TEXT => {
            OUT!(renderer, cmark_node_get_literal(node), allow_wrap, NORMAL);
        }

        CMARK_NODE_LINEBREAK => {
            LIT!(renderer, man_cs!(".PD 0\n.P\n.PD"));
            CR!(renderer);
        }

        CMARK_NODE_SOFTBREAK => {
            if (options & CMARK_OPT_HARDBREAKS as c_int) != 0 {
                LIT!(renderer, man_cs!(".PD 0\n.P\n.PD"));
                CR!(renderer);
            } else if (*renderer).width == 0 && (CMARK_OPT_NOBREAKS as c_int & options) == 0 {
                CR!(renderer);
            } else {
                OUT!(renderer, man_cs!(" "), allow_wrap, LITERAL);
            }
        }

        CMARK_NODE_CODE => {
            LIT!(renderer, man_cs!("\\f[C]"));
            OUT!(renderer, cmark_node_get_literal(node), allow_wrap, NORMAL);
            LIT!(renderer, man_cs!("\\f[]"));
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
                LIT!(renderer, man_cs!("\\f[B]"));
            } else {
                LIT!(renderer, man_cs!("\\f[]"));
            }
        }

        CMARK_NODE_EMPH => {
            if entering {
                LIT!(renderer, man_cs!("\\f[I]"));
            } else {
                LIT!(renderer, man_cs!("\\f[]"));
            }
        }

        CMARK_NODE_LINK => {
            if !entering {
                LIT!(renderer, man_cs!(" ("));
                OUT!(renderer, cmark_node_get_url(node), allow_wrap, URL);
                LIT!(renderer, man_cs!(")"));
            }
        }

        CMARK_NODE_IMAGE => {
            if entering {
                LIT!(renderer, man_cs!("[IMAGE: "));
            } else {
                LIT!(renderer, man_cs!("]"));
            }
        }

        _ => {
            // assert(false): compiled out (NDEBUG) in the reference build.
        }
    }

    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_render_man(root: *mut cmark_node, options: c_int, width: c_int) -> *mut c_char {
    cmark_render(root, options, width, S_outc, S_render_node)
}
