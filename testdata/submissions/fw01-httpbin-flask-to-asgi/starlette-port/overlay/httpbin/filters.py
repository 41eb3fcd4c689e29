# -*- coding: utf-8 -*-

"""
httpbin.filters
~~~~~~~~~~~~~~~

Encodings applied to a finished response's body.
"""

import gzip as gzip2
import io
import zlib

import brotli as _brotli


def _encoded(out, data, encoding):
    out.body = data
    out.set('Content-Encoding', encoding)
    out.set('Content-Length', str(len(data)))
    return out


def gzip(out):
    """The response gzip-compressed (level 4)."""
    buf = io.BytesIO()
    with gzip2.GzipFile(mode='wb', compresslevel=4, fileobj=buf) as f:
        f.write(out.body)
    return _encoded(out, buf.getvalue(), 'gzip')


def deflate(out):
    """The response deflate-compressed."""
    d = zlib.compressobj()
    return _encoded(out, d.compress(out.body) + d.flush(), 'deflate')


def brotli(out):
    """The response brotli-compressed."""
    return _encoded(out, _brotli.compress(out.body), 'br')
