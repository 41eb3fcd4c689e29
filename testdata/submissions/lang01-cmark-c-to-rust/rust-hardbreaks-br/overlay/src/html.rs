//! html.c: rendering a cmark_node tree as HTML.
use crate::*;
use std::os::raw::{c_char, c_int};
use std::ptr::null_mut;

extern "C" {
    fn strlen(s: *const c_char) -> usize;
}

const BUFFER_SIZE: usize = 100;

/// A C string literal (NUL-terminated) as `*const c_char`.
macro_rules! html_cs {
    ($s:expr) => {
        concat!($s, "\0").as_ptr() as *const c_char
    };
}

/// snprintf(buffer, sizeof buffer, ...): formats into a fixed buffer,
/// truncating to its size - 1 bytes, always NUL-terminated.
fn html_snprintf(buffer: &mut [u8], args: std::fmt::Arguments) {
    use std::io::Write;
    let n = buffer.len() - 1;
    let pos = {
        let mut cur = std::io::Cursor::new(&mut buffer[..n]);
        let _ = cur.write_fmt(args);
        cur.position() as usize
    };
    buffer[pos] = 0;
}

// Functions to convert cmark_nodes to HTML strings.

unsafe fn escape_html(dest: *mut cmark_strbuf, source: *const u8, length: bufsize_t) {
    houdini_escape_html0(dest, source, length, 0);
}

#[inline]
unsafe fn cr(html: *mut cmark_strbuf) {
    if (*html).size != 0 && *(*html).ptr.offset(((*html).size - 1) as isize) != b'\n' {
        cmark_strbuf_putc(html, b'\n' as c_int);
    }
}

#[repr(C)]
struct render_state {
    html: *mut cmark_strbuf,
    plain: *mut cmark_node,
}

unsafe fn S_render_sourcepos(node: *mut cmark_node, html: *mut cmark_strbuf, options: c_int) {
    let mut buffer = [0u8; BUFFER_SIZE];
    if (CMARK_OPT_SOURCEPOS as c_int & options) != 0 {
        html_snprintf(
            &mut buffer,
            format_args!(
                " data-sourcepos=\"{}:{}-{}:{}\"",
                cmark_node_get_start_line(node),
                cmark_node_get_start_column(node),
                cmark_node_get_end_line(node),
                cmark_node_get_end_column(node)
            ),
        );
        cmark_strbuf_puts(html, buffer.as_ptr() as *const c_char);
    }
}

