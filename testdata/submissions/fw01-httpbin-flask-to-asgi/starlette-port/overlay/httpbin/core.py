# -*- coding: utf-8 -*-

"""
httpbin.core
~~~~~~~~~~~~

This module provides the core HttpBin experience, as an ASGI application
on Starlette: `python3 -m httpbin.core --host H --port P` serves it with
uvicorn.
"""

import argparse
import asyncio
import base64
import json
import os
import random
import uuid
from email.utils import formatdate
from urllib.parse import quote, quote_plus

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import StreamingResponse
from starlette.routing import Match, Route

from . import filters
from .helpers import (ANGRY_ASCII, ROBOT_TXT, TEXT, Out, Req, check_basic_auth, check_digest_auth,
                      digest_challenge, get_dict, get_headers, get_request_range, json_out,
                      method_not_allowed, next_stale_after_value, not_found, parse_digest,
                      parse_multi_value_header, redirect, status_code)
from .structures import CaseInsensitiveDict
from .utils import weighted_choice

ENV_COOKIES = ('_gauges_unique', '_gauges_unique_year', '_gauges_unique_month', '_gauges_unique_day',
               '_gauges_unique_hour', '__utmz', '__utma', '__utmb')

tmpl_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'templates')
templates = Environment(loader=FileSystemLoader(tmpl_dir), autoescape=select_autoescape(['html', 'xml']))

ROUTES = []


def route(path, methods=('GET',)):
    """Registers an async handler(req, **params) -> Out as a Starlette route
    named after the handler; GET routes answer HEAD too, and every route
    answers OPTIONS with its Allow list."""
    allowed = set(methods) | {'OPTIONS'}
    if 'GET' in allowed:
        allowed.add('HEAD')

    def register(handler):
        async def endpoint(request):
            req = await read_request(request)
            merged = merged_redirect(req)
            if merged is not None:
                return finish(req, merged)
            if req.method == 'OPTIONS':
                out = Out(b'')
                out.set('Allow', ', '.join(sorted(allowed)))
            else:
                out = await handler(req, **request.path_params)
            return finish(req, out)
        ROUTES.append(Route(path, endpoint, methods=sorted(allowed), name=handler.__name__))
        return handler
    return register


async def read_request(request):
    body = await request.body()
    form, files = [], []
    ct = (request.headers.get('content-type') or '').split(';')[0].strip().lower()
    if ct in ('application/x-www-form-urlencoded', 'multipart/form-data'):
        parsed = await request.form()
        for k, v in parsed.multi_items():
            if hasattr(v, 'read'):
                files.append((k, await v.read(), v.content_type))
            else:
                form.append((k, v))
    return Req(request.scope, body, form, files)


def finish(req, out):
    """CORS on every answer, the preflight's headers on OPTIONS."""
    if isinstance(out, StreamingResponse):
        set_h = lambda k, v: out.headers.__setitem__(k, v)
    else:
        set_h = out.set
    set_h('Access-Control-Allow-Origin', req.headers.get('Origin', '*'))
    set_h('Access-Control-Allow-Credentials', 'true')
    if req.method == 'OPTIONS':
        set_h('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, PATCH, OPTIONS')
        set_h('Access-Control-Max-Age', '3600')
        if req.headers.get('Access-Control-Request-Headers') is not None:
            set_h('Access-Control-Allow-Headers', req.headers['Access-Control-Request-Headers'])
    if isinstance(out, StreamingResponse):
        return out
    return out.to_asgi(head=req.method == 'HEAD')


def merged_redirect(req):
    """A path with doubled slashes that names a route once merged is
    redirected there (308), as the service always did."""
    if '//' not in req.path:
        return None
    merged = '/' + '/'.join(p for p in req.path.split('/') if p)
    if req.path.endswith('/') and merged != '/':
        merged += '/'
    scope = dict(req.scope, path=merged)
    if any(r.matches(scope)[0] != Match.NONE for r in ROUTES):
        location = req.external(quote(merged, safe="/:$!'()*+,;@")) + ('?' + req.query_string if req.query_string else '')
        return redirect(location, status=308)
    return None


