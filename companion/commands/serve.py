"""`dice-companion serve`: run the companion web app for the table.

One process, one port per scheme, pages and event streams alike: uvicorn (an asyncio event
loop) serves the Flask app through `companion.front.Front`, which hands each request to a pool
of `--threads` threads and sends the event streams from the loop, so an open page holds no
thread. HTTP on `--port` and, beside it on the next port, HTTPS by `companion.tls.TlsFront`
(TLS handshakes in one selector loop, so an idle or half-sent handshake holds nothing but a
socket) before the same server on a port of 127.0.0.1, with a self-signed certificate made on
first start and kept in the instance folder. Phones need HTTPS for their camera, so the printed
address, the QR code and the pages' join links are the HTTPS one; `--https` serves HTTPS alone
on `--port`, `--no-https` HTTP alone.
"""
from __future__ import annotations

import argparse
import datetime
import errno
import ipaddress
import os
import re
import socket
import sqlite3
import sys
import threading
from pathlib import Path

from companion.cli import whole_number

DEFAULT_PORT = 8000
PORT = whole_number(1, 65535)   # argparse refuses 0 and what the socket module cannot take


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("serve", help="run the web app for the table and the phones",
                              description=__doc__.splitlines()[0])
    p.add_argument("--host", default="0.0.0.0",
                   help="address to listen on (default 0.0.0.0: every interface)")
    p.add_argument("--port", type=PORT, default=DEFAULT_PORT,
                   help=f"port 1-65535 (default {DEFAULT_PORT})")
    p.add_argument("--https", action="store_true",
                   help="serve HTTPS alone, on --port (self-signed certificate)")
    p.add_argument("--no-https", action="store_true",
                   help="serve plain HTTP alone (phones cannot use their camera then)")
    p.add_argument("--https-port", type=PORT, default=None,
                   help="the HTTPS port beside HTTP (default: --port + 1)")
    p.add_argument("--camera", metavar="N|URL", default=None,
                   help="a webcam index or stream URL the server reads itself")
    p.add_argument("--db", metavar="PATH|URL", default=os.environ.get("DICE_COMPANION_DB"),
                   help="the SQLite file (default: companion.sqlite in the instance folder), or "
                        "a postgresql:// URL (the server extra); default $DICE_COMPANION_DB")
    p.add_argument("--redis", metavar="URL", default=os.environ.get("DICE_COMPANION_REDIS"),
                   help="a redis:// URL: live updates shared by several server processes "
                        "(the server extra); default $DICE_COMPANION_REDIS")
    p.add_argument("--instance", metavar="DIR", default=None,
                   help="the instance folder (database, certificate)")
    p.add_argument("--threads", type=whole_number(1), default=100,
                   help="threads answering requests (open pages hold none; default 100)")
    p.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    p.set_defaults(func=run)


def _interface_addresses() -> list[str]:
    """IPv4 addresses of this machine's network interfaces (Linux: asked of the kernel with
    SIOCGIFADDR; elsewhere: what the machine's own name resolves to). Sends nothing."""
    found = []
    try:
        import fcntl
        import struct
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _, name in socket.if_nameindex():
                try:
                    req = struct.pack("256s", name.encode()[:15])
                    found.append(socket.inet_ntoa(fcntl.ioctl(s.fileno(), 0x8915, req)[20:24]))
                except OSError:
                    continue
    except (ImportError, OSError, AttributeError):
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(info[4][0])
    except OSError:
        pass
    return list(dict.fromkeys(found))


def lan_address() -> str:
    """The address phones on the same network open: a private (LAN) IPv4 address of this
    machine, else any non-loopback one, else 127.0.0.1."""
    addrs = [ipaddress.ip_address(a) for a in _interface_addresses()]
    usable = [a for a in addrs if not a.is_loopback and not a.is_link_local]
    private = [a for a in usable if a.is_private]
    best = private or usable
    return str(best[0]) if best else "127.0.0.1"


