"""`python -m companion` is `dice-companion`."""
import sys

from companion.cli import main

sys.exit(main())
