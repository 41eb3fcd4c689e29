# -*- coding: utf-8 -*-

"""
httpbin.helpers
~~~~~~~~~~~~~~~

Helpers for httpbin's ASGI application: reading a request the way httpbin
always has (its header dictionary, query and form values, bodies), the
response shapes it shares between routes, and Digest authentication.
"""

import base64
import json
import os
import re
import time
from hashlib import md5, sha256, sha512
from urllib.parse import parse_qsl, quote

from starlette.responses import Response

from .structures import CaseInsensitiveDict


ASCII_ART = """
    -=[ teapot ]=-

       _...._
     .'  _ _ `.
    | ."` ^ `". _,
    \\_;`"---"`|//
      |       ;/
      \\_     _/
        `\"\"\"`
"""

REDIRECT_LOCATION = '/redirect/1'

ENV_HEADERS = (
    'X-Varnish', 'X-Request-Start', 'X-Heroku-Queue-Depth', 'X-Real-Ip',
    'X-Forwarded-Proto', 'X-Forwarded-Protocol', 'X-Forwarded-Ssl',
    'X-Heroku-Queue-Wait-Time', 'X-Forwarded-For', 'X-Heroku-Dynos-In-Use',
    'X-Forwarded-Port', 'X-Request-Id', 'Via', 'Total-Route-Time', 'Connect-Time',
)

ROBOT_TXT = """User-agent: *
Disallow: /deny
"""

ACCEPTED_MEDIA_TYPES = ['image/webp', 'image/svg+xml', 'image/jpeg', 'image/png', 'image/*']

ANGRY_ASCII = """
          .-''''''-.
        .' _      _ '.
       /   O      O   \\
      :                :
      |                |
      :       __       :
       \\  .-"`  `"-.  /
        '.          .'
          '-......-'
     YOU SHOULDN'T BE HERE
"""

HTML = 'text/html; charset=utf-8'
TEXT = 'text/plain; charset=utf-8'
ENTITY_HEADERS = ('allow', 'content-encoding', 'content-language', 'content-length', 'content-md5',
                  'content-range', 'content-type', 'last-modified')


