"""``python -m planner``: the `planner` command."""

from planner.cli.main import main

raise SystemExit(main())
