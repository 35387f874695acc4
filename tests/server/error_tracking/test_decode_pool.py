"""The digest's decode processes (error_tracking/digest/decode_pool.py)."""

import multiprocessing
import os

from outpost_server.db import make_engine
from outpost_server.error_tracking.digest.decode_pool import Decoder, DecodeSetup
from outpost_server.server_log import configure_logging
from outpost_server.source_maps.symbolication import symbolicate


def test_closing_the_decoder_ends_its_decode_processes(tmp_path):
    """The digester's process exits right after closing its decoder: a decode process still waiting for its stop
    then kept the exiting digester waiting for it forever (a spawned digester did not stop on SIGTERM)."""
    url = f"sqlite:///{tmp_path / 'outpost.db'}"
    engine = make_engine(url)
    setup = DecodeSetup(database_url=url, secret_key="decode-pool-test", log_level="INFO",
                        configure_logging=configure_logging, symbolicate=symbolicate)
    decoder = Decoder(setup, engine=engine, processes=2, start_method="spawn")
    try:
        others = set(multiprocessing.active_children())
        # The pool as the first large batch starts it; a call that answers shows its process runs.
        pool = decoder._running_pool()
        assert pool.submit(os.getpid).result(timeout=120) != os.getpid()
        decode_processes = [process for process in multiprocessing.active_children() if process not in others]
        assert decode_processes
        decoder.close()
        assert [process.pid for process in decode_processes if process.is_alive()] == []
    finally:
        decoder.close()
        engine.dispose()
