from steadypress.cli import main

raise SystemExit(main())
