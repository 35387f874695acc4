"""``python -m console``; in a frozen build also the bundled server (``--run-server ...``)."""

import sys


def run(argv: list[str]) -> int:
    # The frozen console starts its bundled server as itself with --run-server first,
    # so this dispatch must happen before anything imports Qt.
    if argv[:1] == ["--run-server"]:
        from outpost_server.cli import main as server_main

        return server_main(argv[1:]) or 0
    from console.app import main

    return main(argv)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
