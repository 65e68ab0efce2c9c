"""`dice-companion serve`: the command line, HTTPS with a self-signed certificate kept in the
instance folder, the LAN address, and the frame sources (demo pictures, MJPEG stream)."""
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from companion.commands import serve
from companion.frames import DirectorySource, open_source

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TestCommand:
    def test_registered_in_the_cli(self):
        from companion import cli
        assert "serve" in cli.COMMANDS
        args = cli.build_parser().parse_args(["serve", "--port", "9999", "--https",
                                              "--camera", "1", "--db", "x.sqlite"])
        assert (args.port, args.https, args.camera, args.db) == (9999, True, "1", "x.sqlite")
        assert args.func is serve.run and args.threads >= 32

    def test_lan_address_is_an_ipv4_address(self):
        import ipaddress
        assert ipaddress.ip_address(serve.lan_address()).version == 4


class TestCertificate:
    def test_made_once_and_kept(self, tmp_path):
        from cryptography import x509
        cert, key = serve.ensure_certificate(tmp_path, ["192.168.1.20"])
        first = cert.read_bytes()
        assert oct(key.stat().st_mode & 0o777) == "0o600"
        again, _ = serve.ensure_certificate(tmp_path, ["10.0.0.1"])
        assert again.read_bytes() == first          # kept, not made again
        c = x509.load_pem_x509_certificate(first)
        names = c.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        ips = {str(i) for i in names.get_values_for_type(x509.IPAddress)}
        assert {"192.168.1.20", "127.0.0.1"} <= ips
        assert "localhost" in names.get_values_for_type(x509.DNSName)

    def test_a_leaf_for_serving_not_an_authority(self, tmp_path):
        from cryptography import x509
        from cryptography.x509.oid import ExtendedKeyUsageOID
        cert, _ = serve.ensure_certificate(tmp_path, ["192.168.1.20"])
        c = x509.load_pem_x509_certificate(cert.read_bytes())
        assert c.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
        usage = c.extensions.get_extension_for_class(x509.KeyUsage).value
        assert usage.digital_signature and not usage.key_cert_sign
        assert list(c.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) \
            == [ExtendedKeyUsageOID.SERVER_AUTH]

    def test_an_authority_made_before_is_made_again_as_a_leaf(self, tmp_path):
        import datetime
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
        private = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dice companion")])
        now = datetime.datetime.now(datetime.timezone.utc)
        old = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
               .public_key(private.public_key()).serial_number(1).not_valid_before(now)
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
               .sign(private, hashes.SHA256()))
        (tmp_path / "cert.pem").write_bytes(old.public_bytes(serialization.Encoding.PEM))
        (tmp_path / "key.pem").write_bytes(private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))
        cert, _ = serve.ensure_certificate(tmp_path, ["192.168.1.20"])
        c = x509.load_pem_x509_certificate(cert.read_bytes())
        assert c.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False


def _start(args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "companion.commands.serve", *args], cwd=cwd,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _get(url, context=None, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5, context=context) as r:
                return r.status, r.read()
        except (OSError, ssl.SSLError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_https_serves_with_a_self_signed_certificate(tmp_path):
    port = free_port()
    instance = tmp_path / "instance"
    proc = _start(["--https", "--host", "127.0.0.1", "--port", str(port), "--instance",
                   str(instance), "--no-qr"])
    try:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        status, body = _get(f"https://127.0.0.1:{port}/", ctx)
        assert status == 200 and b'data-page="index"' in body
        cert = (instance / "cert.pem").read_bytes()
        # the browser's view: the certificate is self-signed, so an unconfigured client
        # refuses it (the start page says how to accept it once)
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"https://127.0.0.1:{port}/", timeout=5)
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=20)[0].decode()
    assert f"https://127.0.0.1:{port}/" in out and "self-signed" in out
    # a second start keeps the same certificate
    proc = _start(["--https", "--host", "127.0.0.1", "--port", str(port), "--instance",
                   str(instance), "--no-qr"])
    try:
        _get(f"https://127.0.0.1:{port}/api/games", ctx)
        assert (instance / "cert.pem").read_bytes() == cert
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)


