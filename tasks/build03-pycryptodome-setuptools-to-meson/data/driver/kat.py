# Known answers from outside pycryptodome (FIPS 180/197, SP 800-38D, RFC
# 7539, RFC 8032, RFC 7914, RFC 4231), computed by the installed
# library, plus which native back ends it loaded. Run as
#   python3 -I kat.py INSTALL
# from an empty folder, so Crypto resolves inside INSTALL only. Each line is
# "name value"; a primitive that raises prints its exception's type.
import sys
from binascii import hexlify, unhexlify

install = sys.argv[1]
sys.path[:0] = [install]

import Crypto  # noqa: E402

if not Crypto.__file__.startswith(install):
    print("Crypto imported from outside the install: " + Crypto.__file__)
    sys.exit(3)


def h(b):
    return hexlify(b).decode()


def show(name, fn):
    try:
        print(name, fn())
    except Exception as e:  # a broken artifact is an answer too
        print(name, "raised", type(e).__name__)


def hashes():
    from Crypto.Hash import MD5, SHA1, SHA224, SHA256, SHA384, SHA512, SHA3_256, BLAKE2b, BLAKE2s, RIPEMD160, MD4, MD2, keccak
    for mod in (MD2, MD4, MD5, SHA1, SHA224, SHA256, SHA384, SHA512, SHA3_256, RIPEMD160):
        show("hash-" + mod.__name__.split(".")[-1], lambda: h(mod.new(b"abc").digest()))
    show("hash-BLAKE2b", lambda: h(BLAKE2b.new(digest_bits=512, data=b"abc").digest()))
    show("hash-BLAKE2s", lambda: h(BLAKE2s.new(digest_bits=256, data=b"abc").digest()))
    show("hash-keccak256", lambda: h(keccak.new(digest_bits=256, data=b"").digest()))
    show("hash-sha256-million-a", lambda: h(SHA256.new(b"a" * 1000000).digest()))


def macs():
    from Crypto.Hash import HMAC, SHA256, CMAC, Poly1305
    from Crypto.Cipher import AES
    show("hmac-sha256-rfc4231-1", lambda: HMAC.new(b"\x0b" * 20, b"Hi There", SHA256).hexdigest())
    show("cmac-aes128-sp800-38b", lambda: CMAC.new(unhexlify("2b7e151628aed2a6abf7158809cf4f3c"), unhexlify("6bc1bee22e409f96e93d7e117393172a"), ciphermod=AES).hexdigest())
    show("poly1305-aes", lambda: h(Poly1305.new(key=b"\x01" * 32, nonce=b"\x02" * 16, cipher=AES, data=b"msg").digest()))