def url_for(name, **params):
    r = next(r for r in ROUTES if r.name == name)
    path_names = set(r.param_convertors)
    path = str(starlette_app.url_path_for(name, **{k: quote(str(v), safe="/:$!'()*+,;") for k, v in params.items() if k in path_names}))
    query = [(k, v) for k, v in params.items() if k not in path_names]
    if query:
        path += '?' + '&'.join('%s=%s' % (quote_plus(str(k), safe="$!'()*,;"), quote_plus(str(v), safe="$!'()*,;"))
                               for k, v in query)
    return path


def render(name, **context):
    return templates.get_template(name).render(url_for=url_for, **context)


def stream(req, gen, headers, status=200):
    return StreamingResponse(gen, status_code=status, headers=headers)


# ------
# Routes
# ------

@route('/')
async def view_landing_page(req):
    return Out(render('index.html', tracking_enabled='HTTPBIN_TRACKING' in os.environ))


@route('/html')
async def view_html_page(req):
    return Out(render('moby.html'))


@route('/robots.txt')
async def view_robots_page(req):
    return Out(ROBOT_TXT, content_type='text/plain')


@route('/deny')
async def view_deny_page(req):
    return Out(ANGRY_ASCII, content_type='text/plain')


@route('/ip')
async def view_origin(req):
    return json_out({'origin': req.headers.get('X-Forwarded-For', req.remote_addr)})


@route('/uuid')
async def view_uuid(req):
    return json_out({'uuid': str(uuid.uuid4())})


@route('/headers')
async def view_headers(req):
    return json_out(get_dict(req, 'headers'))


@route('/user-agent')
async def view_user_agent(req):
    return json_out({'user-agent': get_headers(req)['user-agent']})


@route('/get')
async def view_get(req):
    return json_out(get_dict(req, 'url', 'args', 'headers', 'origin'))