class Out(object):
    """A response being put together: status, header list, body."""

    def __init__(self, body=b'', status=200, content_type=HTML, headers=None):
        self.status = status
        self.body = body.encode('utf-8') if isinstance(body, str) else body
        self.headers = []
        if content_type:
            self.headers.append(('Content-Type', content_type))
        for k, v in (headers or {}).items():
            self.headers.append((k, v))

    def set(self, name, value):
        self.headers = [(k, v) for k, v in self.headers if k.lower() != name.lower()]
        self.headers.append((name, value))

    def add(self, name, value):
        self.headers.append((name, value))

    def get(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def set_cookie(self, name, value):
        self.add('Set-Cookie', '%s=%s; Path=/' % (name, cookie_quote(value)))

    def delete_cookie(self, name):
        self.add('Set-Cookie', '%s=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/' % name)

    def to_asgi(self, head=False):
        body = b'' if head else self.body
        pairs = self.headers
        if self.status == 304:
            # a 304 carries no entity headers
            pairs = [(k, v) for k, v in pairs if k.lower() not in ENTITY_HEADERS]
        headers = [(k.encode('latin-1'), v.encode('latin-1')) for k, v in pairs]
        if self.get('Content-Length') is None:
            headers.append((b'content-length', str(len(self.body)).encode()))
        r = Response(body, status_code=self.status)
        r.raw_headers = headers
        return r


_COOKIE_SAFE = re.compile(r"^[A-Za-z0-9!#$%&'*+\-.^_`|~:/?@\[\]=]*$")


def cookie_quote(value):
    """A cookie value as httpbin has always written it: bare when it is made
    of safe characters, else double-quoted with backslash escapes."""
    if _COOKIE_SAFE.match(value):
        return value
    out = []
    for ch in value:
        if ch in '"\\':
            out.append('\\' + ch)
        elif ord(ch) < 32 or ord(ch) > 126 or ch in ',;':
            out.append('\\%03o' % ord(ch))
        else:
            out.append(ch)
    return '"%s"' % ''.join(out)


def dumps(obj):
    """httpbin's JSON: keys sorted, no spaces, ASCII, a final newline."""
    return json.dumps(obj, sort_keys=True, separators=(',', ':')) + '\n'


def json_out(obj, status=200):
    return Out(dumps(obj), status=status, content_type='application/json')


def redirect(location, status=302):
    body = ('<!doctype html>\n<html lang=en>\n<title>Redirecting...</title>\n'
            '<h1>Redirecting...</h1>\n<p>You should be redirected automatically to the target URL: '
            '<a href="%s">%s</a>. If not, click the link.\n' % (html_escape(location), html_escape(location)))
    return Out(body, status=status, headers={'Location': location})


def html_escape(s):
    return s.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;').replace('"', '&quot;')


def error_page(code, title, text):
    return Out('<!doctype html>\n<html lang=en>\n<title>%d %s</title>\n<h1>%s</h1>\n<p>%s</p>\n' % (code, title, title, text),
               status=code)


def not_found():
    return error_page(404, 'Not Found', 'The requested URL was not found on the server. If you entered the URL '
                      'manually please check your spelling and try again.')


def method_not_allowed(allowed):
    r = error_page(405, 'Method Not Allowed', 'The method is not allowed for the requested URL.')
    r.add('Allow', ', '.join(sorted(allowed)))
    return r


class Req(object):
    """One request, read once: what every route asks of it."""

    def __init__(self, scope, body, form=None, files=None):
        self.scope = scope
        self.method = scope['method']
        self.body = body
        self.raw_path = (scope.get('raw_path') or scope['path'].encode('utf-8')).decode('latin-1')
        self.path = scope['path']
        self.query_string = scope.get('query_string', b'').decode('latin-1')
        self.header_list = self._environ_headers(scope['headers'])
        self.headers = CaseInsensitiveDict(self.header_list)
        self.args = parse_qsl(self.query_string, keep_blank_values=True)
        self.form = form or []
        self.files = files or []
        client = scope.get('client')
        self.remote_addr = client[0] if client else ''
        self.cookies = parse_cookies(self.headers.get('Cookie') or '')

    @staticmethod
    def _environ_headers(raw):
        """Header names title-cased and repeats joined by commas, as the
        service has always shown them; names holding '_' are dropped."""
        seen = {}
        order = []
        for k, v in raw:
            name = k.decode('latin-1')
            if '_' in name:
                continue
            name = name.title()
            value = v.decode('latin-1')
            if name in seen and name not in ('Content-Type', 'Content-Length'):
                seen[name] = seen[name] + ',' + value
            else:
                if name not in seen:
                    order.append(name)
                seen[name] = value
        return [(n, seen[n]) for n in order if not (n in ('Content-Type', 'Content-Length') and seen[n] == '')]

    def arg(self, name, default=None):
        for k, v in self.args:
            if k == name:
                return v
        return default

    def has_arg(self, name):
        return any(k == name for k, _ in self.args)

    def host(self):
        return self.headers.get('Host') or '%s:%d' % tuple(self.scope['server'])

    def url(self):
        """The request's URL as httpbin shows it: an IRI, where an escape
        stands only for an ASCII character that is not safe in a URL."""
        scheme = self.scope.get('scheme', 'http')
        u = '%s://%s%s' % (scheme, self.host(), iri(quote(self.path, safe="/:" + URL_SAFE)))
        if self.query_string:
            q = quote(self.query_string.encode('latin-1'), safe=":&%=+$!*'(),")
            u += '?' + iri(q)
        return u

    def external(self, path):
        return '%s://%s%s' % (self.scope.get('scheme', 'http'), self.host(), path)


URL_SAFE = "-._~$!'()*+,;"
_ESCAPES = re.compile(r'(?:%[0-9A-Fa-f]{2})+')


def iri(text):
    """Decodes the escapes of text that stand for non-ASCII characters or
    for ASCII characters safe in a URL; the others stay escaped."""
    def decode(m):
        raw = bytes(int(h, 16) for h in m.group(0)[1:].split('%'))
        out, i = [], 0
        while i < len(raw):
            b = raw[i]
            if b < 128:
                c = chr(b)
                out.append(c if (c.isalnum() or c in URL_SAFE) else '%%%02X' % b)
                i += 1
                continue
            for n in (4, 3, 2):
                try:
                    out.append(raw[i:i + n].decode('utf-8'))
                    i += n
                    break
                except UnicodeDecodeError:
                    continue
            else:
                out.append('%%%02X' % b)
                i += 1
        return ''.join(out)
    return _ESCAPES.sub(decode, text)


def parse_cookies(text):
    out = {}
    for part in text.split(';'):
        if '=' not in part:
            continue
        k, v = part.split('=', 1)
        k, v = k.strip(), v.strip()
        if len(v) >= 2 and v[0] == v[-1] == '"':
            v = v[1:-1]
        if k:
            out[k] = v
    return out


def json_safe(string, content_type='application/octet-stream'):
    """The body as text, or a data: URL when it is not UTF-8."""
    try:
        string = string.decode('utf-8')
        json.dumps(string)
        return string
    except (ValueError, TypeError):
        return b''.join([b'data:', content_type.encode('utf-8'), b';base64,', base64.b64encode(string)]).decode('utf-8')


def semiflatten(pairs):
    result = {}
    for k, v in pairs:
        result.setdefault(k, []).append(v)
    return {k: v[0] if len(v) == 1 else v for k, v in result.items()}


def get_files(req):
    """The uploaded files by field name; a name sent twice shows its first
    file, as httpbin always showed it."""
    files = {}
    first = {}
    for k, content, content_type in req.files:
        first.setdefault(k, (k, content, content_type))
    for k, content, content_type in first.values():
        val = json_safe(content, content_type or 'application/octet-stream')
        if files.get(k):
            if not isinstance(files[k], list):
                files[k] = [files[k]]
            files[k].append(val)
        else:
            files[k] = val
    return files


def get_headers(req, hide_env=True):
    headers = dict(req.header_list)
    if hide_env and not req.has_arg('show_env'):
        for key in ENV_HEADERS:
            headers.pop(key, None)
    return CaseInsensitiveDict(headers.items())


def get_url(req):
    protocol = req.headers.get('X-Forwarded-Proto') or req.headers.get('X-Forwarded-Protocol')
    if protocol is None and req.headers.get('X-Forwarded-Ssl') == 'on':
        protocol = 'https'
    url = req.url()
    if protocol is None:
        return url
    return protocol + url[url.index(':'):]


def get_dict(req, *keys, **extras):
    data = b'' if is_form(req) else req.body
    try:
        _json = json.loads(data.decode('utf-8'))
    except (ValueError, TypeError):
        _json = None
    d = dict(
        url=get_url(req),
        args=semiflatten(req.args),
        form=semiflatten(req.form),
        data=json_safe(data),
        origin=req.headers.get('X-Forwarded-For', req.remote_addr),
        headers=get_headers(req),
        files=get_files(req),
        json=_json,
        method=req.method,
    )
    out = {key: d.get(key) for key in keys}
    out.update(extras)
    return out


def is_form(req):
    ct = (req.headers.get('Content-Type') or '').split(';')[0].strip().lower()
    return ct in ('application/x-www-form-urlencoded', 'multipart/form-data')


def status_code(code):
    """The response of a /status code: its body and headers replace the defaults."""
    redirect_h = {'location': REDIRECT_LOCATION}
    code_map = {
        301: dict(headers=redirect_h), 302: dict(headers=redirect_h), 303: dict(headers=redirect_h),
        304: dict(data=''), 305: dict(headers=redirect_h), 307: dict(headers=redirect_h),
        401: dict(headers={'WWW-Authenticate': 'Basic realm="Fake Realm"'}),
        402: dict(data='Fuck you, pay me!', headers={'x-more-info': 'http://vimeo.com/22053820'}),
        406: dict(data=json.dumps({'message': 'Client did not request a supported media type.',
                                   'accept': ACCEPTED_MEDIA_TYPES}),
                  headers={'Content-Type': 'application/json'}),
        407: dict(headers={'Proxy-Authenticate': 'Basic realm="Fake Realm"'}),
        418: dict(data=ASCII_ART, headers={'x-more-info': 'http://tools.ietf.org/html/rfc2324'}),
    }
    r = Out(b'', status=code)
    m = code_map.get(code)
    if m:
        if 'data' in m:
            r.body = m['data'].encode('utf-8')
        if 'headers' in m:
            r.headers = list(m['headers'].items())
    return r


def basic_credentials(req):
    auth = req.headers.get('Authorization')
    if not auth:
        return None
    try:
        scheme, value = auth.split(None, 1)
    except ValueError:
        return None
    if scheme.lower() != 'basic':
        return None
    try:
        user, _, passwd = base64.b64decode(value).decode('utf-8').partition(':')
    except Exception:
        return None
    return user, passwd


def check_basic_auth(req, user, passwd):
    creds = basic_credentials(req)
    return bool(creds) and creds[0] == user and creds[1] == passwd


def parse_digest(value):
    """The Digest credentials of an Authorization header, or None when they
    lack a field a Digest answer needs."""
    try:
        scheme, rest = value.split(None, 1)
    except ValueError:
        return None
    if scheme.lower() != 'digest':
        return None
    params = {}
    for m in re.finditer(r'([^\s=,]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^,]*)', rest):
        v = m.group(3) if m.group(3) is not None else m.group(2).strip()
        params[m.group(1)] = v.replace('\\"', '"') if m.group(3) is not None else v
    for key in ('username', 'realm', 'nonce', 'uri', 'response'):
        if key not in params:
            return None
    if 'qop' in params and (not params.get('nc') or not params.get('cnonce')):
        return None
    return params


def H(data, algorithm):
    if algorithm == 'SHA-256':
        return sha256(data).hexdigest()
    elif algorithm == 'SHA-512':
        return sha512(data).hexdigest()
    return md5(data).hexdigest()


def digest_response(creds, password, method, uri, body):
    algorithm = creds.get('algorithm')
    ha1 = H(':'.join([creds.get('username'), creds.get('realm') or '', password]).encode('utf-8'), algorithm)
    qop = creds.get('qop')
    if qop in ('auth', None):
        ha2 = H(('%s:%s' % (method, uri)).encode('utf-8'), algorithm)
    elif qop == 'auth-int':
        ha2 = H(b':'.join([method.encode('utf-8'), uri.encode('utf-8'), H(body, algorithm).encode('utf-8')]), algorithm)
    else:
        raise ValueError(qop)
    if qop is None:
        return H(':'.join([ha1, creds.get('nonce', ''), ha2]).encode('utf-8'), algorithm)
    return H(':'.join([ha1, creds['nonce'], creds['nc'], creds['cnonce'], qop, ha2]).encode('utf-8'), algorithm)


def check_digest_auth(req, user, passwd):
    auth = req.headers.get('Authorization')
    if not auth:
        return False
    creds = parse_digest(auth)
    if not creds:
        return None
    uri = req.raw_path
    if req.query_string:
        uri += '?' + req.query_string
    try:
        return creds.get('response') == digest_response(creds, passwd, req.method, uri, req.body)
    except ValueError:
        return False


def get_request_range(range_text, upper_bound):
    left = right = None
    text = (range_text or '').strip()
    if text.startswith('bytes'):
        parts = text.split('=')
        if len(parts) == 2:
            bounds = parts[1].split('-')
            try:
                right = int(bounds[1])
            except Exception:
                pass
            try:
                left = int(bounds[0])
            except Exception:
                pass
    if left is None and right is None:
        return 0, upper_bound - 1
    if left is None:
        return max(0, upper_bound - right), upper_bound - 1
    if right is None:
        return left, upper_bound - 1
    return left, right


def parse_multi_value_header(header_str):
    parts = []
    if header_str:
        for part in header_str.split(','):
            match = re.search(r'\s*(W/)?\"?([^"]*)\"?\s*', part)
            if match is not None:
                parts.append(match.group(2))
    return parts


def next_stale_after_value(stale_after):
    try:
        return str(int(stale_after) - 1)
    except ValueError:
        return 'never'


def digest_challenge(req, qop, algorithm, stale=False):
    nonce = H(b''.join([req.remote_addr.encode('ascii'), b':', str(time.time()).encode('ascii'), b':', os.urandom(10)]),
              algorithm)
    opaque = H(os.urandom(10), algorithm)
    qops = 'auth, auth-int' if qop is None else qop
    r = Out(b'', status=401)
    r.set('WWW-Authenticate', 'Digest realm="me@kennethreitz.com", nonce="%s", qop="%s", opaque="%s", algorithm=%s, stale=%s'
          % (nonce, qops, opaque, algorithm, 'TRUE' if stale else 'FALSE'))
    return r
