"""Starting and stopping this process's part of the collector: the access cache, the digester, the spool
writer, the shared rate limit and the origin refusals' counts; and the digester process of `serve --workers`."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from sqlalchemy.engine import Engine

from outpost_server.config import ServerConfig
from outpost_server.db import make_engine
from outpost_server.deps import Services
from outpost_server.error_tracking.digest.decode_pool import Decoder, DecodeSetup
from outpost_server.error_tracking.digest.digester import Digester
from outpost_server.error_tracking.ingest.accept import SpoolLimits, SpoolWriter
from outpost_server.error_tracking.ingest.access_cache import AccessCache
from outpost_server.error_tracking.ingest.collector_parts import Collector
from outpost_server.error_tracking.ingest.origin_refusals import OriginRefusals
from outpost_server.error_tracking.ingest.rate_limit import SharedRateLimit
from outpost_server.error_tracking.ingest.sealing import Sealer
from outpost_server.error_tracking.ingest.spool import spool_path
from outpost_server.platform_support import child_start_method, cpu_count, on_stop_signals, parent_alive
from outpost_server.server_log import configure_logging
from outpost_server.source_maps.symbolication import symbolicate


@asynccontextmanager
async def running_collector(services: Services, *, digest_in_process: bool) -> AsyncIterator[Collector]:
    """The collector for the block; without `digest_in_process` another process digests the spool."""
    config = services.config
    sealer = Sealer(services.secret_key)
    wake = threading.Event()
    async with AsyncExitStack() as workers:
        access = await workers.enter_async_context(AccessCache(services.sessions))
        if digest_in_process:
            # Entered before the writer, so it stops after it: what requests in flight queued is written
            # first, then digested within the grace; whatever is left waits in the spool for the next start.
            await workers.enter_async_context(_digesting(
                Digester(services.engine, data_dir=config.data_dir, wake=wake,
                         decoder=_decoder(config, services.engine, services.secret_key, start_method="spawn"),
                         min_free_bytes=config.error_tracking_digest_min_free_bytes),
                drain_seconds=config.shutdown_grace_seconds))
        writer = await workers.enter_async_context(SpoolWriter(spool_path(config.data_dir), SpoolLimits(
            max_bytes=config.error_tracking_spool_max_bytes,
            max_age_seconds=config.error_tracking_spool_max_age_seconds), on_commit=wake))
        limit = config.error_tracking_rate_limit_per_minute
        rate_limit = None
        if limit > 0:
            rate_limit = await workers.enter_async_context(SharedRateLimit(services.engine, limit_per_minute=limit))
        origin_refusals = await workers.enter_async_context(OriginRefusals(services.sessions))
        yield Collector(access, sealer, writer, rate_limit, origin_refusals)


@asynccontextmanager
async def _digesting(digester: Digester, *, drain_seconds: float) -> AsyncIterator[None]:
    """The digester's thread for the block (it has no event loop to run a BackgroundWorker on)."""
    digester.start()
    try:
        yield
    finally:
        await asyncio.get_running_loop().run_in_executor(None, lambda: digester.stop(drain_seconds=drain_seconds))


def digester_process(config: ServerConfig, parent: int) -> None:
    """The digester process's start (multiprocessing's target, forked or spawned: platform_support)."""
    configure_logging(config.log_level)
    run_digester(config, parent=parent)


def run_digester(config: ServerConfig, *, parent: int) -> None:
    """The digester process of `serve --workers N`: digests until SIGTERM or SIGINT (then drains within
    the shutdown grace), or until its parent is gone."""
    stop = threading.Event()
    on_stop_signals(lambda *_: stop.set())
    engine = make_engine(config.sqlalchemy_url())
    digester = Digester(engine, data_dir=config.data_dir, wake=threading.Event(),
                        decoder=_decoder(config, engine, config.resolved_secret_key(),
                                         start_method=child_start_method()),
                        min_free_bytes=config.error_tracking_digest_min_free_bytes)
    digester.start()
    try:
        while not stop.wait(0.5):
            if not parent_alive(parent):
                break
    finally:
        digester.stop(drain_seconds=config.shutdown_grace_seconds)
        engine.dispose()


def _decoder(config: ServerConfig, engine: Engine, secret_key: str, *, start_method: str) -> Decoder:
    """The digest's decoding: in the digester, or in decode processes (OUTPOST_DIGEST_PROCESSES). By default
    one per CPU beyond the first two: handing a batch over costs CPU (measured on two CPUs, about 0.1 ms an
    event more, with both taken by the accept stage under load, made the end-to-end rate lower), which only
    CPUs the accept stage and the digester leave free pay back. A frozen build (the console's bundled server)
    cannot start its own executable as a decode process, and decodes in the digester."""
    processes = config.digest_processes
    if getattr(sys, "frozen", False):
        processes = 1
    elif processes is None:
        processes = max(cpu_count() - 2, 1)
    setup = DecodeSetup(database_url=config.sqlalchemy_url(), secret_key=secret_key,
                        log_level=config.log_level, configure_logging=configure_logging, symbolicate=symbolicate)
    return Decoder(setup, engine=engine, processes=processes, start_method=start_method)