ANY = ('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'TRACE')


@route('/anything', ANY)
async def view_anything(req, anything=None):
    return json_out(get_dict(req, 'url', 'args', 'headers', 'origin', 'method', 'form', 'data', 'files', 'json'))


route('/anything/{anything:path}', ANY)(view_anything)
ROUTES[-1].name = 'view_anything_path'


def _body_route(path, method):
    async def handler(req):
        return json_out(get_dict(req, 'url', 'args', 'form', 'data', 'origin', 'headers', 'files', 'json'))
    handler.__name__ = 'view_' + method.lower()
    route(path, (method,))(handler)


_body_route('/post', 'POST')
_body_route('/put', 'PUT')
_body_route('/patch', 'PATCH')
_body_route('/delete', 'DELETE')


@route('/gzip')
async def view_gzip_encoded_content(req):
    return filters.gzip(json_out(get_dict(req, 'origin', 'headers', method=req.method, gzipped=True)))


@route('/deflate')
async def view_deflate_encoded_content(req):
    return filters.deflate(json_out(get_dict(req, 'origin', 'headers', method=req.method, deflated=True)))


@route('/brotli')
async def view_brotli_encoded_content(req):
    return filters.brotli(json_out(get_dict(req, 'origin', 'headers', method=req.method, brotli=True)))


def _location(req, path, external):
    return req.external(path) if external else path


@route('/redirect/{n:int}')
async def redirect_n_times(req, n):
    if n <= 0:
        raise ValueError('n must be positive')
    absolute = (req.arg('absolute', 'false') or '').lower() == 'true'
    if n == 1:
        return redirect(_location(req, url_for('view_get'), absolute))
    kind = 'absolute' if absolute else 'relative'
    return redirect(_location(req, url_for('%s_redirect_n_times' % kind, n=n - 1), absolute))


@route('/redirect-to', ANY)
async def redirect_to(req):
    args = CaseInsensitiveDict(req.args)
    out = Out(b'', status=302)
    if 'status_code' in args:
        code = int(args['status_code'])
        if 300 <= code < 400:
            out.status = code
    out.set('Location', args['url'])
    return out


@route('/relative-redirect/{n:int}')
async def relative_redirect_n_times(req, n):
    if n <= 0:
        raise ValueError('n must be positive')
    out = Out(b'', status=302)
    out.set('Location', url_for('view_get') if n == 1 else url_for('relative_redirect_n_times', n=n - 1))
    return out


@route('/absolute-redirect/{n:int}')
async def absolute_redirect_n_times(req, n):
    if n <= 0:
        raise ValueError('n must be positive')
    if n == 1:
        return redirect(req.external(url_for('view_get')))
    return redirect(req.external(url_for('absolute_redirect_n_times', n=n - 1)))


@route('/stream/{n:int}')
async def stream_n_messages(req, n):
    response = get_dict(req, 'url', 'args', 'headers', 'origin')
    n = min(n, 100)

    async def generate():
        for i in range(n):
            response['id'] = i
            yield json.dumps(response) + '\n'
    return stream(req, generate(), {'Content-Type': 'application/json'})


@route('/status/{codes}', ANY)
async def view_status_code(req, codes):
    if ',' not in codes:
        try:
            code = int(codes)
        except ValueError:
            return Out('Invalid status code', status=400, content_type=TEXT)
        return status_code(code)
    choices = []
    for choice in codes.split(','):
        if ':' not in choice:
            code, weight = choice, 1
        else:
            code, weight = choice.split(':')
        try:
            choices.append((int(code), float(weight)))
        except ValueError:
            return Out('Invalid status code', status=400, content_type=TEXT)
    return status_code(weighted_choice(choices))


@route('/response-headers', ('GET', 'POST'))
async def response_headers(req):
    pairs = list(req.args)
    lists = {}
    for k, v in pairs:
        lists.setdefault(k, []).append(v)
    out = json_out([[k, v] for k, v in lists.items()])
    while True:
        original = out.body
        d = {}
        for k in out_keys(out):
            values = [v for n, v in out.headers if n.lower() == k.lower()]
            d[k] = values[0] if len(values) == 1 else values
        out = json_out(d)
        out.add('Content-Length', str(len(out.body)))
        for k, v in pairs:
            out.add(k, v)
        if out.body == original:
            break
    return out


def out_keys(out):
    keys = []
    for k, _ in out.headers:
        if k.lower() not in [x.lower() for x in keys]:
            keys.append(k)
    if 'content-length' not in [k.lower() for k in keys]:
        keys.insert(1, 'Content-Length')
        out.headers.insert(1, ('Content-Length', str(len(out.body))))
    return keys


@route('/cookies')
async def view_cookies(req):
    cookies = dict(req.cookies)
    if not req.has_arg('show_env'):
        for key in ENV_COOKIES:
            cookies.pop(key, None)
    return json_out({'cookies': cookies})


@route('/forms/post')
async def view_forms_post(req):
    return Out(render('forms-post.html'))


@route('/cookies/set/{name}/{value}')
async def set_cookie(req, name, value):
    out = redirect(url_for('view_cookies'))
    out.set_cookie(name, value)
    return out


@route('/cookies/set')
async def set_cookies(req):
    out = redirect(url_for('view_cookies'))
    for key, value in dict(req.args).items():
        out.set_cookie(key, value)
    return out


@route('/cookies/delete')
async def delete_cookies(req):
    out = redirect(url_for('view_cookies'))
    for key in dict(req.args):
        out.delete_cookie(key)
    return out


@route('/basic-auth/{user}/{passwd}')
async def basic_auth(req, user, passwd):
    if not check_basic_auth(req, user, passwd):
        return status_code(401)
    return json_out({'authenticated': True, 'user': user})


@route('/hidden-basic-auth/{user}/{passwd}')
async def hidden_basic_auth(req, user, passwd):
    if not check_basic_auth(req, user, passwd):
        return status_code(404)
    return json_out({'authenticated': True, 'user': user})


@route('/bearer')
async def bearer_auth(req):
    if 'Authorization' not in req.headers:
        out = Out(b'', status=401)
        out.set('WWW-Authenticate', 'Bearer')
        return out
    return json_out({'authenticated': True, 'token': req.headers['Authorization'].lstrip('Bearer ')})


@route('/digest-auth/{qop}/{user}/{passwd}')
async def digest_auth_md5(req, qop, user, passwd):
    return await digest_auth(req, qop, user, passwd, 'MD5', 'never')


@route('/digest-auth/{qop}/{user}/{passwd}/{algorithm}')
async def digest_auth_nostale(req, qop, user, passwd, algorithm):
    return await digest_auth(req, qop, user, passwd, algorithm, 'never')


@route('/digest-auth/{qop}/{user}/{passwd}/{algorithm}/{stale_after}')
async def digest_auth(req, qop, user, passwd, algorithm, stale_after):
    require_cookie = (req.arg('require-cookie', '') or '').lower() in ('1', 't', 'true')
    if algorithm not in ('MD5', 'SHA-256', 'SHA-512'):
        algorithm = 'MD5'
    if qop not in ('auth', 'auth-int'):
        qop = None
    authorization = req.headers.get('Authorization')
    creds = parse_digest(authorization) if authorization else None
    if not authorization or not creds or (require_cookie and 'Cookie' not in req.headers):
        out = digest_challenge(req, qop, algorithm)
        out.set_cookie('stale_after', stale_after)
        out.set_cookie('fake', 'fake_value')
        return out
    if require_cookie and req.cookies.get('fake') != 'fake_value':
        out = json_out({'errors': ['missing cookie set on challenge']}, status=403)
        out.set_cookie('fake', 'fake_value')
        return out
    current_nonce = creds.get('nonce')
    stale_after_value = req.cookies.get('stale_after') if 'stale_after' in req.cookies else None
    if ('last_nonce' in req.cookies and current_nonce == req.cookies.get('last_nonce')) or stale_after_value == '0':
        out = digest_challenge(req, qop, algorithm, True)
        out.set_cookie('stale_after', stale_after)
        out.set_cookie('last_nonce', current_nonce)
        out.set_cookie('fake', 'fake_value')
        return out
    if not check_digest_auth(req, user, passwd):
        out = digest_challenge(req, qop, algorithm, False)
        out.set_cookie('stale_after', stale_after)
        out.set_cookie('last_nonce', current_nonce)
        out.set_cookie('fake', 'fake_value')
        return out
    out = json_out({'authenticated': True, 'user': user})
    out.set_cookie('fake', 'fake_value')
    if stale_after_value:
        out.set_cookie('stale_after', next_stale_after_value(stale_after_value))
    return out


@route('/delay/{delay}')
async def delay_response(req, delay):
    await asyncio.sleep(min(float(delay), 10))
    return json_out(get_dict(req, 'url', 'args', 'form', 'data', 'origin', 'headers', 'files'))


@route('/drip')
async def drip(req):
    args = CaseInsensitiveDict(req.args)
    duration = float(args.get('duration', 2))
    numbytes = min(int(args.get('numbytes', 10)), 10 * 1024 * 1024)
    code = int(args.get('code', 200))
    if numbytes <= 0:
        return Out('number of bytes must be positive', status=400, content_type=TEXT)
    delay = float(args.get('delay', 0))
    if delay > 0:
        await asyncio.sleep(delay)
    pause = duration / numbytes

    async def generate():
        for _ in range(numbytes):
            yield b'*'
            await asyncio.sleep(pause)
    return stream(req, generate(), {'Content-Type': 'application/octet-stream', 'Content-Length': str(numbytes)}, code)


@route('/base64/{value}')
async def decode_base64(req, value):
    return Out(base64.urlsafe_b64decode(value.encode('utf-8')).decode('utf-8'))


@route('/cache')
async def cache(req):
    if req.headers.get('If-Modified-Since') or req.headers.get('If-None-Match'):
        return status_code(304)
    out = await view_get(req)
    out.set('Last-Modified', formatdate(usegmt=True))
    out.set('ETag', uuid.uuid4().hex)
    return out


@route('/etag/{etag}')
async def etag(req, etag):
    if_none_match = parse_multi_value_header(req.headers.get('If-None-Match'))
    if_match = parse_multi_value_header(req.headers.get('If-Match'))
    if if_none_match:
        if etag in if_none_match or '*' in if_none_match:
            out = status_code(304)
            out.set('ETag', etag)
            return out
    elif if_match:
        if etag not in if_match and '*' not in if_match:
            return status_code(412)
    out = await view_get(req)
    out.set('ETag', etag)
    return out


@route('/cache/{value:int}')
async def cache_control(req, value):
    out = await view_get(req)
    out.set('Cache-Control', 'public, max-age={0}'.format(value))
    return out


@route('/encoding/utf8')
async def encoding(req):
    return Out(render('UTF-8-demo.txt'))


@route('/bytes/{n:int}')
async def random_bytes(req, n):
    n = min(n, 100 * 1024)
    params = CaseInsensitiveDict(req.args)
    if 'seed' in params:
        random.seed(int(params['seed']))
    return Out(bytes(bytearray(random.randint(0, 255) for _ in range(n))), content_type='application/octet-stream')


@route('/stream-bytes/{n:int}')
async def stream_random_bytes(req, n):
    n = min(n, 100 * 1024)
    params = CaseInsensitiveDict(req.args)
    if 'seed' in params:
        random.seed(int(params['seed']))
    chunk_size = max(1, int(params['chunk_size'])) if 'chunk_size' in params else 10 * 1024
    data = bytes(bytearray(random.randint(0, 255) for _ in range(n)))

    async def generate():
        for i in range(0, n, chunk_size):
            yield data[i:i + chunk_size]
            await asyncio.sleep(0)
    return stream(req, generate(), {'Content-Type': 'application/octet-stream'})


@route('/range/{numbytes:int}')
async def range_request(req, numbytes):
    if numbytes <= 0 or numbytes > 100 * 1024:
        out = Out('number of bytes must be in the range (0, 102400]', status=404, content_type=TEXT)
        out.set('ETag', 'range%d' % numbytes)
        out.set('Accept-Ranges', 'bytes')
        return out
    params = CaseInsensitiveDict(req.args)
    chunk_size = max(1, int(params['chunk_size'])) if 'chunk_size' in params else 10 * 1024
    duration = float(params.get('duration', 0))
    pause_per_byte = duration / numbytes
    first, last = get_request_range(get_headers(req)['range'], numbytes)
    if first > last or first not in range(numbytes) or last not in range(numbytes):
        out = Out(b'', status=416, content_type=TEXT)
        out.set('ETag', 'range%d' % numbytes)
        out.set('Accept-Ranges', 'bytes')
        out.set('Content-Range', 'bytes */%d' % numbytes)
        out.set('Content-Length', '0')
        return out

    async def generate():
        chunk = bytearray()
        for i in range(first, last + 1):
            chunk.append(ord('a') + i % 26)
            if len(chunk) == chunk_size:
                yield bytes(chunk)
                await asyncio.sleep(pause_per_byte * chunk_size)
                chunk = bytearray()
        if chunk:
            await asyncio.sleep(pause_per_byte * len(chunk))
            yield bytes(chunk)
    headers = {'Content-Type': 'application/octet-stream', 'ETag': 'range%d' % numbytes, 'Accept-Ranges': 'bytes',
               'Content-Length': str(last + 1 - first), 'Content-Range': 'bytes %d-%d/%d' % (first, last, numbytes)}
    return stream(req, generate(), headers, 200 if (first == 0 and last == numbytes - 1) else 206)


@route('/links/{n:int}/{offset:int}')
async def link_page(req, n, offset):
    n = min(max(1, n), 200)
    html = ['<html><head><title>Links</title></head><body>']
    for i in range(n):
        if i == offset:
            html.append('{0} '.format(i))
        else:
            html.append("<a href='{0}'>{1}</a> ".format(url_for('link_page', n=n, offset=i), i))
    html.append('</body></html>')
    return Out(''.join(html))


@route('/links/{n:int}')
async def links(req, n):
    return redirect(url_for('link_page', n=n, offset=0))


@route('/image')
async def image(req):
    headers = get_headers(req)
    if 'accept' not in headers:
        return await image_png(req)
    accept = headers['accept'].lower()
    if 'image/webp' in accept:
        return await image_webp(req)
    if 'image/svg+xml' in accept:
        return await image_svg(req)
    if 'image/jpeg' in accept:
        return await image_jpeg(req)
    if 'image/png' in accept or 'image/*' in accept:
        return await image_png(req)
    return status_code(406)


def resource(filename):
    with open(os.path.join(tmpl_dir, filename), 'rb') as f:
        return f.read()


@route('/image/png')
async def image_png(req):
    return Out(resource('images/pig_icon.png'), content_type='image/png')


@route('/image/jpeg')
async def image_jpeg(req):
    return Out(resource('images/jackal.jpg'), content_type='image/jpeg')


@route('/image/webp')
async def image_webp(req):
    return Out(resource('images/wolf_1.webp'), content_type='image/webp')


@route('/image/svg')
async def image_svg(req):
    return Out(resource('images/svg_logo.svg'), content_type='image/svg+xml')


@route('/xml')
async def xml(req):
    return Out(render('sample.xml'), content_type='application/xml')


# ------
# Errors
# ------

async def http_error(request, exc):
    req = await read_request(request)
    if exc.status_code == 405:
        allowed = set()
        for r in ROUTES:
            match, _ = r.matches(request.scope)
            if match != Match.NONE:
                allowed |= set(r.methods)
        return finish(req, method_not_allowed(allowed))
    merged = merged_redirect(req)
    if merged is not None:
        return finish(req, merged)
    return finish(req, not_found())


async def server_error(request, exc):
    req = await read_request(request)
    return finish(req, Out('<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n'
                           '<h1>Internal Server Error</h1>\n<p>The server encountered an internal error and was '
                           'unable to complete your request. Either the server is overloaded or there is an '
                           'error in the application.</p>\n', status=500))


starlette_app = Starlette(routes=ROUTES, exception_handlers={HTTPException: http_error, Exception: server_error})
# /get/ is not /get: no redirect between the two spellings.
starlette_app.router.redirect_slashes = False


def _leading_slashes(path):
    """A request target that starts with two slashes names its first
    segment as an authority; httpbin has always served it as the path
    /<that segment><the rest>."""
    if not path.startswith('//'):
        return path
    rest = path[2:]
    authority, slash, tail = rest.partition('/')
    if authority:
        return '/' + authority + slash + tail
    return '/' + tail


async def app(scope, receive, send):
    """httpbin's ASGI application: Starlette's, with the request target
    read as httpbin has always read it."""
    if scope['type'] == 'http' and scope['path'].startswith('//'):
        scope = dict(scope, path=_leading_slashes(scope['path']))
        if scope.get('raw_path'):
            scope['raw_path'] = _leading_slashes(scope['raw_path'].decode('latin-1')).encode('latin-1')
    await starlette_app(scope, receive, send)


if __name__ == '__main__':
    import uvicorn
    parser = argparse.ArgumentParser()
    parser.add_argument('--port', type=int, default=5000)
    parser.add_argument('--host', default='127.0.0.1')
    args = parser.parse_args()
    uvicorn.run(app, host=args.host, port=args.port, log_level='warning')
