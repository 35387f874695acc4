"""The server's configuration, read from OUTPOST_* environment variables and the command line.

Per process; the instance-wide settings an administrator changes through the API live in the
database (application_settings).
"""

from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from outpost_server.platform_support import make_private

# Settings earlier versions documented under another name, still honoured under it (the new name wins).
RENAMED = {"OUTPOST_EXPORT_LIFETIME_SECONDS": "vulnerability_export_lifetime"}
# Settings whose meaning is gone: a server started with one refuses to start, saying what replaced it.
REMOVED = {
    "OUTPOST_ERROR_TRACKING_PAYLOADS_PER_ERROR":
        "it kept that many event payloads per error and every event; errors now keep at most "
        "OUTPOST_ERROR_TRACKING_EVENTS_PER_ERROR events (default 1000, the first and the latest always), "
        "their payloads with them. Set that one, or none, and remove this one.",
}


class RemovedSetting(SystemExit):
    """A setting that no longer exists was given: the process exits with this message."""


class ServerConfig(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="OUTPOST_", extra="ignore")

    # `serve`: the address and port to listen on (port 0 picks a free one), and the server processes:
    # a number, or "auto" for one per CPU. The command line's --host, --port and --workers win.
    host: str = "127.0.0.1"
    port: int = 8080
    workers: str = "1"
    # Where the SQLite database and the generated secret key live.
    data_dir: Path = Path(".data")
    # SQLAlchemy URL; empty means SQLite in data_dir. PostgreSQL: postgresql+psycopg://user:pw@host/db
    database_url: str = ""
    # Public base URL (scheme://host[:port]) used in links and DSNs; empty means the request's own.
    external_url: str = ""
    # Reverse proxies whose X-Forwarded-Proto and X-Forwarded-For are believed (comma-separated
    # addresses or networks, "*" for any): links then carry the client's scheme, logs its address.
    forwarded_allow_ips: str = "127.0.0.1"
    # Salt for token digests and key for encrypting stored secrets. Replicas sharing a database
    # must share it; when empty, one is generated once and kept in data_dir/secret_key.
    secret_key: str = ""
    # When set, an administrator "root" exists with this personal access token (scope api).
    root_token: str = ""
    # Level of the structured request log on stderr.
    log_level: str = "INFO"
    # Bounds on a client before its request starts: the request line and headers together (431 beyond),
    # the seconds to send them after connecting or after the previous response (then the connection is
    # closed), and the connections one server process serves at once (503 beyond).
    max_header_bytes: int = 64 * 1024
    header_timeout_seconds: float = 20.0
    max_connections: int = 2048
    # Seconds a request's body may pause between two reads (nginx's client_body_timeout); beyond, 408
    # and the connection is closed.
    body_timeout_seconds: float = Field(default=60.0, gt=0)
    # Requests without a token one address may have in flight at once, in each process (the collector's
    # are not counted); beyond, 429 `Retry later` and the connection is closed. 0 = no cap.
    unauthenticated_requests_per_address: int = Field(default=32, ge=0)
    # GitLab's failed-authentication ban: this many failed token authentications (unknown, revoked or
    # expired tokens) from one address within the window ban it for ban_seconds (0 failures = off);
    # addresses in the allowlist (comma-separated addresses or networks) are never banned.
    auth_ban_max_failures: int = 10
    auth_ban_window_seconds: float = 60.0
    auth_ban_seconds: float = 3600.0
    auth_ban_allowlist: str = "127.0.0.1,::1"
    # GitLab's unauthenticated request rate limits (Rack::Attack's throttle_unauthenticated_api and
    # throttle_unauthenticated_web): requests carrying no token from one address, per period, to /api/
    # paths and to the others; beyond, 429 `Retry later` until the period ends. 0 requests = off, GitLab's
    # default (its suggested values: 3600 per 3600 seconds). The collector has its own limits.
    throttle_unauthenticated_api_requests_per_period: int = Field(default=0, ge=0)
    throttle_unauthenticated_api_period_in_seconds: int = Field(default=3600, ge=1)
    throttle_unauthenticated_web_requests_per_period: int = Field(default=0, ge=0)
    throttle_unauthenticated_web_period_in_seconds: int = Field(default=3600, ge=1)
    # How long a request waits for the database (SQLite's write lock, a pooled connection, a turn among
    # the writes) before it is answered 503 with Retry-After.
    database_wait_seconds: float = 5.0
    # SQLite: requests that may write (POST, PUT, PATCH, DELETE) run this many at a time, so writes
    # waiting for a lock held elsewhere never take every thread and connection from the reads.
    sqlite_concurrent_writes: int = 8
    # On SIGINT/SIGTERM, how long requests in flight get to finish before they are cancelled.
    shutdown_grace_seconds: float = 10.0
    # Default limit on instance-level CI/CD variables (GitLab's plan limit default).
    default_instance_variables_limit: int = 25
    # Seconds an external error tracking system (Sentry) gets to connect and to answer.
    error_tracking_external_timeout: float = 10.0
    # Error tracking retention, instance defaults (each can be overridden per project; 0 = no limit):
    # events kept this many days after they arrive,
    error_tracking_retention_days: int = 90
    # at most this many events per error (the first and the latest are kept),
    error_tracking_events_per_error: int = 1000
    # and at most this many bytes of stored event payloads per project (oldest events go first).
    error_tracking_project_bytes: int = 1024**3
    # Seconds between pruning passes; one server process at a time prunes, under a lease.
    error_tracking_prune_interval_seconds: float = 300.0
    # False: this process never prunes (another process sharing the database does).
    error_tracking_pruner: bool = True
    # Error tracking: events accepted per project per minute by the collector; 0 means no limit.
    error_tracking_rate_limit_per_minute: int = 0
    # The ingest spool (a local queue in data_dir): once it holds more than this many bytes, or its
    # oldest entry waits longer than the age below, the collector answers 429 until digest catches up.
    error_tracking_spool_max_bytes: int = 1024**3
    error_tracking_spool_max_age_seconds: float = 6 * 3600.0
    # The digest pauses while the data dir's disk has less free space than this, so the spool always has
    # room to remove a batch once it is stored (removing writes too); it says so once and resumes by itself.
    error_tracking_digest_min_free_bytes: int = 16 * 1024**2
    # Processes that decode, scrub, symbolicate and derive events for the digest, beside its one writer;
    # unset: one per CPU beyond the first two (none on two CPUs, where they cost more CPU than they free).
    # 0 or 1: the digester decodes them itself. Small batches are always decoded there, and so is everything
    # in the console's bundled server (a frozen build).
    digest_processes: int | None = Field(default=None, ge=0)
    # Source maps (artifact bundles and release files uploaded with sentry-cli): the largest file one
    # upload may assemble (advertised as maxFileSize, as Sentry does), the bytes a project may store
    # (bundles and release files together), and the days a bundle no event used is kept (0 = forever).
    source_maps_max_file_bytes: int = 256 * 1024**2
    source_maps_project_bytes: int = 1024**3
    source_maps_unused_days: int = 90
    # What an uploaded bundle may expand to, checked as it is read when assembled: each file in it (a
    # release file is held in memory while it is stored) and all of them together. Beyond, the assemble
    # state is `error` and nothing is stored.
    source_maps_max_member_bytes: int = Field(default=24 * 1024**2, gt=0)
    source_maps_max_expanded_bytes: int = Field(default=1024**3, gt=0)
    # Addresses or networks (comma-separated) allowed to read /-/metrics without a token.
    metrics_allowed_ips: str = "127.0.0.1,::1"
    # Seconds after its creation a vulnerability export (and an archive export) is deleted with its file;
    # GitLab's documented lifetime is an hour. A plain number of seconds, e.g. 86400 for a day.
    vulnerability_export_lifetime: int = Field(default=3600, ge=1)
    # An export job whose worker stops renewing its lease this long is taken over by another worker.
    export_lease_seconds: int = 30
    # False: this process serves the exports API but leaves generating the files to other processes.
    export_worker: bool = True
    # Outgoing mail (alerts, export notifications), like GitLab's smtp_* settings; no host = no mail.
    smtp_host: str = ""
    # 0 = the security mode's usual port (25, 587 for starttls, 465 for tls).
    smtp_port: int = 0
    smtp_username: str = ""
    smtp_password: str = ""
    # none, starttls or tls.
    smtp_security: str = "none"
    mail_from: str = "outpost@localhost"
    # Seconds to connect to and converse with the SMTP server.
    smtp_timeout: float = 10.0
    # False: this process serves the alerts API but leaves delivering notifications to other processes.
    alert_sender: bool = True
    # A delivery claimed by a process that stops renewing it this long is taken over by another one.
    alert_lease_seconds: int = 60
    # The first retry of a failed delivery waits this long; each further one twice as long (at most an hour).
    alert_retry_seconds: float = 30.0
    # Cron monitors: False means this process never marks missed or timed-out check-ins (another process
    # sharing the database does; one of them at a time holds the clock's lease).
    monitor_clock: bool = True
    # How often the clock looks for missed and timed-out check-ins.
    monitor_clock_interval_seconds: float = 10.0

    @model_validator(mode="before")
    @classmethod
    def _earlier_names(cls, values: dict) -> dict:
        for name, explanation in REMOVED.items():
            if name in os.environ:
                raise RemovedSetting(f"{name} is no longer a setting: {explanation}")
        for old, field in RENAMED.items():
            if old in os.environ and field not in values:
                values = {**values, field: os.environ[old]}
        return values

    def sqlalchemy_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'outpost.sqlite3').resolve()}"

    def prepare_data_dir(self) -> None:
        """The data dir, readable by the server's user alone: the directory and those in it 0700, every file
        0600 (the SQLite database with its -wal and -shm, the spool, the key, exports). Tightens what an
        older version left readable; what the server creates later is private through its umask (cli.py).
        On Windows the modes change nothing: the folder's ACL decides (platform_support)."""
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        make_private(self.data_dir, folder=True)
        for folder, folders, files in os.walk(self.data_dir):
            for name in folders:
                make_private(os.path.join(folder, name), folder=True)
            for name in files:
                make_private(os.path.join(folder, name))

    def resolved_secret_key(self) -> str:
        if self.secret_key:
            return self.secret_key
        path = self.data_dir / "secret_key"
        if path.exists():
            return path.read_text().strip()
        self.prepare_data_dir()
        key = secrets.token_hex(32)
        # Exclusive create so two processes starting together agree on one key.
        try:
            with open(path, "x") as handle:
                handle.write(key)
            make_private(path)
        except FileExistsError:
            return path.read_text().strip()
        return key


@lru_cache
def load_config() -> ServerConfig:
    return ServerConfig()
