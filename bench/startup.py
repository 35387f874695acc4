"""Start-up time of the packaged console against a minimal PySide6 window built the same way.

    .venv/bin/python bench/startup.py [--runs 15] [--rebuild]

Builds the baseline (bench/startup_baseline.spec: PyInstaller onedir with the console's options)
in this run, and the console package with packaging/linux/build.sh when dist/outpost is missing
or --rebuild is given. Each run starts the executable with QT_QPA_PLATFORM=offscreen and
OUTPOST_STARTUP_PROBE=1 (see packaging/hooks/rthook_startup_probe.py): the process prints the
monotonic time once its main window has been shown and exits, so a run measures process start ->
window shown. Runs alternate between the two programs after one warm-up each; the report gives
the medians and their ratio and is also written to bench/results/startup.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "dist" / "outpost" / "outpost"
BASELINE_DIST = ROOT / "build" / "bench" / "dist"
BASELINE = BASELINE_DIST / "startup_baseline" / "startup_baseline"
PROBE_PREFIX = "startup-probe shown "
RUN_TIMEOUT = 60.0


def build_baseline() -> float:
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
         "--distpath", str(BASELINE_DIST), "--workpath", str(ROOT / "build" / "bench" / "work"),
         str(ROOT / "bench" / "startup_baseline.spec")],
        check=True, cwd=ROOT,
    )
    return time.monotonic() - started


def build_app() -> float:
    started = time.monotonic()
    subprocess.run([str(ROOT / "packaging" / "linux" / "build.sh")], check=True, cwd=ROOT,
                   env={**os.environ, "PY": sys.executable})
    return time.monotonic() - started


def time_to_shown(executable: Path, home: Path) -> float:
    """Seconds from starting ``executable`` to its main window being shown."""
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "OUTPOST_STARTUP_PROBE": "1",
        # A fresh profile for each program: no saved geometry or settings differ between runs.
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    started = time.monotonic()
    process = subprocess.Popen([str(executable)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    try:
        output, _ = process.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise RuntimeError(f"{executable} showed no window within {RUN_TIMEOUT:.0f} s") from None
    for line in output.splitlines():
        if line.startswith(PROBE_PREFIX):
            return float(line[len(PROBE_PREFIX):]) - started
    raise RuntimeError(f"{executable} exited with code {process.returncode} without showing a window")


def folder_size(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file() and not file.is_symlink())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="measured runs of each program (default 15)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild dist/outpost even if it exists")
    args = parser.parse_args()

    app_build = build_app() if args.rebuild or not APP.exists() else None
    baseline_build = build_baseline()

    programs = {"outpost": APP, "baseline": BASELINE}
    times: dict[str, list[float]] = {name: [] for name in programs}
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as scratch:
        homes = {name: Path(scratch) / name for name in programs}
        for name, executable in programs.items():
            time_to_shown(executable, homes[name])  # warm-up: page cache, font cache
        for _ in range(args.runs):
            for name, executable in programs.items():
                times[name].append(time_to_shown(executable, homes[name]))

    medians = {name: statistics.median(values) for name, values in times.items()}
    result = {
        "runs": args.runs,
        "seconds": {name: {"median": medians[name], "min": min(values), "max": max(values)}
                    for name, values in times.items()},
        "ratio_median": medians["outpost"] / medians["baseline"],
        "folder_bytes": {name: folder_size(executable.parent) for name, executable in programs.items()},
        "build_seconds": {"outpost": app_build, "baseline": baseline_build},
    }
    for name in programs:
        stats = result["seconds"][name]
        print(f"{name:9s} start -> window shown: median {stats['median'] * 1000:7.1f} ms "
              f"(min {stats['min'] * 1000:.1f}, max {stats['max'] * 1000:.1f}, {args.runs} runs), "
              f"folder {result['folder_bytes'][name] / 1e6:.0f} MB")
    print(f"ratio outpost / baseline (medians): {result['ratio_median']:.2f}")
    results = ROOT / "bench" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "startup.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