def ensure_certificate(folder: Path, hosts: list[str]) -> tuple[Path, Path]:
    """cert.pem and key.pem in `folder`, made (self-signed, 2 years) when missing, or when the
    one found is a certificate authority (as made before: a phone that trusted it would trust
    whatever its key signs). Made as a leaf: CA:false, for server authentication only."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    if cert.exists() and key.exists() and not _is_authority(cert):
        return cert, key
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dice companion")])
    alt = []
    for h in dict.fromkeys(hosts + ["localhost", "127.0.0.1"]):
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            alt.append(x509.DNSName(h))
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                   .public_key(private.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=730))
                   .add_extension(x509.SubjectAlternativeName(alt), critical=False)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                                key_encipherment=False, data_encipherment=False,
                                                key_agreement=False, key_cert_sign=False,
                                                crl_sign=False, encipher_only=False,
                                                decipher_only=False), critical=True)
                   .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                                  critical=False)
                   .sign(private, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    key.write_bytes(private.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    os.chmod(key, 0o600)
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return cert, key


def _is_authority(cert: Path) -> bool:
    """Whether the certificate in `cert` says it is a certificate authority (an unreadable one
    counts as one: it is made again)."""
    from cryptography import x509
    try:
        c = x509.load_pem_x509_certificate(cert.read_bytes())
        return c.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        return False
    except ValueError:
        return True


def build_app(args: argparse.Namespace, public_url: str, https_url: str | None = None):
    from companion.app import create_app, hosting_config
    from companion.frames import open_source

    from companion.cli import BadInput
    from companion.store_pg import is_url

    check_database(args.db)
    config = hosting_config({"DICE_COMPANION_DB": args.db or "",
                             "DICE_COMPANION_REDIS": args.redis or ""})
    config.update(PUBLIC_URL=public_url, HTTPS_URL=https_url)
    try:
        app = create_app(config, instance_path=args.instance)
    except sqlite3.DatabaseError as exc:    # a file that is not SQLite's, or not readable
        raise BadInput(f"{args.db or 'the instance folder database'}: cannot use this SQLite "
                       f"database ({exc})") from None
    except Exception as exc:
        if (args.redis or is_url(args.db or "")) and _is_server_error(exc):
            raise BadInput(_server_error(exc)) from None
        raise
    demo = Path(__file__).resolve().parents[2] / "sample_images"
    try:
        app.config["FRAME_SOURCE"] = open_source(args.camera, demo)
    except OSError as exc:
        raise BadInput(str(exc)) from None
    return app


def check_database(db: str | None) -> None:
    """`--db` as the store will take it (`companion.store_pg.is_url`: a postgresql:// URL,
    anything else a SQLite file): a URL of another scheme (mysql://...) is refused rather
    than made into a folder "mysql:", and a SQLite file whose folder does not exist rather
    than the folder made (at the filesystem's root, say), as every command's outputs are
    (`_common.output_file`). The default, in the instance folder, is not checked."""
    from companion.cli import BadInput
    from companion.commands._common import output_file
    from companion.store_pg import SCHEMES, is_url

    if not db or is_url(db):
        return
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", db)
    if scheme:      # the scheme alone: the rest of a URL may hold a password
        raise BadInput(f"--db: a {scheme.group(1)}:// URL is not a store this program uses: give "
                       f"a SQLite file or a {' or '.join(SCHEMES)} URL")
    output_file(db, "database")


def _is_server_error(exc: BaseException) -> bool:
    """Whether `exc` says the database or Redis server cannot be used (not a program error)."""
    names = {c.__module__.split(".")[0] for c in type(exc).__mro__}
    return bool(names & {"psycopg", "psycopg_pool", "redis"}) or isinstance(exc, RuntimeError)


def _server_error(exc: BaseException) -> str:
    """One line for a database or Redis server that cannot be used."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"cannot use the database or Redis server: {text}"


def run(args: argparse.Namespace) -> int:
    from companion.cli import BadInput
    if args.https and args.no_https:
        raise BadInput("--https (HTTPS alone) and --no-https (HTTP alone) exclude each other")
    host = lan_address() if args.host in ("0.0.0.0", "::", "") else args.host
    http_port = None if args.https else args.port
    https_port = None if args.no_https else (args.port if args.https else
                                              args.https_port or args.port + 1)
    if https_port is not None and https_port > 65535:   # --port 65535: none left beside it
        raise BadInput(f"no port after {args.port} for HTTPS: choose its port with --https-port")
    if http_port is not None and http_port == https_port:
        raise BadInput(f"HTTP and HTTPS cannot share port {http_port}: choose another "
                       f"--https-port")
    https_url = None if https_port is None else f"https://{host}:{https_port}"
    http_url = None if http_port is None else f"http://{host}:{http_port}"
    public_url = https_url or http_url
    app = build_app(args, public_url, https_url)
    # bind every port before printing the address: a port in use is a one-line error
    sockets, tls = [], None
    try:
        if https_port is not None:
            cert, key = ensure_certificate(Path(app.instance_path), [host])
            tls, backend = _tls_front(args, https_port, cert, key,
                                      "--port" if args.https else "--https-port")
            sockets.append(backend)
        if http_port is not None:
            sockets.append(_listen(args.host, http_port))
    except BadInput:
        for sock in sockets + ([tls.listener] if tls is not None else []):
            sock.close()            # the ports bound so far are given back
        raise
    from companion.server import front_for, serve
    _open_files()
    front = front_for(app, args.threads, https_at=frozenset(
        {tls.backend} if tls is not None else ()))
    source = app.config.get("FRAME_SOURCE")
    from companion.store_pg import redacted
    print(f"dice companion: {public_url}/   (database {redacted(app.config['DATABASE'])}"
          f"{', live updates through Redis' if app.config['REDIS_URL'] else ''})", flush=True)
    if https_url and http_url:
        print(f"also plain HTTP: {http_url}/ (no phone camera there)", flush=True)
    where = f" from {source.folder}" if getattr(source, "folder", None) else ""
    print(f"frames: {source.describe() + where if source else 'none (tap the dice in)'}",
          flush=True)
    if not args.no_qr:
        try:
            import segno
            segno.make(public_url + "/", error="m").terminal(compact=True)
        except Exception as exc:  # a terminal that cannot draw it: the address is printed
            print(f"(no QR code: {exc})")
    if https_url:
        print(f"certificate: {cert} (self-signed: each phone's browser warns once; the "
              f"pages say how to accept it)", flush=True)
    sys.stdout.flush()
    if tls is not None:
        threading.Thread(target=tls.serve_forever, name="https", daemon=True).start()
    try:
        serve(front, sockets)
    except KeyboardInterrupt:
        pass
    finally:
        if tls is not None:
            tls.close()
        for sock in sockets:
            sock.close()
    return 0


def _in_use(port: int, exc: OSError, flag: str = "--port"):
    from companion.cli import BadInput
    if exc.errno in (errno.EADDRINUSE, errno.EACCES):
        if exc.errno == errno.EADDRINUSE:
            return BadInput(f"port {port} is in use by another program: choose another with "
                            f"{flag}")
        return BadInput(f"port {port} is not allowed for this user: choose one over 1023 with "
                        f"{flag}")
    return BadInput(f"cannot listen on port {port}: {exc.strerror or exc}")


def _open_files() -> int:
    """Raise this process's limit of open files to the most it may have (every connection, an
    open page's stream among them, holds one, and two through HTTPS; every serving thread's
    SQLite connection three); returns the limit."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        hard = 65536 if hard == resource.RLIM_INFINITY else hard
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return hard
    except (ImportError, ValueError, OSError):
        return 1024


def _listen(host: str, port: int, flag: str = "--port"):
    from companion.server import listen
    try:
        return listen(host, port)
    except OSError as exc:
        raise _in_use(port, exc, flag) from None


def _tls_front(args, port: int, cert: Path, key: Path, flag: str):
    """HTTPS: (`companion.tls.TlsFront` on the public port, handshakes in one selector loop;
    the socket it passes the requests to, on 127.0.0.1, whose requests the app sees as HTTPS),
    both bound here."""
    import ssl

    from companion.tls import TlsFront

    listener = _listen(args.host, port, flag)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    backend = _listen("127.0.0.1", 0)
    return TlsFront(listener, context, backend.getsockname()[:2]), backend


def main(argv: list[str] | None = None) -> int:
    """`python -m companion.commands.serve ...`: the same command without the other ones."""
    parser = argparse.ArgumentParser(prog="dice-companion")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    from companion.cli import BadInput
    try:
        return int(args.func(args) or 0)
    except BadInput as exc:
        print(f"dice-companion serve: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
