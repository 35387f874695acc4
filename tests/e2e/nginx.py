"""Debian's nginx running deploy/nginx/outpost.conf on 127.0.0.1, in front of test replicas.

The shipped file is used as it is; only its placeholders change: the replicas' addresses, the listen
addresses (loopback ports instead of 80 and 443, no IPv6) and the certificate, which is made here by
a throwaway certificate authority the clients are told to trust.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import os
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support import REPO_ROOT

SHIPPED_CONF = REPO_ROOT / "deploy" / "nginx" / "outpost.conf"
PLACEHOLDER_REPLICAS = ("10.0.0.11:8080", "10.0.0.12:8080")


def nginx_binary() -> str | None:
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")


@dataclass
class Proxy:
    url: str
    ca_file: Path
    prefix: Path
    process: subprocess.Popen

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca_file))

    def spooled_files(self) -> list[Path]:
        """Response bodies nginx has written to disk instead of passing them through."""
        return [path for path in (self.prefix / "proxy_temp").rglob("*") if path.is_file()]


def site_config(replicas: list[str], *, https_port: int, http_port: int, cert: Path, key: Path) -> str:
    text = SHIPPED_CONF.read_text()
    replacements = {
        f"server {PLACEHOLDER_REPLICAS[0]} ": f"server {replicas[0]} ",
        f"server {PLACEHOLDER_REPLICAS[1]} ": f"server {replicas[1]} ",
        "    listen [::]:80;\n": "",
        "    listen [::]:443 ssl;\n": "",
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "listen 443 ssl;": f"listen 127.0.0.1:{https_port} ssl;",
        "ssl_certificate     /etc/ssl/outpost/fullchain.pem;": f"ssl_certificate {cert};",
        "ssl_certificate_key /etc/ssl/outpost/privkey.pem;": f"ssl_certificate_key {key};",
    }
    for placeholder, value in replacements.items():
        assert text.count(placeholder) == 1, f"{SHIPPED_CONF.name} no longer has exactly one {placeholder!r}"
        text = text.replace(placeholder, value)
    return text


def main_config(prefix: Path, site: Path) -> str:
    """The http block around the site file, everything nginx writes kept under prefix."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers must reach the temp folders below
    temp_paths = "\n".join(f"    {kind}_temp_path {prefix / (kind + '_temp')};"
                           for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""{user}daemon off;
worker_processes 2;
pid {prefix / 'nginx.pid'};
error_log {prefix / 'error.log'} warn;
events {{ worker_connections 1024; }}
http {{
    access_log {prefix / 'access.log'};
{temp_paths}
    include {site};
}}
"""


def write_certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, and a certificate for 127.0.0.1 signed by it: (ca.pem, cert.pem, key.pem)."""
    now = dt.datetime.now(dt.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Outpost test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
          .not_valid_after(now + dt.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def nginx_in_front_of(replica_urls: list[str], prefix: Path) -> Iterator[Proxy]:
    binary = nginx_binary()
    assert binary, "nginx is not installed (Debian: apt-get install nginx-light)"
    prefix.mkdir(parents=True)
    ca_file, cert, key = write_certificates(prefix)
    https_port, http_port = free_port(), free_port()
    site = prefix / "outpost.conf"
    site.write_text(site_config([url.removeprefix("http://") for url in replica_urls], https_port=https_port,
                                http_port=http_port, cert=cert, key=key))
    conf = prefix / "nginx.conf"
    conf.write_text(main_config(prefix, site))
    checked = subprocess.run([binary, "-t", "-p", str(prefix), "-e", str(prefix / "error.log"), "-c", str(conf)],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen([binary, "-p", str(prefix), "-e", str(prefix / "error.log"), "-c", str(conf)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for_port(https_port, process)
        yield Proxy(url=f"https://127.0.0.1:{https_port}", ca_file=ca_file, prefix=prefix, process=process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    stderr = process.stderr
    assert stderr is not None  # started with stderr=PIPE
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, stderr.read().decode(errors="replace")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise AssertionError(f"nginx did not listen on {port}")
