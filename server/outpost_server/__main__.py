from outpost_server.cli import main

raise SystemExit(main())
