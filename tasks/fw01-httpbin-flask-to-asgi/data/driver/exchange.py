"""The grader's HTTP driver for fw01 (one command case per scenario).

    python3 exchange.py BUILD SCENARIO

BUILD is the built tree, SCENARIO a JSON file of data/exchanges:
{"requests": [...]}. The driver starts the tree's server the way the
instruction promises, `python3 -m httpbin.core --host 127.0.0.1 --port P`
with the tree on PYTHONPATH, in an empty working folder, on the scenario's
own loopback port; sends every request in order on its own connection; and
prints a transcript: the status, the headers the contract covers (names
lower-cased, sorted; several of one name kept in their order) and the body
(decompressed when the response is compressed; a body that is not UTF-8
as its length and sha256).

What depends on the run, not on the program, is written as a placeholder:
the port (<PORT>), a Digest challenge's nonce and opaque (<NONCE>,
<OPAQUE>) and the nonce cookie that remembers it, Allow's members (sorted: the
order is a hash set's), a UUID in a body (<UUID>), and any header a request lists in
"varies" (its presence is kept, its value is <VARIES>). A request may name
"digest": [user, password] to answer the previous response's Digest
challenge (its nonce and opaque, the cookies it set) the way a client
does. Nothing here depends on which framework serves the requests.
"""

import base64
import hashlib
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import zlib

KEEP = {
    'accept-ranges', 'access-control-allow-credentials', 'access-control-allow-headers',
    'access-control-allow-methods', 'access-control-allow-origin', 'access-control-max-age',
    'allow', 'cache-control', 'content-disposition', 'content-encoding', 'content-range',
    'content-type', 'etag', 'last-modified', 'link', 'location', 'proxy-authenticate',
    'set-cookie', 'www-authenticate', 'x-more-info',
}
UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
NONCE = re.compile(r'(nonce|opaque)="[^"]*"')
LAST_NONCE = re.compile(r'last_nonce=[^;]*')


def scenario_port(path):
    """20000 plus the FNV-1a hash of the scenario's file name modulo 30000:
    a fixed port per scenario, which no sibling case can take."""
    h = 0x811c9dc5
    for b in os.path.basename(path).encode():
        h = ((h ^ b) * 0x01000193) & 0xffffffff
    return 20000 + h % 30000


def free(port):
    s = socket.socket()
    # Connections of an earlier run may linger in TIME_WAIT; only a server
    # listening on the port makes it taken (as for the server's own bind).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(('127.0.0.1', port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def listening(port):
    try:
        socket.create_connection(('127.0.0.1', port), timeout=1).close()
        return True
    except OSError:
        return False


def digest_answer(challenge, method, path, user, password, body):
    """The Authorization header a client sends for a Digest challenge."""
    params = dict(re.findall(r'(\w+)="?([^",]*)"?', challenge.split(' ', 1)[1]))
    algo = params.get('algorithm', 'MD5')
    h = {'MD5': hashlib.md5, 'SHA-256': hashlib.sha256, 'SHA-512': hashlib.sha512}[algo]
    H = lambda s: h(s.encode() if isinstance(s, str) else s).hexdigest()
    qop = params.get('qop', '').split(',')[0].strip()
    ha1 = H('%s:%s:%s' % (user, params['realm'], password))
    ha2 = H('%s:%s' % (method, path)) if qop != 'auth-int' else H('%s:%s:%s' % (method, path, H(body or b'')))
    cnonce, nc = '0a4f113b', '00000001'
    if qop:
        resp = H('%s:%s:%s:%s:%s:%s' % (ha1, params['nonce'], nc, cnonce, qop, ha2))
        extra = ', qop=%s, nc=%s, cnonce="%s"' % (qop, nc, cnonce)
    else:
        resp = H('%s:%s:%s' % (ha1, params['nonce'], ha2))
        extra = ''
    return ('Digest username="%s", realm="%s", nonce="%s", uri="%s", algorithm=%s, response="%s", opaque="%s"%s'
            % (user, params['realm'], params['nonce'], path, algo, resp, params.get('opaque', ''), extra))