unsafe fn S_render_node(
    node: *mut cmark_node,
    ev_type: cmark_event_type,
    state: *mut render_state,
    options: c_int,
) -> c_int {
    let parent: *mut cmark_node;
    let grandparent: *mut cmark_node;
    let html: *mut cmark_strbuf = (*state).html;
    let mut start_heading: [u8; 4] = *b"<h0\0";
    let mut end_heading: [u8; 5] = *b"</h0\0";
    let tight: bool;
    let mut buffer = [0u8; BUFFER_SIZE];

    let entering = ev_type == CMARK_EVENT_ENTER;

    if (*state).plain == node {
        // back at original node
        (*state).plain = null_mut();
    }

    if !(*state).plain.is_null() {
        match (*node).type_ as cmark_node_type {
            CMARK_NODE_TEXT | CMARK_NODE_CODE | CMARK_NODE_HTML_INLINE => {
                escape_html(html, (*node).data, (*node).len);
            }

            CMARK_NODE_LINEBREAK | CMARK_NODE_SOFTBREAK => {
                cmark_strbuf_putc(html, b' ' as c_int);
            }

            _ => {}
        }
        return 1;
    }

    match (*node).type_ as cmark_node_type {
        CMARK_NODE_DOCUMENT => {}

        CMARK_NODE_BLOCK_QUOTE => {
            if entering {
                cr(html);
                cmark_strbuf_puts(html, html_cs!("<blockquote"));
                S_render_sourcepos(node, html, options);
                cmark_strbuf_puts(html, html_cs!(">\n"));
            } else {
                cr(html);
                cmark_strbuf_puts(html, html_cs!("</blockquote>\n"));
            }
        }

        CMARK_NODE_LIST => {
            let list_type = (*node).as_.list.list_type as cmark_list_type;
            let start: c_int = (*node).as_.list.start;

            if entering {
                cr(html);
                if list_type == CMARK_BULLET_LIST {
                    cmark_strbuf_puts(html, html_cs!("<ul"));
                    S_render_sourcepos(node, html, options);
                    cmark_strbuf_puts(html, html_cs!(">\n"));
                } else if start == 1 {
                    cmark_strbuf_puts(html, html_cs!("<ol"));
                    S_render_sourcepos(node, html, options);
                    cmark_strbuf_puts(html, html_cs!(">\n"));
                } else {
                    html_snprintf(&mut buffer, format_args!("<ol start=\"{}\"", start));
                    cmark_strbuf_puts(html, buffer.as_ptr() as *const c_char);
                    S_render_sourcepos(node, html, options);
                    cmark_strbuf_puts(html, html_cs!(">\n"));
                }
            } else {
                cmark_strbuf_puts(
                    html,
                    if list_type == CMARK_BULLET_LIST {
                        html_cs!("</ul>\n")
                    } else {
                        html_cs!("</ol>\n")
                    },
                );
            }
        }

        CMARK_NODE_ITEM => {
            if entering {
                cr(html);
                cmark_strbuf_puts(html, html_cs!("<li"));
                S_render_sourcepos(node, html, options);
                cmark_strbuf_putc(html, b'>' as c_int);
            } else {
                cmark_strbuf_puts(html, html_cs!("</li>\n"));
            }
        }

        CMARK_NODE_HEADING => {
            if entering {
                cr(html);
                start_heading[2] = (b'0' as c_int).wrapping_add((*node).as_.heading.level) as u8;
                cmark_strbuf_puts(html, start_heading.as_ptr() as *const c_char);
                S_render_sourcepos(node, html, options);
                cmark_strbuf_putc(html, b'>' as c_int);
            } else {
                end_heading[3] = (b'0' as c_int).wrapping_add((*node).as_.heading.level) as u8;
                cmark_strbuf_puts(html, end_heading.as_ptr() as *const c_char);
                cmark_strbuf_puts(html, html_cs!(">\n"));
            }
        }

        CMARK_NODE_CODE_BLOCK => {
            cr(html);

            let info: *mut u8 = (*node).as_.code.info;
            if info.is_null() || *info == 0 {
                cmark_strbuf_puts(html, html_cs!("<pre"));
                S_render_sourcepos(node, html, options);
                cmark_strbuf_puts(html, html_cs!("><code>"));
            } else {
                let mut first_tag: bufsize_t = 0;
                while *info.offset(first_tag as isize) != 0
                    && cmark_isspace(*info.offset(first_tag as isize) as c_char) == 0
                {
                    first_tag += 1;
                }

                cmark_strbuf_puts(html, html_cs!("<pre"));
                S_render_sourcepos(node, html, options);
                cmark_strbuf_puts(html, html_cs!("><code class=\"language-"));
                escape_html(html, info, first_tag);
                cmark_strbuf_puts(html, html_cs!("\">"));
            }

            escape_html(html, (*node).data, (*node).len);
            cmark_strbuf_puts(html, html_cs!("</code></pre>\n"));
        }

        CMARK_NODE_HTML_BLOCK => {
            cr(html);
            if (options & CMARK_OPT_UNSAFE as c_int) == 0 {
                cmark_strbuf_puts(html, html_cs!("<!-- raw HTML omitted -->"));
            } else {
                cmark_strbuf_put(html, (*node).data, (*node).len);
            }
            cr(html);
        }

        CMARK_NODE_CUSTOM_BLOCK => {
            let block: *mut u8 = if entering {
                (*node).as_.custom.on_enter
            } else {
                (*node).as_.custom.on_exit
            };
            cr(html);
            if !block.is_null() {
                cmark_strbuf_puts(html, block as *const c_char);
            }
            cr(html);
        }

        CMARK_NODE_THEMATIC_BREAK => {
            cr(html);
            cmark_strbuf_puts(html, html_cs!("<hr"));
            S_render_sourcepos(node, html, options);
            cmark_strbuf_puts(html, html_cs!(" />\n"));
        }

        CMARK_NODE_PARAGRAPH => {
            parent = cmark_node_parent(node);
            grandparent = cmark_node_parent(parent);
            if !grandparent.is_null() && (*grandparent).type_ as cmark_node_type == CMARK_NODE_LIST {
                tight = (*grandparent).as_.list.tight;
            } else {
                tight = false;
            }
            if !tight {
                if entering {
                    cr(html);
                    cmark_strbuf_puts(html, html_cs!("<p"));
                    S_render_sourcepos(node, html, options);
                    cmark_strbuf_putc(html, b'>' as c_int);
                } else {
                    cmark_strbuf_puts(html, html_cs!("</p>\n"));
                }
            }
        }

        CMARK_NODE_TEXT => {
            escape_html(html, (*node).data, (*node).len);
        }

        CMARK_NODE_LINEBREAK => {
            cmark_strbuf_puts(html, html_cs!("<br />\n"));
        }

        CMARK_NODE_SOFTBREAK => {
            if (options & CMARK_OPT_HARDBREAKS as c_int) != 0 {
                cmark_strbuf_puts(html, html_cs!("<br>\n"));
            } else if (options & CMARK_OPT_NOBREAKS as c_int) != 0 {
                cmark_strbuf_putc(html, b' ' as c_int);
            } else {
                cmark_strbuf_putc(html, b'\n' as c_int);
            }
        }

        CMARK_NODE_CODE => {
            cmark_strbuf_puts(html, html_cs!("<code>"));
            escape_html(html, (*node).data, (*node).len);
            cmark_strbuf_puts(html, html_cs!("</code>"));
        }

        CMARK_NODE_HTML_INLINE => {
            if (options & CMARK_OPT_UNSAFE as c_int) == 0 {
                cmark_strbuf_puts(html, html_cs!("<!-- raw HTML omitted -->"));
            } else {
                cmark_strbuf_put(html, (*node).data, (*node).len);
            }
        }

        CMARK_NODE_CUSTOM_INLINE => {
            let block: *mut u8 = if entering {
                (*node).as_.custom.on_enter
            } else {
                (*node).as_.custom.on_exit
            };
            if !block.is_null() {
                cmark_strbuf_puts(html, block as *const c_char);
            }
        }

        CMARK_NODE_STRONG => {
            if entering {
                cmark_strbuf_puts(html, html_cs!("<strong>"));
            } else {
                cmark_strbuf_puts(html, html_cs!("</strong>"));
            }
        }

        CMARK_NODE_EMPH => {
            if entering {
                cmark_strbuf_puts(html, html_cs!("<em>"));
            } else {
                cmark_strbuf_puts(html, html_cs!("</em>"));
            }
        }

        CMARK_NODE_LINK => {
            if entering {
                cmark_strbuf_puts(html, html_cs!("<a href=\""));
                let url: *mut u8 = (*node).as_.link.url;
                if !url.is_null()
                    && ((options & CMARK_OPT_UNSAFE as c_int) != 0 || _scan_dangerous_url(url) == 0)
                {
                    houdini_escape_href(html, url, strlen(url as *const c_char) as bufsize_t);
                }
                let title: *mut u8 = (*node).as_.link.title;
                if !title.is_null() {
                    cmark_strbuf_puts(html, html_cs!("\" title=\""));
                    escape_html(html, title, strlen(title as *const c_char) as bufsize_t);
                }
                cmark_strbuf_puts(html, html_cs!("\">"));
            } else {
                cmark_strbuf_puts(html, html_cs!("</a>"));
            }
        }

        CMARK_NODE_IMAGE => {
            if entering {
                cmark_strbuf_puts(html, html_cs!("<img src=\""));
                let url: *mut u8 = (*node).as_.link.url;
                if !url.is_null()
                    && ((options & CMARK_OPT_UNSAFE as c_int) != 0 || _scan_dangerous_url(url) == 0)
                {
                    houdini_escape_href(html, url, strlen(url as *const c_char) as bufsize_t);
                }
                cmark_strbuf_puts(html, html_cs!("\" alt=\""));
                (*state).plain = node;
            } else {
                let title: *mut u8 = (*node).as_.link.title;
                if !title.is_null() {
                    cmark_strbuf_puts(html, html_cs!("\" title=\""));
                    escape_html(html, title, strlen(title as *const c_char) as bufsize_t);
                }

                cmark_strbuf_puts(html, html_cs!("\" />"));
            }
        }

        _ => {
            // assert(false): compiled out (NDEBUG) in the reference build.
        }
    }

    // cmark_strbuf_putc(html, 'x');
    1
}

#[no_mangle]
pub unsafe extern "C" fn cmark_render_html(root: *mut cmark_node, options: c_int) -> *mut c_char {
    let result: *mut c_char;
    let mut html: cmark_strbuf = CMARK_BUF_INIT((*root).mem);
    let html_p: *mut cmark_strbuf = &mut html;
    let mut ev_type: cmark_event_type;
    let mut cur: *mut cmark_node;
    let mut state = render_state {
        html: html_p,
        plain: null_mut(),
    };
    let iter: *mut cmark_iter = cmark_iter_new(root);

    loop {
        ev_type = cmark_iter_next(iter);
        if ev_type == CMARK_EVENT_DONE {
            break;
        }
        cur = cmark_iter_get_node(iter);
        S_render_node(cur, ev_type, &mut state, options);
    }
    result = cmark_strbuf_detach(html_p) as *mut c_char;

    cmark_iter_free(iter);
    result
}
