"""The digest's decode processes (error_tracking/digest/decode_pool.py)."""

import multiprocessing
import os
import subprocess
import sys

import pytest

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


# A digester process as `serve --workers` starts one: its stop handler set, its decode processes forked. Each
# decode process is sent SIGTERM, as the pool sends the survivors of a broken pool; prints the pids that lived.
FORKED_DECODERS = """
import multiprocessing, os, signal, sys, threading, time
from outpost_server.db import make_engine
from outpost_server.error_tracking.digest.decode_pool import Decoder, DecodeSetup
from outpost_server.server_log import configure_logging
from outpost_server.source_maps.symbolication import symbolicate

stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
url = "sqlite:///" + sys.argv[1]
setup = DecodeSetup(database_url=url, secret_key="decode-pool-test", log_level="INFO",
                    configure_logging=configure_logging, symbolicate=symbolicate)
decoder = Decoder(setup, engine=make_engine(url), processes=2, start_method="fork")
pool = decoder._running_pool()
pids = {pool.submit(os.getpid).result(timeout=120) for _ in range(20)}
processes = [process for process in multiprocessing.active_children() if process.pid in pids]
for process in processes:
    try:
        os.kill(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass  # the first one's end broke the pool, which ended this one already
# Each process's sentinel, not is_alive(): the pool's own thread reaps the processes of a broken pool, and a
# poll racing it for the exit status reads a process it has just reaped as still running.
from multiprocessing.connection import wait
living = {process.sentinel: process.pid for process in processes}
deadline = time.monotonic() + 30
while living and time.monotonic() < deadline:
    for ended in wait(list(living), timeout=deadline - time.monotonic()):
        del living[ended]
print(sorted(living.values()))
for process in processes:
    process.kill()
os._exit(0)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no fork: spawned decode processes start with "
                                                   "Python's own signal handlers")
def test_a_forked_decode_process_ends_on_sigterm(tmp_path):
    """The pool ends the survivors of a broken pool with SIGTERM. Forked decode processes inherited the digester's
    stop handler, which only set the digester's event: a survivor blocked on the queue's lock the killed process
    held lived on, the pool's thread spun waiting for it, and the digester could not exit."""
    script = tmp_path / "forked_decoders.py"
    script.write_text(FORKED_DECODERS)
    result = subprocess.run([sys.executable, str(script), str(tmp_path / "outpost.db")], capture_output=True,
                            text=True, timeout=240)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout + result.stderr