def ciphers():
    from Crypto.Cipher import AES, DES, DES3, ARC2, ARC4, Blowfish, CAST, ChaCha20, Salsa20, ChaCha20_Poly1305
    k = unhexlify("000102030405060708090a0b0c0d0e0f")
    p = unhexlify("00112233445566778899aabbccddeeff")
    show("aes128-fips197", lambda: h(AES.new(k, AES.MODE_ECB).encrypt(p)))
    show("aes256-fips197", lambda: h(AES.new(unhexlify("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"), AES.MODE_ECB).encrypt(p)))
    for mode in ("MODE_CBC", "MODE_CFB", "MODE_OFB"):
        show("aes-" + mode, lambda: h(AES.new(k, getattr(AES, mode), iv=b"\x00" * 16).encrypt(p * 4)))
    show("aes-MODE_CTR", lambda: h(AES.new(k, AES.MODE_CTR, nonce=b"\x00" * 8).encrypt(p * 4)))
    show("aes-MODE_OCB", lambda: "/".join(h(x) for x in AES.new(k, AES.MODE_OCB, nonce=b"\x00" * 12).encrypt_and_digest(p * 4)))
    show("aes-MODE_EAX", lambda: "/".join(h(x) for x in AES.new(k, AES.MODE_EAX, nonce=b"\x00" * 16).encrypt_and_digest(p * 4)))
    show("aes-MODE_SIV", lambda: "/".join(h(x) for x in AES.new(k + k, AES.MODE_SIV, nonce=b"\x00" * 16).encrypt_and_digest(p * 4)))
    show("gcm-case2", lambda: "/".join(h(x) for x in AES.new(b"\x00" * 16, AES.MODE_GCM, nonce=b"\x00" * 12).encrypt_and_digest(b"\x00" * 16)))
    show("gcm-tamper", lambda: _gcm_tamper(AES))
    show("des", lambda: h(DES.new(b"\x13\x34\x57\x79\x9b\xbc\xdf\xf1", DES.MODE_ECB).encrypt(unhexlify("0123456789abcdef"))))
    show("des3", lambda: h(DES3.new(unhexlify("0123456789abcdef23456789abcdef01456789abcdef0123"), DES3.MODE_ECB).encrypt(b"The qufc")))
    show("arc2", lambda: h(ARC2.new(b"\x00" * 8, ARC2.MODE_ECB, effective_keylen=63).encrypt(b"\x00" * 8)))
    show("arc4", lambda: h(ARC4.new(b"Key").encrypt(b"Plaintext")))
    show("blowfish", lambda: h(Blowfish.new(b"\x00" * 8, Blowfish.MODE_ECB).encrypt(b"\x00" * 8)))
    show("cast", lambda: h(CAST.new(unhexlify("0123456712345678234567893456789A"), CAST.MODE_ECB).encrypt(unhexlify("0123456789ABCDEF"))))
    show("chacha20-rfc7539", lambda: h(ChaCha20.new(key=bytes(range(32)), nonce=unhexlify("000000000000004a00000000")).encrypt(b"\x00" * 64)))
    show("salsa20", lambda: h(Salsa20.new(key=b"\x80" + b"\x00" * 31, nonce=b"\x00" * 8).encrypt(b"\x00" * 64)))
    show("chacha20-poly1305", lambda: "/".join(h(x) for x in ChaCha20_Poly1305.new(key=bytes(range(32)), nonce=b"\x07" * 12).encrypt_and_digest(b"attack at dawn")))


def _gcm_tamper(AES):
    c = AES.new(b"\x01" * 16, AES.MODE_GCM, nonce=b"\x02" * 12)
    ct, tag = c.encrypt_and_digest(b"secret message")
    bad = bytes([tag[0] ^ 1]) + tag[1:]
    try:
        AES.new(b"\x01" * 16, AES.MODE_GCM, nonce=b"\x02" * 12).decrypt_and_verify(ct, bad)
    except ValueError:
        return "rejected"
    return "accepted"


def public():
    from Crypto.Math.Numbers import Integer
    from Crypto.PublicKey import ECC
    from Crypto.Signature import eddsa, DSS
    from Crypto.Hash import SHA256
    from Crypto.Protocol.KDF import scrypt
    show("integer-backend", lambda: Integer.__module__)
    m = 2 ** 255 - 19
    show("modexp", lambda: int(pow(Integer(3), 2 ** 127 + 1, Integer(m))) == pow(3, 2 ** 127 + 1, m))
    show("modexp-even", lambda: int(pow(Integer(7), 12345678901234567890, Integer(2 ** 521))))
    show("inverse", lambda: int(Integer(12345).inverse(Integer(m))))
    seed = unhexlify("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    show("ed25519-rfc8032-1", lambda: h(eddsa.new(eddsa.import_private_key(seed), "rfc8032").sign(b"")))
    show("ed448", lambda: h(eddsa.new(eddsa.import_private_key(b"\x05" * 57), "rfc8032").sign(b"abc")))
    show("p256-rfc6979", lambda: h(DSS.new(ECC.construct(curve="P-256", d=0xC9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721), "deterministic-rfc6979").sign(SHA256.new(b"sample"))))
    show("p384-point", lambda: hex(int((ECC.construct(curve="P-384", d=12345).pointQ).x)))
    show("p521-point", lambda: hex(int((ECC.construct(curve="P-521", d=67890).pointQ).x)))
    show("scrypt-rfc7914", lambda: h(scrypt(b"password", b"NaCl", 64, N=1024, r=8, p=16)))


def backends():
    from Crypto.Cipher import AES, _mode_gcm
    show("aesni-loaded", lambda: AES._raw_aesni_lib is not None)
    show("clmul-loaded", lambda: _mode_gcm._ghash_clmul is not None)


backends()
hashes()
macs()
ciphers()
public()