def test_idle_and_half_sent_handshakes_hold_no_serving_thread(tmp_path):
    """A phone's page stays served while others hold TLS connections open without finishing
    the handshake: more of them than the server has threads, idle and half-sent."""
    port = free_port()
    proc = _start(["--https", "--host", "127.0.0.1", "--port", str(port), "--threads", "4",
                   "--instance", str(tmp_path / "i"), "--no-qr"])
    held = []
    try:
        _get(f"https://127.0.0.1:{port}/api/games", _insecure())      # started
        for i in range(24):
            s = socket.create_connection(("127.0.0.1", port))
            if i % 2:       # the first bytes of a ClientHello, and then nothing
                s.sendall(bytes.fromhex("16030100f4010000f00303"))
            held.append(s)
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/api/games", timeout=20,
                                    context=_insecure()) as r:
            assert r.status == 200 and b"qwinto" in r.read()
    finally:
        for s in held:
            s.close()
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)


def test_half_sent_requests_hold_no_connection_slot_or_thread(tmp_path):
    """More half-sent HTTP requests than the server once allowed connections (100 at 4
    threads), and over 1,024 descriptors where this process may open them (select() stopped
    the server there): a request is still answered."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1100 if min(hard, 4096) >= 2500 else 150
    if want > 150 and soft < 2500:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    port = free_port()
    proc = _start(["--no-https", "--host", "127.0.0.1", "--port", str(port), "--threads", "4",
                   "--instance", str(tmp_path / "i"), "--no-qr"])
    held = []
    try:
        _get(f"http://127.0.0.1:{port}/api/games")      # started
        for _ in range(want):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")   # and no end of headers
            held.append(s)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=20) as r:
            assert r.status == 200
        assert proc.poll() is None
    finally:
        for s in held:
            s.close()
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _insecure():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def test_the_quick_start_serves_https_beside_http_and_links_to_it(tmp_path):
    """The README's first command: HTTP on --port and HTTPS (self-signed) beside it; the address
    printed, the QR codes and the pages' join links are the HTTPS one, where phones' cameras
    work; an HTTP page links there and explains the certificate warning."""
    port, secure = free_port(), free_port()
    proc = _start(["--host", "127.0.0.1", "--port", str(port), "--https-port", str(secure),
                   "--db", str(tmp_path / "x.sqlite"), "--instance", str(tmp_path / "i")])
    try:
        status, _ = _get(f"http://127.0.0.1:{port}/api/games")
        assert status == 200 and (tmp_path / "x.sqlite").exists()
        status, body = _get(f"https://127.0.0.1:{secure}/", _insecure())
        assert status == 200 and b'data-page="index"' in body
        assert (tmp_path / "i" / "cert.pem").exists()
        _, page = _get(f"http://127.0.0.1:{port}/?lang=de")
        page = page.decode()
        assert f'href="https://127.0.0.1:{secure}/?lang=de"' in page   # the same page, secure
        assert "Zertifikat" in page and "Fortfahren" in page
        _, qr = _get(f"http://127.0.0.1:{port}/qr.svg")
        assert f"https://127.0.0.1:{secure}/".encode() in qr
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=20)[0].decode()
    assert f"dice companion: https://127.0.0.1:{secure}/" in out
    assert f"http://127.0.0.1:{port}/" in out and "self-signed" in out
    assert "█" in out or "▀" in out          # the QR code drawn in the terminal


def test_no_https_serves_plain_http_alone(tmp_path):
    port = free_port()
    proc = _start(["--host", "127.0.0.1", "--port", str(port), "--no-https", "--no-qr",
                   "--instance", str(tmp_path / "i")])
    try:
        _, page = _get(f"http://127.0.0.1:{port}/")
        assert b"--no-https" in page            # says why phones have no camera here
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=20)[0].decode()
    assert f"dice companion: http://127.0.0.1:{port}/" in out
    assert not (tmp_path / "i" / "cert.pem").exists()


@pytest.mark.parametrize("which", ["http", "https"])
def test_a_port_in_use_is_a_one_line_error(tmp_path, which):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        ports = (["--port", str(busy), "--https-port", str(free_port())] if which == "http" else
                 ["--port", str(free_port()), "--https-port", str(busy)])
        proc = _start(["--host", "127.0.0.1", *ports, "--no-qr", "--instance", str(tmp_path / "i")])
        out = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == 2, out
    flag = "--port" if which == "http" else "--https-port"
    assert out.strip() == (f"dice-companion serve: port {busy} is in use by another program: "
                           f"choose another with {flag}"), out


def test_https_and_no_https_exclude_each_other(tmp_path):
    proc = _start(["--https", "--no-https", "--instance", str(tmp_path / "i")])
    out = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == 2 and "exclude each other" in out and "Traceback" not in out


class TestFrameSources:
    def test_demo_shows_a_table_its_games_pictures_one_at_a_time(self, tmp_path):
        """Each table sees the pictures named after its game, and keeps one until it asks for
        the next (they changed every 4 s, whatever the game)."""
        import cv2
        import numpy as np
        for i, name in enumerate(["qwinto_1", "qwinto_2", "knister_1", "mixed_10"]):
            cv2.imwrite(str(tmp_path / f"{name}.png"), np.full((40, 50, 3), 50 * i, np.uint8))
        (tmp_path / "notes.txt").write_text("not a picture")
        src = DirectorySource(tmp_path)
        assert len(src.files) == 4 and src.shown("qwinto", "AAAAA") == (1, 2)
        first = src.latest("qwinto", "AAAAA")
        assert first[:3] == b"\xff\xd8\xff"
        time.sleep(0.05)
        assert src.latest("qwinto", "AAAAA") is first            # held until asked
        src.advance("qwinto", "AAAAA")
        assert src.shown("qwinto", "AAAAA") == (2, 2) and src.latest("qwinto", "AAAAA") != first
        assert src.latest("qwinto", "BBBBB") is first             # another table: its own place
        assert src.shown("knister", "CCCCC") == (1, 1)
        assert src.latest("kuh_vadis", "DDDDD") is None and src.shown("kuh_vadis") is None
        src.advance("qwinto", "AAAAA")
        assert src.latest("qwinto", "AAAAA") is first             # round again
        assert src.describe("qwinto") == "demo: 2 sample pictures of qwinto"

    def test_no_camera_and_no_pictures_is_no_source(self, tmp_path):
        assert open_source(None, tmp_path) is None
        assert open_source(None, tmp_path / "missing") is None
        with pytest.raises(OSError):
            open_source("/nonexistent/video.mp4", None)

    def test_mjpeg_stream_and_server_camera_read(self, tmp_path, make_table):
        import cv2
        import numpy as np
        from companion.app import create_app
        cv2.imwrite(str(tmp_path / "qwinto_a.jpg"), np.full((48, 64, 3), 120, np.uint8))
        app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite"),
                          "FRAME_SOURCE": DirectorySource(tmp_path)})
        client = app.test_client()
        source = client.get("/api/camera").json["source"]
        # no server folder on the page
        assert source == "demo: 1 sample picture" and str(tmp_path) not in source
        r = client.get("/api/camera.mjpg?limit=0.3")
        assert r.mimetype == "multipart/x-mixed-replace"
        assert b"--frame\r\nContent-Type: image/jpeg" in r.data and b"\xff\xd8\xff" in r.data
        # the picture is followed at once by the next part's boundary and headers: a browser shows
        # a part only once the next has begun (otherwise the page stays one picture behind)
        assert r.data.count(b"\xff\xd9\r\n--frame\r\nContent-Type: image/jpeg\r\n\r\n") == 1
        code = make_table(client)
        r = client.post(f"/api/tables/{code}/camera")
        assert r.status_code in (200, 503)
        if r.status_code == 503:
            assert r.json["error"].startswith("camera reading unavailable")

    def test_no_source_is_404(self, client, make_table):
        assert client.get("/api/camera").json == {"source": None}
        assert client.get("/api/camera.mjpg").status_code == 404
        code = make_table(client)
        assert client.post(f"/api/tables/{code}/camera").status_code == 404


def test_a_serving_process_freezes_what_it_built_and_collects_rarely(tmp_path):
    """A collection holds the GIL, so every request of the process waits for it: `serve`
    freezes the objects made at start (the app among them) out of every later collection
    and collects at `server.GC_THRESHOLD` (in a process of its own: tests keep the default)."""
    probe = (
        "import gc, json, sys\n"
        "from companion import server\n"
        "from companion.app import create_app\n"
        "app = create_app({'DATABASE': sys.argv[1]})\n"
        "server.Server.run = lambda self, sockets=None: print(json.dumps(\n"
        "    [gc.get_threshold(), gc.get_freeze_count(),\n"
        "     any(o is app for o in gc.get_objects())]))\n"
        "server.serve(server.front_for(app, 4), [])\n")
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "g.sqlite")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    threshold, frozen, app_collected = json.loads(done.stdout)
    assert tuple(threshold) == (10_000, 10, 10)
    assert frozen > 10_000 and app_collected is False
