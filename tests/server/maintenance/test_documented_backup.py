"""docs/deploy.md's nightly backup, run as written: its script, by its cron line, beside a running server."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time

from outpost_server.maintenance import archive
from tests.support import REPO_ROOT, launch_server

DEPLOY = (REPO_ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")


def documented_script() -> str:
    blocks = re.findall(r"```sh\n(.*?)```", DEPLOY, re.S)
    scripts = [block for block in blocks if block.startswith("#!/bin/sh\n# /usr/local/bin/outpost-backup")]
    assert len(scripts) == 1
    return scripts[0]


def documented_cron_command() -> str:
    """The command of the documented cron line (after its schedule and user)."""
    lines = [line.strip() for line in DEPLOY.splitlines() if line.strip().startswith("15 3 * * * outpost ")]
    assert len(lines) == 1
    return lines[0].removeprefix("15 3 * * * outpost ")


def test_the_documented_nightly_backup_keeps_a_fortnight(tmp_path):
    server = launch_server(tmp_path / "data")
    try:
        bin_dir, backups = tmp_path / "bin", tmp_path / "backups"
        bin_dir.mkdir()
        backups.mkdir()
        shim = bin_dir / "outpost-server"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m outpost_server "$@"\n')
        script = bin_dir / "outpost-backup"
        script.write_text(documented_script())
        for path in (shim, script):
            path.chmod(path.stat().st_mode | stat.S_IXUSR)
        passphrase = tmp_path / "backup-passphrase"
        passphrase.write_text("a nightly passphrase\n")
        stale = backups / "outpost-20000101T031500Z.backup"
        stale.write_bytes(b"old")
        old = time.time() - 20 * 86400
        os.utime(stale, (old, old))
        env_file = tmp_path / "server.env"
        env_file.write_text(f"OUTPOST_DATA_DIR={server.data_dir}\nOUTPOST_BACKUP_DIR={backups}\n"
                            f"OUTPOST_BACKUP_PASSPHRASE_FILE={passphrase}\n"
                            + "".join(f"{name}={server.env[name]}\n" for name in ("OUTPOST_DATABASE_URL",)
                                      if name in server.env))
        command = documented_cron_command().replace("/etc/outpost/server.env", str(env_file)).replace(
            "/usr/local/bin/outpost-backup", str(script))
        clean = {name: value for name, value in os.environ.items() if not name.startswith("OUTPOST_")}
        ran = subprocess.run(["sh", "-c", command], env={**clean, "PATH": f"{bin_dir}:{clean['PATH']}"},
                             capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
        assert ran.returncode == 0, ran.stderr
        made = sorted(backups.glob("outpost-*.backup"))
        assert len(made) == 1 and made[0] != stale
        manifest = archive.verify(made[0])
        assert manifest["secret_key"] == "sealed with a passphrase"
        assert stat.S_IMODE(made[0].stat().st_mode) == 0o600
    finally:
        server.stop()