def send(port, r, prev):
    method = r.get('method', 'GET')
    headers = {'User-Agent': 'fw01-driver', 'Accept-Encoding': 'identity'}
    headers.update(r.get('headers', {}))
    body = r.get('body')
    if 'json' in r:
        body = json.dumps(r['json'])
    if 'body_b64' in r:
        body = base64.b64decode(r['body_b64'])
    if isinstance(body, str):
        body = body.encode()
    if 'digest' in r and prev is not None:
        ch = prev.getheader('WWW-Authenticate') or ''
        if ch.startswith('Digest '):
            headers['Authorization'] = digest_answer(ch, method, r['path'], r['digest'][0], r['digest'][1], body)
        cookies = [c.split(';', 1)[0] for c in prev.headers.get_all('Set-Cookie') or []]
        if cookies:
            headers['Cookie'] = '; '.join(cookies)
    headers['Connection'] = 'close'
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
    try:
        conn.request(method, r['path'], body=body, headers=headers)
        res = conn.getresponse()
        data = res.read()
        return res, data, None
    except Exception as e:  # the transcript says what happened
        return None, None, '%s: %s' % (type(e).__name__, e)
    finally:
        conn.close()


def decode(res, data):
    enc = (res.getheader('Content-Encoding') or '').lower()
    try:
        if enc == 'gzip':
            return zlib.decompress(data, 16 + zlib.MAX_WBITS)
        if enc == 'deflate':
            try:
                return zlib.decompress(data)
            except zlib.error:
                return zlib.decompress(data, -zlib.MAX_WBITS)
        if enc == 'br':
            import brotli
            return brotli.decompress(data)
    except Exception as e:
        return ('(undecodable %s body: %s)' % (enc, e)).encode()
    return data


def transcript(r, res, data, err):
    out = ['>>> %s %s' % (r.get('method', 'GET'), r['path'])]
    if err:
        out.append('no response: ' + err)
        return '\n'.join(out)
    out.append('status %d' % res.status)
    varies = {h.lower() for h in r.get('varies', [])}
    for name in sorted({n.lower() for n in res.headers.keys()} & KEEP):
        for v in res.headers.get_all(name) or []:
            if name in varies:
                v = '<VARIES>'
            elif name == 'www-authenticate':
                v = NONCE.sub(lambda m: '%s="<%s>"' % (m.group(1), m.group(1).upper()), v)
            elif name == 'set-cookie':
                v = LAST_NONCE.sub('last_nonce=<NONCE>', v)
            elif name == 'allow':
                v = ', '.join(sorted(m.strip() for m in v.split(',')))
            out.append('%s: %s' % (name, v))
    out.append('body:')
    b = decode(res, data)
    try:
        text = b.decode('utf-8')
    except UnicodeDecodeError:
        text = '(binary, %d bytes, sha256 %s)' % (len(b), hashlib.sha256(b).hexdigest())
    out.append(UUID.sub('<UUID>', text))
    return '\n'.join(out)


def main():
    build, scenario_file = sys.argv[1], sys.argv[2]
    with open(scenario_file) as f:
        scenario = json.load(f)
    port = scenario_port(scenario_file)
    if not free(port):
        print('port %d of this scenario is taken' % port)
        return 3
    env = dict(os.environ)
    env['PYTHONPATH'] = os.path.abspath(build)
    env.pop('DEBUG', None)
    env['PYTHONDONTWRITEBYTECODE'] = '1'
    work = tempfile.mkdtemp(prefix='fw01-')
    child = subprocess.Popen([sys.executable, '-m', 'httpbin.core', '--host', '127.0.0.1', '--port', str(port)],
                             cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE if os.environ.get('FW01_DEBUG') else subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not listening(port):
            if child.poll() is not None:
                print('the server exited before answering (%s)' % child.returncode)
                return 3
            if time.monotonic() > deadline:
                print('the server did not listen within 60 s')
                return 3
            time.sleep(0.05)
        parts, prev = [], None
        for r in scenario['requests']:
            res, data, err = send(port, r, prev)
            parts.append(transcript(r, res, data, err))
            prev = res
        text = '\n\n'.join(parts).replace('127.0.0.1:%d' % port, '127.0.0.1:<PORT>')
        sys.stdout.write(text + '\n')
        return 0
    finally:
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
        if os.environ.get('FW01_DEBUG'):
            sys.stderr.write(child.stderr.read().decode('utf-8', 'replace'))


if __name__ == '__main__':
    sys.exit(main())
